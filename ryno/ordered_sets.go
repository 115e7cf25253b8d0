package ryno

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

// An ordered set (Options.OrderedSets) is a set whose entries also hold a
// position, in the sort key of the by-object LSI (schema.OrderedSetKey): the set
// lists in order through that index, consistently when asked, one Query a page.
// Everything else is the set's: one item per object, written on its own, the
// subject read after the write. A position is the adding client's clock in
// microseconds times store.PositionStride, and at least a stride after the last it gave,
// so concurrent Adds need no shared counter and never conflict. An Add puts the entry only where
// there is none, so an object keeps its place; ReplaceRelationships moves
// objects by writing their entries at new positions (relationships.PlanOrderedSet).

// validateOrdered refuses an object whose entry key, with its position, would pass
// DynamoDB's limit on a sort key.
func validateOrdered(predicate string, objects []Key) error {
	for _, k := range objects {
		key := schema.OrderedSetKey(predicate, 0, k.Scope, k.Type, k.ID)
		if err := schema.ValidateKeyLength(schema.AttrPredicateObjectKey, key, schema.MaxSortKeyBytes); err != nil {
			return wrap(err, "object %s of the ordered set %s", k, predicate)
		}
	}
	return nil
}

// orderedPage decodes a page of an ordered set's entries from the keys the
// by-object LSI projects.
func orderedPage(subject Key, predicate string, items []map[string]types.AttributeValue, cursor string) (*Page[Relationship], error) {
	page := &Page[Relationship]{Items: make([]Relationship, len(items)), Cursor: cursor}
	for i, item := range items {
		e, err := relationships.FromOrderedKeys(subject, predicate, item)
		if err != nil {
			return nil, wrap(err, "decode relationship entry")
		}
		page.Items[i] = relationshipOf(e)
	}
	return page, nil
}
