// The ownership cascade of a Delete: what an entity owns, marked deleting level by
// level under the owner's guard, then deleted.

package store

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

// treeKey is the context key of the tree a cascade is deleting, so that nested
// cascades share it: an entity that owns itself, or an owner of its owner, ends the
// recursion, and the marks of the first pass are not sent again.
type treeKey struct{}

// tree is the state of one cascade: the entities the first pass marked, with what
// their marks returned, and those the second pass has taken to delete.
type tree struct {
	mu      sync.Mutex
	marked  map[Key]*entitystate.State // nil until the mark returned
	deleted map[Key]bool
}

func newTree(root Key) *tree {
	return &tree{marked: map[Key]*entitystate.State{root: nil}, deleted: map[Key]bool{root: true}}
}

// toMark returns the keys of keys the first pass has not met yet, and records them.
func (t *tree) toMark(keys []Key) []Key {
	t.mu.Lock()
	defer t.mu.Unlock()
	var fresh []Key
	for _, k := range keys {
		if _, ok := t.marked[k]; !ok {
			t.marked[k] = nil
			fresh = append(fresh, k)
		}
	}
	return fresh
}

// unmark forgets keys toMark returned, left unmarked.
func (t *tree) unmark(keys []Key) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, k := range keys {
		delete(t.marked, k)
	}
}

// setMarked records what the mark of k returned. Only the index record of the item
// is kept (CompleteDelete releases its claims), so that a large tree holds little.
func (t *tree) setMarked(k Key, s entitystate.State) {
	if record, ok := s.Item[schema.AttrIndexEntries]; ok {
		s.Item = map[string]types.AttributeValue{schema.AttrIndexEntries: record}
	} else if s.Item != nil {
		s.Item = map[string]types.AttributeValue{}
	}
	t.mu.Lock()
	t.marked[k] = &s
	t.mu.Unlock()
}

// toDelete returns the keys of keys the second pass has not taken yet, with the
// state of each one's mark (nil when the first pass did not mark it), and takes them.
func (t *tree) toDelete(keys []Key) ([]Key, []*entitystate.State) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var fresh []Key
	var states []*entitystate.State
	for _, k := range keys {
		if !t.deleted[k] {
			t.deleted[k] = true
			fresh, states = append(fresh, k), append(states, t.marked[k])
		}
	}
	return fresh, states
}

// cascade deletes what g's entity owns, when its type owns anything, while g
// holds (the entity holds the tombstone of the Delete, or is missing): the first
// cascade of a Delete marks the whole tree, then each level deletes its objects. A
// guard found gone means another caller completed the Delete, and the entity may
// have a new life: the cascade stops, and the sweep after it finds the guard gone
// too.
func (c *Core) cascade(ctx context.Context, g Guard) error {
	k := g.Key
	if len(c.Owns[k.Type]) == 0 {
		return nil
	}
	t, _ := ctx.Value(treeKey{}).(*tree)
	if t == nil {
		t = newTree(k)
		ctx = context.WithValue(ctx, treeKey{}, t)
		if err := c.markOwned(ctx, t, g); err != nil && !errors.Is(err, ErrGuardFailed) {
			return errs.Wrap(err, "marking what %s owns", k)
		}
	}
	for _, p := range c.Owns[k.Type] {
		if err := c.deleteOwned(ctx, t, g, p); err != nil {
			return errs.Wrap(err, "deleting what %s owns under %s", k, p)
		}
	}
	return nil
}

// markOwned puts the tombstone of a Delete on every entity g's entity owns, and on
// what they own, recursively. Each page of a list is marked only once g is seen to
// hold after it was read (one consistent GetItem): an owner whose Delete another
// caller completed may have been created anew, with a list of its own, which this
// pass must not touch. It returns ErrGuardFailed when g no longer holds.
func (c *Core) markOwned(ctx context.Context, t *tree, g Guard) error {
	for _, p := range c.Owns[g.Key.Type] {
		err := c.ownedPages(ctx, g.Key, p, func(objects []Key) error {
			fresh := t.toMark(objects)
			if len(fresh) == 0 {
				return nil
			}
			if held, err := c.GuardHolds(ctx, g); err != nil || !held {
				t.unmark(fresh)
				return cmp.Or(err, ErrGuardFailed)
			}
			return batching.Parallel(ctx, len(fresh), c.MaxConcurrency, func(ctx context.Context, i int) error {
				s, err := c.MarkDeleting(ctx, fresh[i], Expect{})
				if err != nil {
					return err
				}
				t.setMarked(fresh[i], s)
				// With no entity, what it owned is still listed, and marked while it stays missing.
				if err := c.markOwned(ctx, t, deletingGuard(fresh[i], s.Deleting)); !errors.Is(err, ErrGuardFailed) {
					return err
				}
				return nil // completed by another caller meanwhile: its life is not ours
			})
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// deleteOwned completes the Deletes of the objects of the list under predicate of
// g's entity, a page at a time, in parallel within MaxConcurrency: those the first
// pass marked from the state each mark returned. An object the pass did not mark
// was listed after it: by a set Add whose entry landed after the owner's mark (it
// takes it back only when its read of the owner follows), or under a new life of
// the owner, created after another writer completed this Delete. So it is deleted
// only while g still holds, read once per page that needs it. Likewise, a Delete of
// a marked object whose tombstone another writer completed finds its guard gone
// and leaves the entity created since.
func (c *Core) deleteOwned(ctx context.Context, t *tree, g Guard, predicate string) error {
	return c.ownedPages(ctx, g.Key, predicate, func(objects []Key) error {
		fresh, states := t.toDelete(objects)
		if slices.Contains(states, nil) {
			held, err := c.GuardHolds(ctx, g)
			if err != nil {
				return err
			}
			if !held {
				fresh, states = markedOnly(fresh, states)
			}
		}
		return batching.Parallel(ctx, len(fresh), c.MaxConcurrency, func(ctx context.Context, i int) error {
			if s := states[i]; s != nil {
				return c.finishMarked(ctx, fresh[i], *s)
			}
			return c.DeleteEntity(ctx, fresh[i], Expect{})
		})
	})
}

// markedOnly returns the keys of keys whose state is known, with their states.
func markedOnly(keys []Key, states []*entitystate.State) ([]Key, []*entitystate.State) {
	var k2 []Key
	var s2 []*entitystate.State
	for i, s := range states {
		if s != nil {
			k2, s2 = append(k2, keys[i]), append(s2, s)
		}
	}
	return k2, s2
}

// ownedPages calls fn with the objects of each page of owner's list under
// predicate, read consistently.
func (c *Core) ownedPages(ctx context.Context, owner Key, predicate string, fn func([]Key) error) error {
	in := c.OutgoingQuery(owner, predicate)
	in.ConsistentRead = aws.Bool(true)
	return c.QueryPages(ctx, in, func(items []map[string]types.AttributeValue) error {
		objects := make([]Key, 0, len(items))
		for _, item := range items {
			e, err := relationships.FromItem(item)
			if err != nil {
				return err
			}
			objects = append(objects, e.Object)
		}
		return fn(objects)
	})
}
