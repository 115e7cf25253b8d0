package indexentries

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/schema"
)

// Claim is an entity's hold on a value of a unique index: no other entity of the
// scope may emit that value into the index while the claim stands. It is an item of
// the index entries table beside the entries (see schema.ClaimKey), written and
// deleted in the same transaction as the entity's write, on the condition that no
// other entity owns it.
type Claim struct {
	Scope, IndexName string
	Value            indexing.Value
	// Type and ID are the owner's: an entity of Scope.
	Type, ID string
}

// ClaimOf returns the claim that entry e calls for in a unique index.
func ClaimOf(e Entry) Claim {
	return Claim{Scope: e.Scope, IndexName: e.IndexName, Value: e.Value, Type: e.Type, ID: e.ID}
}

// PrimaryKey returns the key of the claim's item.
func (c Claim) PrimaryKey() map[string]types.AttributeValue {
	return ClaimPrimaryKey(c.Scope, c.IndexName, c.Value)
}

// ClaimPrimaryKey returns the key of the claim on value of index in scope.
func ClaimPrimaryKey(scope, index string, value indexing.Value) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		schema.AttrSubjectKey: str(schema.ClaimKey(scope, index, value.Encoding())),
		schema.AttrUniqueKey:  str(schema.ClaimSortKey),
	}
}

// Item returns the claim's item: its key, the owner and the value.
func (c Claim) Item() map[string]types.AttributeValue {
	item := c.PrimaryKey()
	item[schema.AttrScope] = str(c.Scope)
	item[schema.AttrType] = str(c.Type)
	item[schema.AttrID] = str(c.ID)
	item[schema.AttrIndexName] = str(c.IndexName)
	item[schema.AttrIndexKey] = str(c.Value.Encoding())
	return item
}

// ClaimFromItem reads a claim item.
func ClaimFromItem(item map[string]types.AttributeValue) (Claim, error) {
	var c Claim
	var key string
	for _, f := range [...]struct {
		name string
		dst  *string
	}{
		{schema.AttrScope, &c.Scope},
		{schema.AttrType, &c.Type},
		{schema.AttrID, &c.ID},
		{schema.AttrIndexName, &c.IndexName},
		{schema.AttrIndexKey, &key},
	} {
		s, err := stringAttr(item, f.name)
		if err != nil {
			return Claim{}, err
		}
		*f.dst = s
	}
	v, err := indexing.ParseValue(key)
	if err != nil {
		return Claim{}, errs.Wrap(err, "claim attribute %s", schema.AttrIndexKey)
	}
	c.Value = v
	return c, nil
}

// IsClaim reports whether an item of the index entries table is a claim.
func IsClaim(item map[string]types.AttributeValue) bool {
	k, ok := item[schema.AttrUniqueKey].(*types.AttributeValueMemberS)
	return ok && k.Value == schema.ClaimSortKey
}

// Entry returns the index entry the claim's owner holds for it.
func (c Claim) Entry() Entry {
	return Entry{Scope: c.Scope, Type: c.Type, ID: c.ID, IndexName: c.IndexName, Value: c.Value}
}
