package ryno

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/indexes"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
	"github.com/rynodb/rynodb/internal/writes"
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
			require.Equal(t, tt.want, indexes.HoldsInline(tt.item, attrs))
		})
	}
}

func TestTheIndexSetRecordsInlineSlots(t *testing.T) {
	inline, err := newIndexRegistry([]Index{{Type: "issue", Name: "status", Map: emitNothing, Inline: 1}, {Type: "issue", Name: "tags", Map: emitNothing}})
	require.NoError(t, err)
	entries, err := newIndexRegistry([]Index{{Type: "issue", Name: "status", Map: emitNothing}, {Type: "issue", Name: "tags", Map: emitNothing}})
	require.NoError(t, err)
	require.NotEqual(t, inline.Set("issue"), entries.Set("issue"))
	require.Equal(t, []string{"status (inline 1)"}, writes.UnknownIndexes(inline.Set("issue"), entries.Set("issue")),
		"a client keeping the index in the entries table refuses an entity written with it inline")
	require.Equal(t, []string{"status"}, writes.UnknownIndexes(entries.Set("issue"), inline.Set("issue")))
	require.Empty(t, writes.UnknownIndexes(inline.Set("issue"), inline.Set("issue")))
}
