package store

import (
	"context"

	"github.com/rynodb/rynodb/internal/relationships"
)

// Concurrent Adds (or Removes) of one list by one Client commit together
// (internal/groupcommit): the call at the head of the list's queue writes the
// objects of every call of the same kind queued behind it, in one read and one
// transaction, and each call returns what its own objects changed, as if the calls
// had run one after another, in queue order, at that commit. Writers of one list in
// one process then stop racing one another for its head; writers in other
// processes still race, and retry.

// WriteRelationships writes op: on a set, as WriteSet does; on a list, with the
// calls of the same kind queued for it meanwhile, or alone when it may not share a
// batch.
func (c *Core) WriteRelationships(ctx context.Context, op ListOp) (relationships.Change, error) {
	switch {
	case c.Sets[op.Predicate]:
		return c.WriteSet(ctx, op)
	case !c.combinable(op):
		return c.WriteList(ctx, op)
	}
	return c.queues.Do(ctx, listID{subject: op.Subject, predicate: op.Predicate}, op, c.writeBatch)
}

// sameListKind reports whether b may join a batch a leads: both Adds, or both
// Removes.
func sameListKind(a, b ListOp) bool { return a.Kind == b.Kind }

// writeBatch writes ops, calls of one kind on one list, as one call, and returns
// what each of them changed.
func (c *Core) writeBatch(ctx context.Context, ops []ListOp) ([]relationships.Change, error) {
	op := ops[0]
	op.Objects = nil
	for _, o := range ops {
		op.Objects = append(op.Objects, o.Objects...)
	}
	ch, err := c.WriteList(ctx, op)
	if err != nil {
		return nil, err
	}
	changed := ch.Added
	if op.Kind == ListRemove {
		changed = ch.Removed
	}
	attributed := shareOut(changed, ops)
	out := make([]relationships.Change, len(ops))
	for i := range ops {
		out[i] = ch
		out[i].Added, out[i].Removed = nil, nil
		if op.Kind == ListAdd {
			out[i].Added = attributed[i]
		} else {
			out[i].Removed = attributed[i]
		}
	}
	return out, nil
}

// shareOut gives each call of batch the objects of changed it named, each to the
// first call naming it, in the call's order.
func shareOut(changed []Key, batch []ListOp) [][]Key {
	left := make(map[Key]bool, len(changed))
	for _, k := range changed {
		left[k] = true
	}
	out := make([][]Key, len(batch))
	for i, q := range batch {
		for _, k := range q.Objects {
			if rk := k; left[rk] {
				out[i] = append(out[i], rk)
				delete(left, rk)
			}
		}
	}
	return out
}

// combinable reports whether op may share a batch: an Add or a Remove that does
// not check its objects (one missing object would fail every call of the batch),
// nor require a version of the list (a stale version would fail every call of
// the batch, and the calls written with it change the list that version names).
func (c *Core) combinable(op ListOp) bool {
	return !c.SeparateListWrites && !op.CheckObjects && !op.Pinned && (op.Kind == ListAdd || op.Kind == ListRemove)
}
