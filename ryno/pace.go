package ryno

import (
	"context"
	"fmt"
	"time"
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
	return &pacer{opts: c.opts.Conflicts, sleep: c.batch.sleep, attempt: 1}
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
	wait := p.opts.backoff(p.attempt - 2)
	retrying(ctx, reasonConflict, wait, nil)
	return p.sleep(ctx, wait)
}
