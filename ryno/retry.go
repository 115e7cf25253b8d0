package ryno

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// backoff returns how long to wait before retry n (n >= 1): full jitter over a
// ceiling that doubles from BaseDelay up to MaxDelay.
func (r RetryOptions) backoff(n int) time.Duration {
	ceiling := r.ceiling(n)
	if ceiling <= 0 {
		return 0
	}
	return rand.N(ceiling + 1)
}

// ceiling returns the most retry n (n >= 1) waits: BaseDelay doubled n-1 times, at
// most MaxDelay.
func (r RetryOptions) ceiling(n int) time.Duration {
	ceiling := r.MaxDelay
	if n <= 30 {
		if d := r.BaseDelay << (n - 1); d < ceiling {
			ceiling = d
		}
	}
	return ceiling
}

// retryState tracks the retries of one chunk.
type retryState struct {
	opts    RetryOptions
	retries int // retries so far: the backoff exponent
	idle    int // requests in a row that made no progress
}

// next records a response that left left of before items unprocessed and reports
// whether to retry, and after how long.
func (s *retryState) next(before, left int) (time.Duration, bool) {
	if left < before {
		s.idle = 0
	} else {
		s.idle++
	}
	if s.idle >= s.opts.MaxAttempts {
		return 0, false
	}
	s.retries++
	return s.opts.backoff(s.retries), true
}

// retryLater is what send returns, with the items it hands back, when a request
// failed in a way that may pass when sent again (throttling or a transaction
// conflict, say).
type retryLater struct{ err error }

func (e *retryLater) Error() string { return e.err.Error() }
func (e *retryLater) Unwrap() error { return e.err }

// untilDone sends pending with send, then what send reports left unprocessed, with
// backoff between requests, until nothing is left. A *retryLater error counts as a
// response leaving its items unprocessed. It returns what it could not finish and
// why: the error of a request, the context's, or ErrUnprocessed (wrapping the last
// retryLater cause, if any) when the retry budget ran out.
func untilDone[T any](ctx context.Context, b *batcher, pending []T, send func(context.Context, []T) ([]T, error)) ([]T, error) {
	state := retryState{opts: b.retry}
	var cause error
	for {
		release, err := b.acquire(ctx)
		if err != nil {
			return pending, err
		}
		left, err := send(ctx, pending)
		release()
		var later *retryLater
		why := reasonUnprocessed
		switch {
		case errors.As(err, &later):
			cause = later.err
			if isThrottle(cause) {
				why = reasonThrottled
			}
		case err != nil:
			return pending, err
		}
		if len(left) == 0 {
			return nil, nil
		}
		wait, retry := state.next(len(pending), len(left))
		if !retry {
			if cause != nil {
				return left, fmt.Errorf("%w: %w", ErrUnprocessed, cause)
			}
			return left, ErrUnprocessed
		}
		retrying(ctx, why, wait, cause)
		if err := b.sleep(ctx, wait); err != nil {
			return left, err
		}
		pending = left
	}
}

func sleepContext(ctx context.Context, d time.Duration) error {
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

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
