// The object checks of list writes under a lease: every object an entry points at
// exists when the entry is written, and an edge to an object found gone is dropped.

package store

import (
	"context"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

// withoutEdgesTo returns ops without the puts of entries pointing at object.
func withoutEdgesTo(ops []batching.WriteOp, object Key) []batching.WriteOp {
	target := object.String()
	return slices.DeleteFunc(slices.Clone(ops), func(op batching.WriteOp) bool {
		k, ok := op.Item[schema.AttrObjectKey].(*types.AttributeValueMemberS)
		return ok && k.Value == target
	})
}

// writeCheckingObjects writes ops in transactions of at most half the actions, each
// with the checks of t and of the objects its entry puts point at. A refused object
// check fails with a *missingObject.
func (c *Core) writeCheckingObjects(ctx context.Context, batch *batching.Engine, t *actions.Transaction, ops []batching.WriteOp) error {
	per := (actions.MaxItems - len(t.Actions)) / 2
	chunks := batching.Chunk(batching.LastWriteWins(ops), per, actions.MaxBytes/2, batching.WriteOp.Size)
	return batching.Parallel(ctx, len(chunks), c.MaxConcurrency, func(ctx context.Context, i int) error {
		ct := t.Clone()
		for _, op := range chunks[i] {
			if op.Item != nil && op.Item[schema.AttrObjectKey] != nil {
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
		a := c.Transact(ctx, ct.Actions, commit.NewToken())
		switch {
		case a.Outcome == commit.Committed:
			return nil
		case a.Outcome == commit.ConditionFailed && a.Action < len(t.Actions):
			return ErrGuardFailed
		case a.Outcome == commit.ConditionFailed && a.Action < checks:
			return &missingObject{Object: Refusal(ct, a).Role.Object}
		}
		return a.Err
	})
}

// requireObjects fails when the object of an entry of puts does not exist or is
// being deleted, with gone true and the error ObjectMissing names.
func (c *Core) requireObjects(ctx context.Context, puts []relationships.Entry) (gone bool, err error) {
	objects := make([]Key, 0, len(puts))
	for _, e := range puts {
		objects = append(objects, e.Object)
	}
	objects = DistinctKeys(objects)
	items, err := c.BatchReadEntities(ctx, objects, batching.ReadOptions{Consistent: true, Projection: []string{schema.AttrDeleting, schema.AttrExpires}})
	if err != nil {
		return false, err
	}
	for i, o := range objects {
		if items[i] == nil || c.Hidden(items[i]) {
			return true, ObjectMissing(o)
		}
	}
	return false, nil
}

// ObjectMissing is the refusal of an edge to the entity o, which does not exist:
// errs.ErrNotFound naming it.
func ObjectMissing(o Key) error {
	return fmt.Errorf("%w: %s, the object of an edge", errs.ErrNotFound, o)
}

// missingObject is how writeCheckingObjects tells applyLeased which object it found
// missing, so that its edges are dropped; it never leaves the store.
type missingObject struct{ Object Key }

func (e *missingObject) Error() string { return ObjectMissing(e.Object).Error() }
