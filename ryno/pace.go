package ryno

import (
	"context"
	"fmt"
	"time"

	"github.com/rynodb/rynodb/internal/batching"
)

// pacer spaces the attempts of a write that loses races: the second attempt goes at
// once (the first often only learned what is stored), later ones after a backoff with
// full jitter, within a budget of attempts.
type pacer struct {
	opts    RetryOptions
	sleep   func(context.Context, time.Duration) error
	attempt int // attempts made
}

func (c *Client) conflictPacer() *pacer {
	return &pacer{opts: c.opts.Conflicts, sleep: c.batch.Sleep, attempt: 1}
}

// hold returns when the next attempt at a list another writer holds until until may
// start: after the backoff's ceiling, without jitter (a poll, not a race to spread
// out), and no later than the lease's expiry, so that the list of a writer cut off is
// taken over as soon as it may be. It fails as wait does.
func (p *pacer) hold(ctx context.Context, until time.Time, now time.Time) error {
	if p.attempt >= p.opts.MaxAttempts {
		return fmt.Errorf("gave up after %d attempts", p.attempt)
	}
	p.attempt++
	wait := min(batching.Policy(p.opts).Ceiling(p.attempt-1), until.Sub(now)+time.Millisecond)
	retrying(ctx, reasonConflict, wait, nil)
	return p.sleep(ctx, max(wait, 0))
}

// wait returns when the next attempt may start, or an error when the budget or the
// context ran out.
func (p *pacer) wait(ctx context.Context) error {
	if p.attempt >= p.opts.MaxAttempts {
		return fmt.Errorf("gave up after %d attempts", p.attempt)
	}
	p.attempt++
	if p.attempt == 2 {
		retrying(ctx, reasonConflict, 0, nil)
		return ctx.Err()
	}
	wait := batching.Policy(p.opts).Backoff(p.attempt - 2)
	retrying(ctx, reasonConflict, wait, nil)
	return p.sleep(ctx, wait)
}
