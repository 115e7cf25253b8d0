package ryno

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

func emitNothing(*Entity, func(indexing.Value)) {}

func TestInlineIndexesAreChecked(t *testing.T) {
	ix := func(name string, inline int, unique bool) Index {
		return Index{Type: "issue", Name: name, Map: emitNothing, Inline: inline, Unique: unique}
	}
	tests := []struct {
		name    string
		indexes []Index
		field   string // "" when valid
	}{
		{"both slots", []Index{ix("status", 1, false), ix("opened", 2, false), ix("tags", 0, false)}, ""},
		{"one slot per type", []Index{ix("status", 1, false), {Type: "project", Name: "owner", Map: emitNothing, Inline: 1}}, ""},
		{"a slot twice in a type", []Index{ix("status", 1, false), ix("opened", 1, false)}, "Options.Indexes[1].Inline"},
		{"a slot beyond the table's", []Index{ix("status", schema.InlineSlots+1, false)}, "Options.Indexes[0].Inline"},
		{"a negative slot", []Index{ix("status", -1, false)}, "Options.Indexes[0].Inline"},
		{"unique and inline", []Index{ix("status", 1, true)}, "Options.Indexes[0].Inline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := New(&nilAPI{}, Options{TablePrefix: "app", Indexes: tt.indexes})
			if tt.field == "" {
				require.NoError(t, err)
				require.NotNil(t, db)
				return
			}
			requireInvalidField(t, err, tt.field)
		})
	}
}

func TestInlineSplit(t *testing.T) {
	reg, err := newIndexRegistry([]Index{
		{Type: "issue", Name: "status", Map: emitNothing, Inline: 2},
		{Type: "issue", Name: "tags", Map: emitNothing},
	})
	require.NoError(t, err)
	entry := func(index string, v indexing.Value) indexentries.Entry {
		return indexentries.Entry{Scope: "acme", Type: "issue", ID: "1", IndexName: index, Value: v}
	}
	open, bug := entry("status", indexing.String("open")), entry("tags", indexing.String("bug"))

	attrs, rest, err := reg.inlineSplit("issue", []indexentries.Entry{bug, open})
	require.NoError(t, err)
	require.Equal(t, []indexentries.Entry{bug}, rest, "the entries table keeps the others")
	require.Equal(t, map[string]types.AttributeValue{
		"_inline2_name": str(schema.ScopeIndexName("acme", "status")),
		"_inline2_key":  str(indexing.String("open").Encoding()),
	}, attrs)

	attrs, rest, err = reg.inlineSplit("issue", []indexentries.Entry{bug})
	require.NoError(t, err)
	require.Equal(t, []indexentries.Entry{bug}, rest)
	require.Equal(t, map[string]types.AttributeValue{"_inline2_name": nil, "_inline2_key": nil}, attrs,
		"an inline index that emits nothing leaves its slot empty")
	item := map[string]types.AttributeValue{"a": str("b")}
	putInline(item, attrs)
	require.Equal(t, map[string]types.AttributeValue{"a": str("b")}, item, "an empty slot puts nothing")

	_, _, err = reg.inlineSplit("issue", []indexentries.Entry{open, entry("status", indexing.String("closed"))})
	requireInvalidField(t, err, "Index.Map")

	attrs, rest, err = reg.inlineSplit("project", []indexentries.Entry{bug})
	require.NoError(t, err)
	require.Nil(t, attrs, "a type without inline indexes has no slot")
	require.Equal(t, []indexentries.Entry{bug}, rest)
}

func TestEverySlotAndHoldsInline(t *testing.T) {
	attrs := store.EverySlot(map[string]types.AttributeValue{"_inline1_name": str("n"), "_inline1_key": str("k")})
	require.Equal(t, map[string]types.AttributeValue{
		"_inline1_name": str("n"), "_inline1_key": str("k"), "_inline2_name": nil, "_inline2_key": nil,
	}, attrs)
	tests := []struct {
		name string
		item map[string]types.AttributeValue
		want bool
	}{
		{"exactly", map[string]types.AttributeValue{"_inline1_name": str("n"), "_inline1_key": str("k"), "x": str("y")}, true},
		{"another value", map[string]types.AttributeValue{"_inline1_name": str("n"), "_inline1_key": str("other")}, false},
		{"a slot to empty", map[string]types.AttributeValue{"_inline1_name": str("n"), "_inline1_key": str("k"), "_inline2_key": str("k")}, false},
		{"a value missing", map[string]types.AttributeValue{"_inline1_name": str("n")}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, holdsInline(tt.item, attrs))
		})
	}
}

func TestTheIndexSetRecordsInlineSlots(t *testing.T) {
	inline, err := newIndexRegistry([]Index{{Type: "issue", Name: "status", Map: emitNothing, Inline: 1}, {Type: "issue", Name: "tags", Map: emitNothing}})
	require.NoError(t, err)
	entries, err := newIndexRegistry([]Index{{Type: "issue", Name: "status", Map: emitNothing}, {Type: "issue", Name: "tags", Map: emitNothing}})
	require.NoError(t, err)
	require.NotEqual(t, inline.set("issue"), entries.set("issue"))
	require.Equal(t, []string{"status (inline 1)"}, unknownIndexes(inline.set("issue"), entries.set("issue")),
		"a client keeping the index in the entries table refuses an entity written with it inline")
	require.Equal(t, []string{"status"}, unknownIndexes(entries.set("issue"), inline.set("issue")))
	require.Empty(t, unknownIndexes(inline.set("issue"), inline.set("issue")))
}
