// The object checks of list writes under a lease: every object an entry points at
// exists when the entry is written, and an edge to an object found gone is dropped.

package lists

import (
	"context"
	"fmt"
	"slices"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// withoutEdgesTo returns ops without the puts of entries pointing at object.
func withoutEdgesTo(ops []batching.WriteOp, object store.Key) []batching.WriteOp {
	return slices.DeleteFunc(slices.Clone(ops), func(op batching.WriteOp) bool {
		if !isEntryPut(op) {
			return false
		}
		e, err := relationships.FromItem(op.Item)
		return err == nil && e.Object == object
	})
}

// isEntryPut reports whether op puts a relationship entry, placed in the reverse
// index or in one of its shards.
func isEntryPut(op batching.WriteOp) bool {
	return op.Item != nil && (op.Item[schema.AttrObjectKey] != nil || op.Item[schema.AttrObjectShard] != nil)
}

// writeCheckingObjects writes ops in transactions of at most half the actions, each
// with the checks of t and of the objects its entry puts point at. A refused object
// check fails with a *missingObject.
func (c *Engine) writeCheckingObjects(ctx context.Context, batch *batching.Engine, t *actions.Transaction, ops []batching.WriteOp) error {
	per := (actions.MaxItems - len(t.Actions)) / 2
	chunks := batching.Chunk(batching.LastWriteWins(ops), per, actions.MaxBytes/2, batching.WriteOp.Size)
	return batching.Parallel(ctx, len(chunks), c.core.MaxConcurrency, func(ctx context.Context, i int) error {
		ct := t.Clone()
		for _, op := range chunks[i] {
			if isEntryPut(op) {
				e, err := relationships.FromItem(op.Item)
				if err != nil {
					return err
				}
				c.CheckEntity(ct, e.Object, actions.Role{Kind: actions.RoleObject, Object: e.Object})
			}
		}
		checks := len(ct.Actions)
		ct.Actions = append(ct.Actions, actions.Items(chunks[i])...)
		release, err := batch.Acquire(ctx)
		if err != nil {
			return err
		}
		defer release()
		a := c.core.Transact(ctx, ct.Actions, commit.NewToken())
		switch {
		case a.Outcome == commit.Committed:
			return nil
		case a.Outcome == commit.ConditionFailed && a.Action < len(t.Actions):
			return store.ErrGuardFailed
		case a.Outcome == commit.ConditionFailed && a.Action < checks:
			return &missingObject{Object: RefusalOf(ct, a).Role.Object}
		}
		return a.Err
	})
}

// requireObjects fails when the object of an entry of puts does not exist or is
// being deleted, with gone true and the error ObjectMissing names.
func (c *Engine) requireObjects(ctx context.Context, puts []relationships.Entry) (gone bool, err error) {
	objects := make([]store.Key, 0, len(puts))
	for _, e := range puts {
		objects = append(objects, e.Object)
	}
	objects = store.DistinctKeys(objects)
	items, err := c.core.BatchReadEntities(ctx, objects, batching.ReadOptions{Consistent: true, Projection: []string{schema.AttrDeleting, schema.AttrExpires}})
	if err != nil {
		return false, err
	}
	for i, o := range objects {
		if items[i] == nil || c.core.Hidden(items[i]) {
			return true, ObjectMissing(o)
		}
	}
	return false, nil
}

// ObjectMissing is the refusal of an edge to the entity o, which does not exist:
// errs.ErrNotFound naming it.
func ObjectMissing(o store.Key) error {
	return fmt.Errorf("%w: %s, the object of an edge", errs.ErrNotFound, o)
}

// missingObject is how writeCheckingObjects tells applyLeased which object it found
// missing, so that its edges are dropped; it never leaves the store.
type missingObject struct{ Object store.Key }

func (e *missingObject) Error() string { return ObjectMissing(e.Object).Error() }
