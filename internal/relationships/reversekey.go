package relationships

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/schema"
)

// Unindexed reads item, of the relationship entries table, and reports whether it
// is an entry whose _reverse_key is missing or wrong: the reverse index does not
// hold it where it belongs. Items that do not read as entries (heads, markers,
// intents, sequences), and items whose keys are not those of the entry they hold,
// which the store did not write, are not.
func Unindexed(item map[string]types.AttributeValue) (Entry, bool) {
	e, ok := entryOf(item)
	return e, ok && stringOf(item[schema.AttrReverseKey]) != e.ReverseKey()
}

// entryOf reads item as an entry, and reports whether it is one the store wrote:
// it points at an object (under _object_key, or _object_shard when sharded) and
// its keys are those of the entry it holds.
func entryOf(item map[string]types.AttributeValue) (Entry, bool) {
	_, unsharded := item[schema.AttrObjectKey]
	_, sharded := item[schema.AttrObjectShard]
	if !unsharded && !sharded {
		return Entry{}, false
	}
	e, err := FromItem(item)
	if err != nil {
		return Entry{}, false
	}
	for name, v := range e.PrimaryKey() {
		if stringOf(item[name]) != stringOf(v) {
			return Entry{}, false
		}
	}
	return e, true
}

// SetReverseKey returns the UpdateItem that writes the entry's _reverse_key into its
// item in table, on the condition that the item still exists: an entry deleted
// meanwhile is not brought back. Entries are never changed in place otherwise (a
// new position is a new item), so the key is right whenever the item is there.
func (e Entry) SetReverseKey(table string) *dynamodb.UpdateItemInput {
	return &dynamodb.UpdateItemInput{
		TableName:                 aws.String(table),
		Key:                       e.PrimaryKey(),
		UpdateExpression:          aws.String("SET #rk = :rk"),
		ConditionExpression:       aws.String("attribute_exists(#pk)"),
		ExpressionAttributeNames:  map[string]string{"#rk": schema.AttrReverseKey, "#pk": schema.AttrSubjectKey},
		ExpressionAttributeValues: map[string]types.AttributeValue{":rk": str(e.ReverseKey())},
	}
}

// stringOf returns the string of an S value, "" for anything else.
func stringOf(v types.AttributeValue) string {
	if s, ok := v.(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}
