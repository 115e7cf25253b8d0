package indexentries

import (
	"fmt"
	"maps"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/schema"
)

// Entry is one item of the index entries table: a value that an entity emitted into an
// index, with the entity's attributes the index projects.
type Entry struct {
	// Scope, Type and ID are the key of the entity.
	Scope, Type, ID string
	// IndexName names the index, and its map function.
	IndexName string
	// Value is the emitted value, stored as _index_key.
	Value indexing.Value
	// Attributes are the projected attributes, stored at the top level of the item.
	// Names must not start with '_'. Nil and empty are the same.
	Attributes map[string]types.AttributeValue
	// Shards is how many partition keys of the lookup index the index spreads
	// over (0 or 1: one); the entry is in its entity's shard.
	Shards int
}

// entryAttrs is the number of attributes Item writes besides the projected ones.
const entryAttrs = 8

// entryKey is the primary key of an entry: distinct entries have distinct keys.
type entryKey struct{ subject, unique string }

func (e Entry) key() entryKey {
	return entryKey{schema.SubjectKey(e.Scope, e.Type, e.ID), schema.UniqueKey(e.IndexName, e.Value.Encoding())}
}

// PrimaryKey returns the key of e's item in the index entries table: _subject_key
// (scope:type:id) and _unique_key (index_name:value), for a DeleteRequest.
func (e Entry) PrimaryKey() map[string]types.AttributeValue {
	k := e.key()
	return map[string]types.AttributeValue{
		schema.AttrSubjectKey: str(k.subject),
		schema.AttrUniqueKey:  str(k.unique),
	}
}

// Validate reports whether e can be stored: a valid entity key, index name and value,
// keys within DynamoDB's limits, and projected attributes with names outside the '_'
// namespace and non-nil values. Errors are *tables.ValidationError.
func (e Entry) Validate() error {
	if err := schema.ValidateEntityKey(e.Scope, e.Type, e.ID); err != nil {
		return err
	}
	if _, err := schema.ValidScopeIndexName(e.Scope, e.IndexName); err != nil {
		return err
	}
	if err := validateIn(e.IndexName, e.Value); err != nil {
		return err
	}
	for name, v := range e.Attributes {
		if err := validateAttribute(name, v); err != nil {
			return err
		}
	}
	return nil
}

// validateIn reports whether v can be stored in index indexName: valid, and short
// enough for the _unique_key index_name:value.
func validateIn(indexName string, v indexing.Value) error {
	if err := v.Validate(); err != nil {
		return err
	}
	return schema.ValidateKeyLength("index name and value", schema.UniqueKey(indexName, v.Encoding()), schema.MaxSortKeyBytes)
}

func validateAttribute(name string, v types.AttributeValue) error {
	if err := schema.ValidateAttributeName(name); err != nil {
		return err
	}
	if v == nil {
		return invalid("Attributes."+name, "", "value must not be nil")
	}
	return nil
}

// Item returns the item of e, which must be valid (Validate): the index entry record
// of the schema (_scope, _type, _id, _index_name, _index_key, _subject_key,
// _unique_key, _scope_index_name) and the projected attributes. It fails only when
// the item passes DynamoDB's size limit. The store validates keys, index names and
// values once, where they enter; it does not check them again here.
func (e Entry) Item() (map[string]types.AttributeValue, error) {
	k := e.key()
	item := make(map[string]types.AttributeValue, len(e.Attributes)+entryAttrs)
	maps.Copy(item, e.Attributes)
	item[schema.AttrScope] = str(e.Scope)
	item[schema.AttrType] = str(e.Type)
	item[schema.AttrID] = str(e.ID)
	item[schema.AttrIndexName] = str(e.IndexName)
	item[schema.AttrIndexKey] = str(e.Value.Encoding())
	item[schema.AttrSubjectKey] = str(k.subject)
	item[schema.AttrUniqueKey] = str(k.unique)
	item[schema.AttrScopeIndexName] = str(e.Partition())
	if n := schema.ItemSize(item); n > schema.MaxItemBytes {
		return nil, invalid("Entry", k.subject, fmt.Sprintf(
			"index entry item is %d bytes; DynamoDB allows at most %d", n, schema.MaxItemBytes))
	}
	return item, nil
}

// Partition returns the _scope_index_name of e: its index's in its scope, in its
// entity's shard when the index is sharded.
func (e Entry) Partition() string {
	return schema.ShardedScopeIndexName(e.Scope, e.IndexName, schema.Shard(e.key().subject, e.Shards), e.Shards)
}

// FromItem reads an entry from an item of the index entries table, or of the index
// lookup GSI when it projects all attributes. The compound keys are not read back:
// they follow from the raw attributes. Attributes not starting with '_' become
// Attributes (nil when there are none).
func FromItem(item map[string]types.AttributeValue) (Entry, error) {
	var e Entry
	var key string
	for _, f := range [...]struct {
		name string
		dst  *string
	}{
		{schema.AttrScope, &e.Scope},
		{schema.AttrType, &e.Type},
		{schema.AttrID, &e.ID},
		{schema.AttrIndexName, &e.IndexName},
		{schema.AttrIndexKey, &key},
	} {
		s, err := stringAttr(item, f.name)
		if err != nil {
			return Entry{}, err
		}
		*f.dst = s
	}
	v, err := indexing.ParseValue(key)
	if err != nil {
		return Entry{}, errs.Wrap(err, "index entry attribute %s", schema.AttrIndexKey)
	}
	e.Value = v
	for name, av := range item {
		if !strings.HasPrefix(name, schema.ReservedPrefix) {
			if e.Attributes == nil {
				e.Attributes = make(map[string]types.AttributeValue)
			}
			e.Attributes[name] = av
		}
	}
	return e, nil
}

func stringAttr(item map[string]types.AttributeValue, name string) (string, error) {
	av, ok := item[name]
	if !ok {
		return "", errs.New("index entry attribute %s is missing", name)
	}
	s, ok := av.(*types.AttributeValueMemberS)
	if !ok {
		return "", errs.New("index entry attribute %s is %T, want a string", name, av)
	}
	return s.Value, nil
}
