package batching

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"time"
)

// Policy bounds the retries of requests DynamoDB leaves unfinished, with backoff
// between them. ryno.RetryOptions converts to it.
type Policy struct {
	// MaxAttempts is how many requests in a row may leave a chunk's items
	// unprocessed without any progress before the chunk is given up.
	MaxAttempts int
	// BaseDelay is the backoff before the first retry.
	BaseDelay time.Duration
	// MaxDelay caps the backoff.
	MaxDelay time.Duration
}

// Backoff returns how long to wait before retry n (n >= 1): full jitter over a
// ceiling that doubles from BaseDelay up to MaxDelay.
func (r Policy) Backoff(n int) time.Duration {
	ceiling := r.Ceiling(n)
	if ceiling <= 0 {
		return 0
	}
	return rand.N(ceiling + 1)
}

// Ceiling returns the most retry n (n >= 1) waits: BaseDelay doubled n-1 times, at
// most MaxDelay.
func (r Policy) Ceiling(n int) time.Duration {
	if r.BaseDelay <= 0 {
		return 0
	}
	ceiling := r.MaxDelay
	// BaseDelay doubled n-1 times, when that fits: a shift past the top bit wraps.
	if n >= 1 && n-1 < bits.LeadingZeros64(uint64(r.BaseDelay)) {
		if d := r.BaseDelay << (n - 1); d < ceiling {
			ceiling = d
		}
	}
	return ceiling
}

// RetryState tracks the retries of one chunk.
type RetryState struct {
	Opts    Policy
	retries int // retries so far: the backoff exponent
	idle    int // requests in a row that made no progress
}

// Next records a response that left left of before items unprocessed and reports
// whether to retry, and after how long.
func (s *RetryState) Next(before, left int) (time.Duration, bool) {
	if left < before {
		s.idle = 0
	} else {
		s.idle++
	}
	if s.idle >= s.Opts.MaxAttempts {
		return 0, false
	}
	s.retries++
	return s.Opts.Backoff(s.retries), true
}

// RetryLater is what send returns, with the items it hands back, when a request
// failed in a way that may pass when sent again (throttling or a transaction
// conflict, say).
type RetryLater struct{ Err error }

func (e *RetryLater) Error() string { return e.Err.Error() }
func (e *RetryLater) Unwrap() error { return e.Err }

// UntilDone sends pending with send, then what send reports left unprocessed, with
// backoff between requests, until nothing is left. A *RetryLater error counts as a
// response leaving its items unprocessed. It returns what it could not finish and
// why: the error of a request, the context's, or ErrUnprocessed (wrapping the last
// RetryLater cause, if any) when the retry budget ran out.
func UntilDone[T any](ctx context.Context, b *Engine, pending []T, send func(context.Context, []T) ([]T, error)) ([]T, error) {
	state := RetryState{Opts: b.retry}
	var cause error
	for {
		release, err := b.Acquire(ctx)
		if err != nil {
			return pending, err
		}
		left, err := send(ctx, pending)
		release()
		var later *RetryLater
		why := ReasonUnprocessed
		switch {
		case errors.As(err, &later):
			cause = later.Err
			why = ReasonConflict
			if IsThrottle(cause) {
				why = ReasonThrottled
			}
		case err != nil:
			return pending, err
		default:
			cause = nil // this response left items unprocessed, for no reason of the last
		}
		if len(left) == 0 {
			return nil, nil
		}
		wait, retry := state.Next(len(pending), len(left))
		if !retry {
			if cause != nil {
				return left, fmt.Errorf("%w: %w", ErrUnprocessed, cause)
			}
			return left, ErrUnprocessed
		}
		if b.Retrying != nil {
			b.Retrying(ctx, why, wait, cause)
		}
		if err := b.Sleep(ctx, wait); err != nil {
			return left, err
		}
		pending = left
	}
}

// SleepContext waits d, or until ctx ends, and returns ctx's error then.
func SleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// IsContextErr reports whether err is a context's cancellation or deadline.
func IsContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
