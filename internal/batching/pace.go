package batching

import (
	"context"
	"fmt"
	"time"
)

// Pacer spaces the attempts of a write that loses races: the second attempt goes at
// once (the first often only learned what is stored), later ones after a backoff with
// full jitter, within a budget of attempts.
type Pacer struct {
	opts     Policy
	sleep    func(context.Context, time.Duration) error
	retrying func(ctx context.Context, why Reason, wait time.Duration, cause error)
	attempt  int // attempts made, but those after a Yield
	yields   int // attempts made after a Yield
}

// YieldsPerAttempt bounds the attempts after a Yield: MaxAttempts times it. Each
// follows a loss to a writer that committed, so a write that runs out of them has
// lost that many turns in a row to others' progress.
const YieldsPerAttempt = 10

// NewPacer returns the pacer of one write, its first attempt made: opts bound its
// attempts and backoff, sleep waits, retrying (when not nil) is told of each retry.
func NewPacer(opts Policy, sleep func(context.Context, time.Duration) error,
	retrying func(ctx context.Context, why Reason, wait time.Duration, cause error)) *Pacer {
	return &Pacer{opts: opts, sleep: sleep, retrying: retrying, attempt: 1}
}

// Hold returns when the next attempt at a list another writer holds until until may
// start: after the backoff's ceiling, without jitter (a poll, not a race to spread
// out), and no later than the lease's expiry, so that the list of a writer cut off is
// taken over as soon as it may be. It fails as Wait does.
func (p *Pacer) Hold(ctx context.Context, until time.Time, now time.Time) error {
	if p.attempt >= p.opts.MaxAttempts {
		return fmt.Errorf("gave up after %d attempts", p.attempt)
	}
	p.attempt++
	wait := min(p.opts.Ceiling(p.attempt-1), until.Sub(now)+time.Millisecond)
	p.retried(ctx, wait)
	return p.sleep(ctx, max(wait, 0))
}

// yieldBackoff is the retry whose backoff a Yield waits: full jitter over four
// times BaseDelay, about what a few rivals' commits take.
const yieldBackoff = 3

// Yield returns when the next attempt after a loss to a writer that committed may
// start: after full jitter over a ceiling that does not grow (yieldBackoff), so
// that every writer taking turns keeps an equal chance at the next. It fails once
// MaxAttempts × YieldsPerAttempt such attempts were made, or when ctx ends.
func (p *Pacer) Yield(ctx context.Context) error {
	if p.yields >= p.opts.MaxAttempts*YieldsPerAttempt {
		return fmt.Errorf("gave up after %d attempts, %d of them lost to writers that committed", p.attempt+p.yields, p.yields)
	}
	p.yields++
	wait := p.opts.Backoff(yieldBackoff)
	p.retried(ctx, wait)
	return p.sleep(ctx, wait)
}

// Wait returns when the next attempt may start, or an error when the budget or the
// context ran out.
func (p *Pacer) Wait(ctx context.Context) error {
	if p.attempt >= p.opts.MaxAttempts {
		return fmt.Errorf("gave up after %d attempts", p.attempt)
	}
	p.attempt++
	if p.attempt == 2 {
		p.retried(ctx, 0)
		return ctx.Err()
	}
	wait := p.opts.Backoff(p.attempt - 2)
	p.retried(ctx, wait)
	return p.sleep(ctx, wait)
}

func (p *Pacer) retried(ctx context.Context, wait time.Duration) {
	if p.retrying != nil {
		p.retrying(ctx, ReasonConflict, wait, nil)
	}
}
