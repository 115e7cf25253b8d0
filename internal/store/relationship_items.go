// What an item of the relationships table is, for the sweep, check, sets and
// transactions that read them: an entry of a set, a list's head, or the store's
// bookkeeping.

package store

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/schema"
)

// InSet reports whether item is an entry of a set, which keeps no head or marker:
// an entry without a _predicate_object_key, or with that of an ordered set.
func InSet(item map[string]types.AttributeValue) bool {
	switch k := item[schema.AttrPredicateObjectKey].(type) {
	case nil:
		return !Bookkeeping(item)
	case *types.AttributeValueMemberS:
		return schema.IsOrderedSetKey(k.Value)
	}
	return false
}

// isHead reports whether item of the relationship entries table is a list's head.
func isHead(item map[string]types.AttributeValue) bool {
	k, ok := item[schema.AttrPredicateKey].(*types.AttributeValueMemberS)
	return ok && strings.HasPrefix(k.Value, schema.ListHeadPrefix)
}

// Bookkeeping reports whether item of the relationship entries table is a list's
// head, marker or intent part rather than an entry.
func Bookkeeping(item map[string]types.AttributeValue) bool {
	k, ok := item[schema.AttrPredicateKey].(*types.AttributeValueMemberS)
	return ok && k.Value <= schema.EntriesStart
}
