package indexentries_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/schema"
)

func TestClaimsRoundTripAndStayOutOfTheLookupIndex(t *testing.T) {
	e := indexentries.Entry{Scope: "acme", Type: "user", ID: "ada", IndexName: "email", Value: indexing.String("ada@example.com")}
	c := indexentries.ClaimOf(e)
	item := c.Item()
	require.True(t, indexentries.IsClaim(item))
	require.NotContains(t, item, schema.AttrScopeIndexName, "the lookup index must not list claims")
	got, err := indexentries.ClaimFromItem(item)
	require.NoError(t, err)
	require.Equal(t, c, got)
	require.Equal(t, e, got.Entry())

	entryItem, err := e.Item()
	require.NoError(t, err)
	require.False(t, indexentries.IsClaim(entryItem))
	require.NotEqual(t, entryItem[schema.AttrSubjectKey], item[schema.AttrSubjectKey])
}

func TestClaimsOfOneValueShareAKeyWhoeverOwnsThem(t *testing.T) {
	v := indexing.String("x")
	a := indexentries.Claim{Scope: "s", IndexName: "i", Value: v, Type: "user", ID: "a"}
	b := indexentries.Claim{Scope: "s", IndexName: "i", Value: v, Type: "user", ID: "b"}
	require.Equal(t, a.PrimaryKey(), b.PrimaryKey())
	other := indexentries.Claim{Scope: "t", IndexName: "i", Value: v, Type: "user", ID: "a"}
	require.NotEqual(t, a.PrimaryKey(), other.PrimaryKey(), "scopes claim apart")
}
