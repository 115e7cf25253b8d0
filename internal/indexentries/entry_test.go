package indexentries_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/indexentries"
)

func s(v string) *types.AttributeValueMemberS { return &types.AttributeValueMemberS{Value: v} }
func n(v string) *types.AttributeValueMemberN { return &types.AttributeValueMemberN{Value: v} }

func entry(id string, v indexing.Value, attrs map[string]types.AttributeValue) indexentries.Entry {
	return indexentries.Entry{Scope: "acme", Type: "person", ID: id, IndexName: "by_age", Value: v, Attributes: attrs}
}

func TestEntryItem(t *testing.T) {
	e := indexentries.Entry{Scope: "ac:me", Type: "person", ID: "ada%1", IndexName: "by:age", Value: indexing.Int(36),
		Attributes: map[string]types.AttributeValue{"name": s("Ada")}}
	item, err := e.Item()
	require.NoError(t, err)
	require.Equal(t, map[string]types.AttributeValue{
		"_scope":            s("ac:me"),
		"_type":             s("person"),
		"_id":               s("ada%1"),
		"_index_name":       s("by:age"),
		"_index_key":        s("i8000000000000024"),
		"_subject_key":      s("ac%3Ame:person:ada%251"),
		"_unique_key":       s("by%3Aage:i8000000000000024"),
		"_scope_index_name": s("ac%3Ame:by%3Aage"),
		"name":              s("Ada"),
	}, item)
	require.Equal(t, map[string]types.AttributeValue{
		"_subject_key": s("ac%3Ame:person:ada%251"),
		"_unique_key":  s("by%3Aage:i8000000000000024"),
	}, e.PrimaryKey())

	back, err := indexentries.FromItem(item)
	require.NoError(t, err)
	require.Equal(t, e, back)
}

func TestFromItemWithoutAttributes(t *testing.T) {
	e := entry("ada", indexing.String("x:y"), nil)
	item, err := e.Item()
	require.NoError(t, err)
	back, err := indexentries.FromItem(item)
	require.NoError(t, err)
	require.Equal(t, e, back)
	require.Nil(t, back.Attributes)
}

func TestFromItemRejects(t *testing.T) {
	valid, err := entry("ada", indexing.Int(1), nil).Item()
	require.NoError(t, err)
	with := func(name string, v types.AttributeValue) map[string]types.AttributeValue {
		item := map[string]types.AttributeValue{}
		for k, av := range valid {
			item[k] = av
		}
		if v == nil {
			delete(item, name)
		} else {
			item[name] = v
		}
		return item
	}
	tests := []struct {
		name   string
		item   map[string]types.AttributeValue
		reason string
	}{
		{"missing scope", with("_scope", nil), "_scope is missing"},
		{"missing index key", with("_index_key", nil), "_index_key is missing"},
		{"number id", with("_id", n("1")), "_id is *types.AttributeValueMemberN, want a string"},
		{"untagged index key", with("_index_key", s("36")), "_index_key: invalid encoded value"},
		{"number index key", with("_index_key", n("36")), "want a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := indexentries.FromItem(tt.item)
			require.ErrorContains(t, err, tt.reason)
		})
	}
}

func TestEntryValidate(t *testing.T) {
	big := &types.AttributeValueMemberB{Value: make([]byte, 400*1024)}
	tests := []struct {
		name   string
		entry  indexentries.Entry
		reason string
	}{
		{"empty scope", indexentries.Entry{Type: "t", ID: "i", IndexName: "x", Value: indexing.Int(1)}, "Key.Scope"},
		{"empty id", indexentries.Entry{Scope: "s", Type: "t", IndexName: "x", Value: indexing.Int(1)}, "Key.ID"},
		{"empty index name", indexentries.Entry{Scope: "s", Type: "t", ID: "i", Value: indexing.Int(1)}, "invalid index name"},
		{"zero value", entry("ada", indexing.Value{}, nil), "zero Value"},
		{"unique key too long", indexentries.Entry{Scope: "s", Type: "t", ID: "i", IndexName: strings.Repeat("n", 500),
			Value: indexing.String(strings.Repeat(":", 175))}, "is 1027 bytes"},
		{"scope index name too long", indexentries.Entry{Scope: strings.Repeat("s", 1000), Type: "t", ID: "i",
			IndexName: strings.Repeat("n", 1100), Value: indexing.Int(1)}, "DynamoDB allows at most 2048"},
		{"reserved attribute", entry("ada", indexing.Int(1), map[string]types.AttributeValue{"_x": s("1")}), "reserved for the store"},
		{"empty attribute name", entry("ada", indexing.Int(1), map[string]types.AttributeValue{"": s("1")}), "must not be empty"},
		{"nil attribute", entry("ada", indexing.Int(1), map[string]types.AttributeValue{"x": nil}), "must not be nil"},
		{"invalid attribute name", entry("ada", indexing.Int(1), map[string]types.AttributeValue{"\xff": s("1")}), "not valid UTF-8"},
		{"item too large", entry("ada", indexing.Int(1), map[string]types.AttributeValue{"blob": big}), "index entry item is"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.entry.Validate()
			if err == nil {
				_, err = tt.entry.Item()
			}
			requireInvalid(t, err, tt.reason)
		})
	}
}
