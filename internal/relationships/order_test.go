package relationships_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/relationships"
)

func TestSort(t *testing.T) {
	entry := func(p string, i int, o Key) Entry {
		return Entry{Subject: subject, Predicate: p, Index: i, Object: o}
	}
	other := Key{Scope: "acme", Type: "person", ID: "bob"}
	// The key order: "a-b:" < "a:" because '-' < ':'; indexes are zero-padded, so 2 < 10;
	// entries at one index order by object type, then id.
	want := []Entry{
		entry("a-b", 0, A),
		entry("a", 2, B),
		entry("a", 10, A),
		entry("a", 10, Key{Scope: "z", Type: "book", ID: "b"}),
		entry("a", 10, Key{Scope: "a", Type: "film", ID: "a"}),
		entry("a", 100, A),
		entry("b", 1, A),
		{Subject: other, Predicate: "a", Index: 0, Object: A},
	}
	got := append([]Entry(nil), want...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
	relationships.Sort(got)
	require.Equal(t, want, got)

	for i := 1; i < len(got); i++ {
		require.Less(t, primaryKey(got[i-1]), primaryKey(got[i]))
	}
}

func TestObjectsAndByPredicate(t *testing.T) {
	entries := []Entry{
		{Subject: subject, Predicate: "p", Index: 0, Object: A},
		{Subject: subject, Predicate: "p", Index: 3, Object: B},
		{Subject: subject, Predicate: "q", Index: 0, Object: B},
		{Subject: subject, Predicate: "p", Index: 5, Object: A},
	}
	require.Equal(t, []Key{A, B, B, A}, relationships.Objects(entries))
	require.Empty(t, relationships.Objects(nil))
	require.Equal(t, map[string][]Key{"p": {A, B, A}, "q": {B}}, relationships.ByPredicate(entries))
}
