package writes

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

func TestUnknownIndexes(t *testing.T) {
	tests := []struct {
		name         string
		stored, mine string
		want         []string
	}{
		{"none stored", "", "a:b", nil},
		{"none stored or mine", "", "", nil},
		{"equal", "a:b", "a:b", nil},
		{"a subset of mine", "b", "a:b:c", nil},
		{"all unknown to a client without indexes", "a:b", "", []string{"a", "b"}},
		{"some unknown", "a:b:c", "b", []string{"a", "c"}},
		{"names are unescaped", "p%25q:x%3Ay:z", "z", []string{"p%q", "x:y"}},
		{"escaped names are compared escaped", "x%3Ay", entitystate.IndexSet([]string{"x:y"}), nil},
		{"a name mine only contains", "ab", "abc", []string{"ab"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, UnknownIndexes(tt.stored, tt.mine))
		})
	}
}

func TestIndexSetRoundTripsThroughUnknownIndexes(t *testing.T) {
	names := []string{"z", "a:b", "100%", "a:b", "m"}
	require.ElementsMatch(t, []string{"100%", "a:b", "m", "z"}, UnknownIndexes(entitystate.IndexSet(names), ""))
}

func TestRecordMatchesOnlyTheEntriesItRecords(t *testing.T) {
	item := func(record map[string][]string, extra ...string) map[string]types.AttributeValue {
		av, err := attributevalue.Marshal(record)
		require.NoError(t, err)
		it := map[string]types.AttributeValue{schema.AttrIndexEntries: av, schema.AttrVersion: store.AttrN(3)}
		for _, name := range extra {
			it[name] = store.AttrS("x")
		}
		return it
	}
	entryItem := func(email string) map[string]types.AttributeValue {
		it, err := emailEntry("a", email).Item()
		require.NoError(t, err)
		return it
	}
	x, y := indexing.String("x").Encoding(), indexing.String("y").Encoding()
	entries := []map[string]types.AttributeValue{entryItem("x"), entryItem("y")}
	require.True(t, recordMatches(item(map[string][]string{"email": {x, y}}), entries))
	require.True(t, recordMatches(item(map[string][]string{"email": {y, x, x}}), entries), "a repeated value is one entry")
	require.False(t, recordMatches(item(map[string][]string{"email": {x}}), entries), "an entry the record lacks")
	require.False(t, recordMatches(item(map[string][]string{"email": {x, y, "z"}}), entries), "an entry missing")
	require.False(t, recordMatches(item(map[string][]string{"email": {x, y}}, schema.AttrPending), entries), "a large write under way")
	require.False(t, recordMatches(nil, entries))
}

func emailEntry(id, email string) indexentries.Entry {
	return indexentries.Entry{Scope: "acme", Type: "user", ID: id, IndexName: "email", Value: indexing.String(email)}
}
