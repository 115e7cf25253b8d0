package relationships_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

func TestIntentItemsReadBackAsTheIntent(t *testing.T) {
	odd := Key{Scope: "a:b", Type: "c%3A", ID: "d:e%"} // components the codes must escape
	withAttrs := at(7, C)
	withAttrs.Attributes = map[string]types.AttributeValue{"since": n("2020")}
	tests := []struct {
		name string
		in   relationships.Intent
	}{
		{"puts only", relationships.Intent{Token: "t1", Puts: []Entry{at(0, A), at(1, B)}}},
		{"deletes only", relationships.Intent{Token: "t1", Deletes: []Entry{at(3, A)}}},
		{"both, escaped components, edge attributes", relationships.Intent{Token: "t:2",
			Puts: []Entry{at(0, odd), withAttrs}, Deletes: []Entry{at(2, odd), at(9, B2)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items := relationships.IntentItems(subject, predicate, tt.in)
			require.Len(t, items, 1)
			item := items[0]
			require.Equal(t, tt.in.Token, relationships.IntentToken(item))
			require.Equal(t, relationships.IntentPrimaryKey(subject, predicate, tt.in.Token, 0)[schema.AttrPredicateKey],
				item[schema.AttrPredicateKey])
			require.NotContains(t, item, schema.AttrObjectKey, "the reverse index never sees an intent")
			require.LessOrEqual(t, schema.ItemSize(item), schema.MaxItemBytes)

			got, err := relationships.IntentFromItems(subject, predicate, tt.in.Token, items)
			require.NoError(t, err)
			require.ElementsMatch(t, tt.in.Puts, got.Puts)
			require.ElementsMatch(t, tt.in.Deletes, got.Deletes)
		})
	}
}

func TestALargeIntentIsSplitIntoPartsThatFitAnItem(t *testing.T) {
	var in relationships.Intent
	in.Token = "big"
	for i := range 30000 {
		in.Puts = append(in.Puts, at(i, obj(fmt.Sprintf("object-with-a-long-id-%06d", i))))
		in.Deletes = append(in.Deletes, at(100000+i, obj(fmt.Sprintf("gone-%06d", i))))
	}
	items := relationships.IntentItems(subject, predicate, in)
	require.Greater(t, len(items), 1, "more than one item can hold")
	seen := map[string]bool{}
	for _, item := range items {
		require.LessOrEqual(t, schema.ItemSize(item), schema.MaxItemBytes)
		k := item[schema.AttrPredicateKey].(*types.AttributeValueMemberS).Value
		require.False(t, seen[k], "each part has its own key")
		seen[k] = true
	}
	// Parts of another writer are ignored.
	other := relationships.IntentItems(subject, predicate, relationships.Intent{Token: "other", Puts: []Entry{at(5, X)}})
	got, err := relationships.IntentFromItems(subject, predicate, "big", append(items, other...))
	require.NoError(t, err)
	require.Equal(t, in.Puts, got.Puts)
	require.Equal(t, in.Deletes, got.Deletes)
}

func TestAMalformedIntentIsAnError(t *testing.T) {
	for _, code := range []string{"1:acme:book", "x:acme:book:a", "1:acme:book:a:b", "1:ac%zz:book:a"} {
		item := relationships.IntentItems(subject, predicate, relationships.Intent{Token: "t", Puts: []Entry{at(1, A)}})[0]
		item[schema.AttrPuts] = &types.AttributeValueMemberSS{Value: []string{code}}
		_, err := relationships.IntentFromItems(subject, predicate, "t", []map[string]types.AttributeValue{item})
		require.Error(t, err, code)
	}
}
