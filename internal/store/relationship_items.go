// What an item of the relationships table is, for the sweep, check, sets and
// transactions that read them: an entry of a set, a list's head, or the store's
// bookkeeping.

package store

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
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

// IsHead reports whether item of the relationship entries table is a list's head.
func IsHead(item map[string]types.AttributeValue) bool {
	k, ok := item[schema.AttrPredicateKey].(*types.AttributeValueMemberS)
	return ok && strings.HasPrefix(k.Value, schema.ListHeadPrefix)
}

// Bookkeeping reports whether item of the relationship entries table is a list's
// head, marker or intent part rather than an entry.
func Bookkeeping(item map[string]types.AttributeValue) bool {
	k, ok := item[schema.AttrPredicateKey].(*types.AttributeValueMemberS)
	return ok && k.Value <= schema.EntriesStart
}

// OwnHeadDelete is the delete of the head of one of the swept entity's lists, on
// the condition that it is as read.
func (c *Core) OwnHeadDelete(h OwnHead) types.TransactWriteItem {
	b := commit.Build(h.Condition(), nil)
	return types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(c.Names.Relationships), Key: h.Key,
		ConditionExpression: b.Condition, ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values}}
}

// OwnHead is the delete of the head of one of the entity's own lists, on the
// condition that its _version is still the one the sweep read. A list write needs
// its head, bumps its version, and checks the subject only when it creates the head
// (the subject is read with the head otherwise). So a write that read the subject
// before its tombstone and commits after the sweep's read makes this delete fail,
// and the sweep reads again; one that commits after it is refused, and finds the
// tombstone.
type OwnHead struct {
	Key map[string]types.AttributeValue
	// Version is the head's _version as read, whatever its type (a head damaged by
	// hand still matches itself, so the sweep ends), nil for none.
	Version types.AttributeValue
}

// OwnHeadOf is the delete of the head item (with its key and _version).
func OwnHeadOf(item map[string]types.AttributeValue) OwnHead {
	return OwnHead{Key: batching.Project(item, schema.RelationshipKeyAttrs()), Version: item[schema.AttrVersion]}
}

// Condition is the condition of the delete: the head's version is the one read.
func (h OwnHead) Condition() expression.ConditionBuilder {
	if h.Version == nil {
		return expression.AttributeNotExists(expression.Name(schema.AttrVersion))
	}
	return expression.Name(schema.AttrVersion).Equal(expression.Value(h.Version))
}
