package ryno

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/rynodb/rynodb/internal/store"
)

// InBackground makes Delete return once the entity is marked as being deleted:
// from then on it reads as missing and every write of it is refused. The rest (what
// it owns, what refers to it, the item) is deleted by a goroutine of the Client;
// Wait waits for it. Should the process end first, as a Lambda function's may, the
// tombstone stays, and whoever comes next completes the Delete: a Delete, a write
// of the entity, `ryno check --repair`. It applies to Delete only.
func InBackground() WriteOption {
	return func(o *writeOptions) { o.background = true }
}

// background is the work a Client goes on with after the calls that started it
// returned.
type background struct {
	wg   sync.WaitGroup
	mu   sync.Mutex
	errs []error
}

// deleteInBackground marks k as being deleted, then completes the Delete in a
// goroutine, whatever becomes of ctx.
func (c *Client) deleteInBackground(ctx context.Context, k Key, o writeOptions) error {
	s, err := c.core.MarkDeleting(ctx, k, o.expect())
	if err != nil {
		return err
	}
	if s.Deleting == "" {
		// No entity: what an earlier life left is swept as a Delete does, at once.
		return c.core.DeleteEntity(ctx, k, store.Expect{})
	}
	ctx = context.WithoutCancel(ctx)
	c.bg.wg.Add(1)
	go func() {
		defer c.bg.wg.Done()
		if err := c.core.CompleteDelete(ctx, k, s); err != nil {
			err = wrap(err, "delete %s in the background", k)
			c.bg.mu.Lock()
			c.bg.errs = append(c.bg.errs, err)
			c.bg.mu.Unlock()
			if c.opts.Logger != nil {
				c.opts.Logger.LogAttrs(ctx, slog.LevelError, "ryno: background delete failed; the next write or Delete of the entity, or ryno check --repair, completes it",
					slog.String("key", k.String()), slog.Any("error", err))
			}
		}
	}()
	return nil
}

// Wait waits until the work the Client's calls left running in the background (a
// Delete with InBackground) is done, or ctx ends, and returns what failed since the
// last Wait. A Delete that failed in the background left its tombstone: it is
// completed later, as one cut off is.
func (c *Client) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		c.bg.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	c.bg.mu.Lock()
	defer c.bg.mu.Unlock()
	err := errors.Join(c.bg.errs...)
	c.bg.errs = nil
	return err
}
