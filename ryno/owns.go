package ryno

import (
	"context"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/relationships"
)

// Owns declares that the entities of Type own the objects of their list under
// Predicate: deleting an owner deletes what it owns first, recursively, each with
// everything that refers to it, as Delete deletes one entity.
type Owns struct {
	Type      string // the owner's type, in any scope
	Predicate string // its list of what it owns
}

// ownership holds Options.Owns by owner type.
type ownership map[string][]string

func newOwnership(owns []Owns) (ownership, error) {
	o := ownership{}
	for i, ow := range owns {
		field := fmt.Sprintf("Options.Owns[%d]", i)
		if ow.Type == "" {
			return nil, invalid(field+".Type", "", "must name the owner's type")
		}
		if err := relationships.ValidatePredicate(ow.Predicate); err != nil {
			return nil, wrap(err, "%s.Predicate", field)
		}
		o[ow.Type] = append(o[ow.Type], ow.Predicate)
	}
	return o, nil
}

// A Delete of an owner, once its tombstone is there (which refuses every write of
// it, and so every addition to its lists), deletes the objects of each list it owns
// before it sweeps its own partition: a Delete cut off half-way keeps the owner's
// lists, and whoever completes it (the next Delete, the next writer of the owner,
// check --repair) finds what is left to delete in them. An object listed twice is
// deleted once; an object already gone costs a Delete of a missing entity, which
// sweeps what still refers to it.

// deleting is the context key of the entities a cascade is deleting, so that an
// entity that owns itself, or an owner of its owner, ends the recursion.
type deletingKey struct{}

// cascade deletes what k owns, when its type owns anything.
func (c *Client) cascade(ctx context.Context, k Key) error {
	predicates := c.owns[k.Type]
	if len(predicates) == 0 {
		return nil
	}
	seen, _ := ctx.Value(deletingKey{}).(*sync.Map)
	if seen == nil {
		seen = &sync.Map{}
		ctx = context.WithValue(ctx, deletingKey{}, seen)
	}
	seen.Store(k, true)
	for _, p := range predicates {
		if err := c.deleteOwned(ctx, k, p, seen); err != nil {
			return wrap(err, "deleting what %s owns under %s", k, p)
		}
	}
	return nil
}

// deleteOwned deletes the objects of owner's list under predicate, a page at a
// time, in parallel within MaxConcurrency.
func (c *Client) deleteOwned(ctx context.Context, owner Key, predicate string, seen *sync.Map) error {
	in := c.core.OutgoingQuery(relationships.Key(owner), predicate)
	in.ConsistentRead = aws.Bool(true)
	return c.core.QueryPages(ctx, in, func(items []map[string]types.AttributeValue) error {
		var objects []Key
		for _, item := range items {
			e, err := relationships.FromItem(item)
			if err != nil {
				return err
			}
			if _, dup := seen.LoadOrStore(Key(e.Object), true); !dup {
				objects = append(objects, Key(e.Object))
			}
		}
		return batching.Parallel(ctx, len(objects), c.opts.MaxConcurrency, func(ctx context.Context, i int) error {
			return c.deleteEntity(ctx, objects[i], writeOptions{})
		})
	})

}
