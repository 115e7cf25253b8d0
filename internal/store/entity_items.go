package store

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/schema"
)

// RecordEntries returns the entries the record of the entity item (_index_entries)
// says its last writer emitted, without projections: what that writer claimed, even
// when it was cut off before writing them.
func RecordEntries(k Key, item map[string]types.AttributeValue) []indexentries.Entry {
	var record map[string][]string
	if item == nil || attributevalue.Unmarshal(item[schema.AttrIndexEntries], &record) != nil {
		return nil
	}
	var entries []indexentries.Entry
	for _, name := range slices.Sorted(maps.Keys(record)) {
		for _, enc := range record[name] {
			if v, err := indexing.ParseValue(enc); err == nil {
				entries = append(entries, indexentries.Entry{Scope: k.Scope, Type: k.Type, ID: k.ID, IndexName: name, Value: v})
			}
		}
	}
	return entries
}

// RecordSelects reports whether the record of the entity item (_index_entries)
// holds a value of index that match selects: what the entity's last writer emitted,
// with the version and numbers its map function saw then. known is false when the
// item has no record to tell.
func RecordSelects(item map[string]types.AttributeValue, index string, match func(indexing.Value) bool) (selects, known bool) {
	var record map[string][]string
	if item == nil || attributevalue.Unmarshal(item[schema.AttrIndexEntries], &record) != nil || record == nil {
		return false, false
	}
	for _, enc := range record[index] {
		v, err := indexing.ParseValue(enc)
		if err != nil {
			return false, false // a value this program cannot read: the record cannot tell
		}
		if match(v) {
			return true, true
		}
	}
	return false, true
}

// ExpiryTime is an expiry in Unix seconds as a time; zero for none.
func ExpiryTime(seconds int64) time.Time {
	if seconds <= 0 {
		return time.Time{}
	}
	return time.Unix(seconds, 0).UTC()
}

// EntityKeyOf returns the key of the entity item.
func EntityKeyOf(item map[string]types.AttributeValue) (Key, error) {
	return keyFrom(item, schema.AttrScope, schema.AttrType, schema.AttrID)
}

// keyFrom reads a key from the string attributes of item named scope, typ and id.
func keyFrom(item map[string]types.AttributeValue, scope, typ, id string) (k Key, err error) {
	if k.Scope, err = stringOf(scope, item); err != nil {
		return k, err
	}
	if k.Type, err = stringOf(typ, item); err != nil {
		return k, err
	}
	k.ID, err = stringOf(id, item)
	return k, err
}

func stringOf(name string, item map[string]types.AttributeValue) (string, error) {
	s, ok := item[name].(*types.AttributeValueMemberS)
	if !ok {
		return "", fmt.Errorf("%s is %T, want a string", name, item[name])
	}
	return s.Value, nil
}

// timeOf decodes a stored timestamp, in the store's layout or any other RFC 3339
// one (schema.ReadTime); the zero time when it is missing or malformed.
func timeOf(av types.AttributeValue) time.Time {
	s, ok := av.(*types.AttributeValueMemberS)
	if !ok {
		return time.Time{}
	}
	t, _ := schema.ReadTime(s.Value)
	return t
}

// expirySeconds is t as the entities table stores an expiry: Unix seconds, rounded
// up, so that an entity never expires before the time it was given.
func expirySeconds(t time.Time) int64 {
	s := t.Unix()
	if t.Nanosecond() > 0 {
		s++
	}
	return s
}

// ExpiresAttr is the stored form of t, an entity's expiry.
func ExpiresAttr(t time.Time) types.AttributeValue {
	return AttrN(expirySeconds(t))
}

// EntityRef names the attributes of an entry holding one entity key, and the
// role that entity plays in the entry.
type EntityRef struct {
	Role            string
	Scope, Type, ID string
}

// Key is the entity key item holds in r's attributes, zero where they are missing.
func (r EntityRef) Key(item map[string]types.AttributeValue) Key {
	s := func(name string) string {
		v, _ := item[name].(*types.AttributeValueMemberS)
		if v == nil {
			return ""
		}
		return v.Value
	}
	return Key{Scope: s(r.Scope), Type: s(r.Type), ID: s(r.ID)}
}

// EverySlot returns attrs with every inline attribute of every slot, nil where
// attrs holds no value: an update then removes what an index no longer inline left.
func EverySlot(attrs map[string]types.AttributeValue) map[string]types.AttributeValue {
	all := make(map[string]types.AttributeValue, 2*schema.InlineSlots)
	for i := range schema.InlineSlots {
		all[schema.AttrInlineName[i]], all[schema.AttrInlineKey[i]] = nil, nil
	}
	maps.Copy(all, attrs)
	return all
}

// UpdateInline adds the inline attributes of attrs to u: it sets those holding a
// value and removes the others.
func UpdateInline(u expression.UpdateBuilder, attrs map[string]types.AttributeValue) expression.UpdateBuilder {
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		if v := attrs[name]; v != nil {
			u = u.Set(expression.Name(name), expression.Value(v))
		} else {
			u = u.Remove(expression.Name(name))
		}
	}
	return u
}
