package indexing_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/schema"
)

func TestClaimsRoundTripAndStayOutOfTheLookupIndex(t *testing.T) {
	e := indexing.Entry{Scope: "acme", Type: "user", ID: "ada", IndexName: "email", Value: indexing.String("ada@example.com")}
	c := indexing.ClaimOf(e)
	item := c.Item()
	require.True(t, indexing.IsClaim(item))
	require.NotContains(t, item, schema.AttrScopeIndexName, "the lookup index must not list claims")
	got, err := indexing.ClaimFromItem(item)
	require.NoError(t, err)
	require.Equal(t, c, got)
	require.Equal(t, e, got.Entry())

	entryItem, err := e.Item()
	require.NoError(t, err)
	require.False(t, indexing.IsClaim(entryItem))
	require.NotEqual(t, entryItem[schema.AttrSubjectKey], item[schema.AttrSubjectKey])
}

func TestClaimsOfOneValueShareAKeyWhoeverOwnsThem(t *testing.T) {
	v := indexing.String("x")
	a := indexing.Claim{Scope: "s", IndexName: "i", Value: v, Type: "user", ID: "a"}
	b := indexing.Claim{Scope: "s", IndexName: "i", Value: v, Type: "user", ID: "b"}
	require.Equal(t, a.PrimaryKey(), b.PrimaryKey())
	other := indexing.Claim{Scope: "t", IndexName: "i", Value: v, Type: "user", ID: "a"}
	require.NotEqual(t, a.PrimaryKey(), other.PrimaryKey(), "scopes claim apart")
}
