package relationships

import (
	"maps"
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/schema"
)

// Shards gives, by object type, over how many partition keys of the sharded
// reverse index the entries pointing at entities of the type spread: a type it
// does not name (or names with 0 or 1) has its entries in the reverse index, under
// _object_key. The nil Shards places every entry there.
type Shards map[string]int

// Item returns the item of e placed in the reverse index as s says: for an object
// whose type is sharded, _object_shard in the shard e's subject hashes to, instead
// of _object_key.
func (s Shards) Item(e Entry) map[string]types.AttributeValue {
	item := e.Item()
	if n := s[e.Object.Type]; n > 1 {
		delete(item, schema.AttrObjectKey)
		item[schema.AttrObjectShard] = str(e.objectShard(n))
	}
	return item
}

// objectShard returns the _object_shard of e among n shards.
func (e Entry) objectShard(n int) string {
	return schema.ShardedObjectKey(e.Object.String(), schema.Shard(e.Subject.String(), n))
}

// placement returns the reverse-index attributes of e's item as s places it, and
// the names of those it must not have.
func (s Shards) placement(e Entry) (map[string]string, []string) {
	at := map[string]string{schema.AttrReverseKey: e.ReverseKey()}
	if n := s[e.Object.Type]; n > 1 {
		at[schema.AttrObjectShard] = e.objectShard(n)
		return at, []string{schema.AttrObjectKey}
	}
	at[schema.AttrObjectKey] = e.Object.String()
	return at, []string{schema.AttrObjectShard}
}

// Misplaced reads item, of the relationship entries table, and reports whether it
// is an entry that the reverse index does not hold where s places it: its
// _reverse_key is missing or wrong, or it stands under the partition key of
// another layout. Items that do not read as entries, and items whose keys are not
// those of the entry they hold, which the store did not write, are not.
func (s Shards) Misplaced(item map[string]types.AttributeValue) (Entry, bool) {
	e, ok := entryOf(item)
	if !ok {
		return Entry{}, false
	}
	want, other := s.placement(e)
	for name, v := range want {
		if stringOf(item[name]) != v {
			return e, true
		}
	}
	for _, name := range other {
		if _, ok := item[name]; ok {
			return e, true
		}
	}
	return e, false
}

// Place returns the UpdateItem that puts e's item, in table, where s places it in
// the reverse index, on the condition that the item still exists: an entry
// deleted meanwhile is not brought back. Entries are never changed in place
// otherwise, so what it writes is right whenever the item is there.
func (s Shards) Place(e Entry, table string) *dynamodb.UpdateItemInput {
	want, other := s.placement(e)
	in := &dynamodb.UpdateItemInput{
		TableName:                 aws.String(table),
		Key:                       e.PrimaryKey(),
		ConditionExpression:       aws.String("attribute_exists(#pk)"),
		ExpressionAttributeNames:  map[string]string{"#pk": schema.AttrSubjectKey},
		ExpressionAttributeValues: map[string]types.AttributeValue{},
	}
	update := "SET "
	for i, name := range slices.Sorted(maps.Keys(want)) {
		if i > 0 {
			update += ", "
		}
		n, v := "#s"+strconv.Itoa(i), ":s"+strconv.Itoa(i)
		update += n + " = " + v
		in.ExpressionAttributeNames[n], in.ExpressionAttributeValues[v] = name, str(want[name])
	}
	update += " REMOVE #r"
	in.ExpressionAttributeNames["#r"] = other[0]
	in.UpdateExpression = aws.String(update)
	return in
}
