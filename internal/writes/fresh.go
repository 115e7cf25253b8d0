// The write of a new entity as plain items, for an import that owns what it
// writes.

package writes

import (
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/lists"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/store"
)

// Fresh is a Put of an entity that does not exist, as the items its transactional
// write would leave, to be sent with BatchWriteItem by a writer no other writes
// race: Items first, then Entity, so that an entity stored is a whole one.
type Fresh struct {
	Entity batching.WriteOp
	// Items are the entity's index entries, the heads, markers and entries of its
	// lists and the entries of its sets.
	Items []batching.WriteOp
	// Related says the entity has lists or sets: items in its subject's
	// partition of the relationships table, which must hold none before.
	Related bool
}

// Fresh returns p, whose entity does not exist and has no list, set or unique
// value stored, as plain items, and reports false when p cannot be written so: it
// claims unique values (a claim must be conditional) or its lists check their
// objects. Everything is checked as Write checks it.
func (c *Writer) Fresh(p Put) (Fresh, bool, error) {
	if c.core.CheckObjects {
		return Fresh{}, false, nil
	}
	p.Mode = PutCreate
	w, err := c.newWrite(p)
	if err != nil {
		return Fresh{}, false, err
	}
	states := make([]lists.State, len(w.predicates))
	for i, pr := range w.predicates {
		states[i].Head = relationships.Head{Subject: p.Key, Predicate: pr}
	}
	plan, err := w.plan(entitystate.Expectation{Absent: true}, nil, states)
	if err != nil || len(plan.claims) > 0 {
		return Fresh{}, false, err
	}
	f := Fresh{Entity: batching.PutOp(c.core.Names.Entities, actions.EntityKey(p.Key), plan.item),
		Related: len(p.Lists)+len(p.Sets) > 0}
	f.Items = append(f.Items, batching.LastWriteWins(plan.entryOps)...)
	for _, ch := range plan.lists {
		ops, ok := actions.NewListItems(c.core.Names.Relationships, c.core.Incoming, ch)
		if !ok {
			return Fresh{}, false, nil
		}
		f.Items = append(f.Items, ops...)
	}
	token := commit.NewToken()
	for _, pr := range slices.Sorted(maps.Keys(p.Sets)) {
		op := lists.Op{Kind: lists.Replace, Subject: p.Key, Predicate: pr}
		for _, o := range store.DistinctKeys(p.Sets[pr]) {
			item := c.lists.SetItem(op, o, token)
			f.Items = append(f.Items, batching.PutOp(c.core.Names.Relationships, relationshipKey(item), item))
		}
	}
	return f, true, nil
}

// Learn records that the entity of p is written: what Write does once it is.
func (c *Writer) Learn(p Put) { c.core.Shapes.Learn(p.Key.Type, store.ShapeNames(p.Base)) }

// relationshipKey is the primary key of a relationships item.
func relationshipKey(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	key, _ := relationships.PrimaryKeyFromItem(item) // the item was built with its key
	return key
}
