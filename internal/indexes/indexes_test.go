package indexes

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/stretchr/testify/require"
)

// none is the entity of the tests' map functions, which emit nothing.
type none struct{}

func emitNothing(none, func(indexing.Value)) {}

func TestInlineSplit(t *testing.T) {
	reg := New([]Def[none]{
		{Type: "issue", Name: "status", Map: emitNothing, Inline: 2},
		{Type: "issue", Name: "tags", Map: emitNothing},
	})
	entry := func(index string, v indexing.Value) indexentries.Entry {
		return indexentries.Entry{Scope: "acme", Type: "issue", ID: "1", IndexName: index, Value: v}
	}
	open, bug := entry("status", indexing.String("open")), entry("tags", indexing.String("bug"))

	attrs, rest, err := reg.InlineSplit("issue", []indexentries.Entry{bug, open})
	require.NoError(t, err)
	require.Equal(t, []indexentries.Entry{bug}, rest, "the entries table keeps the others")
	require.Equal(t, map[string]types.AttributeValue{
		"_inline2_name": attrS(schema.ScopeIndexName("acme", "status")),
		"_inline2_key":  attrS(indexing.String("open").Encoding()),
	}, attrs)

	attrs, rest, err = reg.InlineSplit("issue", []indexentries.Entry{bug})
	require.NoError(t, err)
	require.Equal(t, []indexentries.Entry{bug}, rest)
	require.Equal(t, map[string]types.AttributeValue{"_inline2_name": nil, "_inline2_key": nil}, attrs,
		"an inline index that emits nothing leaves its slot empty")
	item := map[string]types.AttributeValue{"a": attrS("b")}
	PutInline(item, attrs)
	require.Equal(t, map[string]types.AttributeValue{"a": attrS("b")}, item, "an empty slot puts nothing")

	_, _, err = reg.InlineSplit("issue", []indexentries.Entry{open, entry("status", indexing.String("closed"))})
	var invalid *schema.ValidationError
	require.ErrorAs(t, err, &invalid)
	require.Equal(t, "Index.Map", invalid.Field)

	attrs, rest, err = reg.InlineSplit("project", []indexentries.Entry{bug})
	require.NoError(t, err)
	require.Nil(t, attrs, "a type without inline indexes has no slot")
	require.Equal(t, []indexentries.Entry{bug}, rest)
}

func emailEntry(id, email string) indexentries.Entry {
	return indexentries.Entry{Scope: "acme", Type: "user", ID: id, IndexName: "email", Value: indexing.String(email)}
}

func TestClaimChangesClaimNewValuesAndReleaseDroppedOnes(t *testing.T) {
	reg := New([]Def[none]{
		{Type: "user", Name: "email", Unique: true, Map: emitNothing},
		{Type: "user", Name: "age", Map: emitNothing},
	})
	age := indexentries.Entry{Scope: "acme", Type: "user", ID: "a", IndexName: "age", Value: indexing.Int(3)}
	tests := []struct {
		name              string
		stored, emitted   []indexentries.Entry
		claims, releasesW []indexentries.Entry
	}{
		{"a new entity claims its values", nil, []indexentries.Entry{emailEntry("a", "x"), age}, []indexentries.Entry{emailEntry("a", "x")}, nil},
		{"an unchanged value is neither claimed nor released", []indexentries.Entry{emailEntry("a", "x")}, []indexentries.Entry{emailEntry("a", "x")}, nil, nil},
		{"a changed value: the new claimed, the old released", []indexentries.Entry{emailEntry("a", "x")}, []indexentries.Entry{emailEntry("a", "y")},
			[]indexentries.Entry{emailEntry("a", "y")}, []indexentries.Entry{emailEntry("a", "x")}},
		{"a value emitted twice is claimed once", nil, []indexentries.Entry{emailEntry("a", "x"), emailEntry("a", "x")}, []indexentries.Entry{emailEntry("a", "x")}, nil},
		{"values of other indexes are not claimed", []indexentries.Entry{age}, nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			claims, releases := reg.ClaimChanges(tt.stored, tt.emitted)
			require.Equal(t, claimsOf(tt.claims), claims)
			require.Equal(t, claimsOf(tt.releasesW), releases)
		})
	}
}

func claimsOf(entries []indexentries.Entry) []indexentries.Claim {
	var claims []indexentries.Claim
	for _, e := range entries {
		claims = append(claims, indexentries.ClaimOf(e))
	}
	return claims
}

func TestOpsMoveEntriesWhoseShardsChanged(t *testing.T) {
	entry := func(shards int) indexentries.Entry {
		return indexentries.Entry{Scope: "acme", Type: "issue", ID: "1", IndexName: "by-day", Value: indexing.String("2026-12-06"), Shards: shards}
	}
	tests := []struct {
		name           string
		stored, wanted int
		puts           int
	}{
		{"unsharded as before", 0, 0, 0},
		{"sharded as before", 8, 8, 0},
		{"sharded since", 0, 8, 1},
		{"unsharded since", 8, 1, 1},
		{"1 is no shard", 0, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			item, err := entry(tt.stored).Item()
			require.NoError(t, err)
			ops, err := Ops("entries", []map[string]types.AttributeValue{item}, []indexentries.Entry{entry(tt.wanted)})
			require.NoError(t, err)
			require.Len(t, ops, tt.puts)
			for _, op := range ops {
				require.NotNil(t, op.Item, "a put")
				require.Equal(t, &types.AttributeValueMemberS{Value: entry(tt.wanted).Partition()}, op.Item[schema.AttrScopeIndexName])
			}
		})
	}
}
