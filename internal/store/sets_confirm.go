// A set write confirmed after its puts: the subject still there, the objects
// checked, and what the write put taken back when either is gone.

package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/errs"
)

// confirmSet reads, after the call token wrote the entries of objects (created
// those of created), the subject and, with CheckObjects, the objects, consistently.
// A live subject (and objects) confirms the write. Otherwise the call takes its
// entries back and fails with ErrNotFound: a subject being deleted has its Delete
// completed (which sweeps them, unless the Delete ended first) and is read again; a
// missing subject has them deleted while it stays missing (should it be created
// meanwhile, the entries are its own, and the write stands). A missing object
// fails an Add, which takes back the entries it created; a Replace, which found
// every object before it wrote (readToReplace), stands, as if it came before the
// object's Delete: it deletes the entries it wrote to the object, which that
// Delete's sweep may have missed.
func (c *Core) confirmSet(ctx context.Context, op ListOp, objects, created []Key, token string, replace bool) error {
	var gone *entitystate.State // the subject as the last attempt read it, not live
	giveUp := func(_, _ error) error { return notFound(op.Subject) }
	_, err := batching.Attempts(ctx, batching.Tries(maxSetConfirmations+1), giveUp, func(ctx context.Context) (struct{}, batching.Step, error) {
		if gone != nil {
			if done, err := c.settleGone(ctx, op, objects, *gone); done {
				return struct{}{}, batching.Done, err
			}
		}
		keys := []Key{op.Subject}
		if op.CheckObjects {
			keys = append(keys, objects...)
		}
		found, err := c.ReadEntities(ctx, keys)
		if err != nil {
			return struct{}{}, batching.Done, err
		}
		s, err := c.ReadStored(op.Subject, found[0])
		switch {
		case err != nil:
			return struct{}{}, batching.Done, err
		case s.Live():
			return struct{}{}, batching.Done, c.confirmObjects(ctx, op, objects, created, found[1:], token, replace)
		}
		gone = &s
		return struct{}{}, batching.Retry, nil
	})
	return err
}

// settleGone acts, before confirmSet reads the subject again, on the subject it
// read as s, not live: it completes its Delete, or deletes the entries of objects
// while it stays missing. It reports whether the write is over: the entries taken
// back, or an error.
func (c *Core) settleGone(ctx context.Context, op ListOp, objects []Key, s entitystate.State) (bool, error) {
	if s.Exists() {
		if err := c.CompleteDelete(ctx, op.Subject, s); err != nil {
			return true, errs.Wrap(err, "completing a delete in progress")
		}
		return false, nil
	}
	err := c.TransactGuarded(ctx, c.Batch.Shared(), Guard{Key: op.Subject, Absent: true}, c.setDeletes(op, objects))
	if !errors.Is(err, ErrGuardFailed) {
		return true, errors.Join(err, notFound(op.Subject))
	}
	return false, nil
}

// maxSetConfirmations bounds how often a set write reads its subject again: after
// completing its Delete, or when it was created while the write took its entries
// back.
const maxSetConfirmations = 4

// confirmObjects checks objects, items holding what was read of each. When one is
// missing, an Add fails after deleting the entries of created; a Replace deletes
// the entries it wrote to the missing objects and stands (see confirmSet).
func (c *Core) confirmObjects(ctx context.Context, op ListOp, objects, created []Key, items []map[string]types.AttributeValue, token string, replace bool) error {
	missing, err := c.missingObjects(objects, items)
	switch {
	case len(missing) == 0:
		return nil
	case replace:
		return c.takeBack(ctx, op, missing, token)
	}
	return errors.Join(err, c.takeBack(ctx, op, created, token))
}

// missingObjects returns the objects that items, what was read of each, find
// missing, and the error of the first.
func (c *Core) missingObjects(objects []Key, items []map[string]types.AttributeValue) ([]Key, error) {
	var missing []Key
	var first error
	for i, item := range items {
		if s, err := c.ReadStored(objects[i], item); err != nil || !s.Live() {
			missing = append(missing, objects[i])
			if first == nil {
				first = errors.Join(err, fmt.Errorf("object %w", notFound(objects[i])))
			}
		}
	}
	return missing, first
}

// takeBack deletes the entries of objects that the call token wrote and nobody
// wrote again since.
func (c *Core) takeBack(ctx context.Context, op ListOp, objects []Key, token string) error {
	return batching.Parallel(ctx, len(objects), c.MaxConcurrency, func(ctx context.Context, i int) error {
		return c.DeleteIfToken(ctx, op.SetEntry(objects[i]).PrimaryKey(), token)
	})
}
