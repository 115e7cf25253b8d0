package relationships_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/relationships"
)

func TestAListsVersionNamesItsEntries(t *testing.T) {
	entries := list(A, B, C)
	version := relationships.VersionOf(subject, predicate, entries)
	require.True(t, relationships.ValidVersion(version))

	others := map[string]string{
		"an object added":       relationships.VersionOf(subject, predicate, append(entries[:3:3], at(3, A))),
		"an object removed":     relationships.VersionOf(subject, predicate, entries[:2]),
		"the objects reordered": relationships.VersionOf(subject, predicate, []Entry{at(0, B), at(1, A), at(2, C)}),
		"an object moved":       relationships.VersionOf(subject, predicate, []Entry{at(0, A), at(1, B), at(3, C)}),
		"an object of a scope":  relationships.VersionOf(subject, predicate, []Entry{at(0, A), at(1, B2), at(2, C)}),
		"the list of a subject": relationships.VersionOf(Key{Scope: "acme", Type: "person", ID: "bob"}, predicate, entries),
		"the list of predicate": relationships.VersionOf(subject, "follows", entries),
		"the empty list":        relationships.VersionOf(subject, predicate, nil),
	}
	seen := map[string]string{version: "the list"}
	for name, v := range others {
		require.NotContains(t, seen, v, "%s has the version of %s", name, seen[v])
		seen[v] = name
	}

	require.Equal(t, version, relationships.VersionOf(subject, predicate, []Entry{at(2, C), at(0, A), at(1, B)}),
		"the entries in any order")
	head := relationships.Head{Subject: subject, Predicate: predicate, Version: 9, Next: 7, Count: 3, Digest: relationships.DigestOf(entries)}
	require.Equal(t, version, head.ListVersion(), "the head's count and digest give the version of its entries")
	require.Equal(t, relationships.VersionOf(subject, predicate, nil), relationships.Head{Subject: subject, Predicate: predicate}.ListVersion(),
		"a list never written has the version of the empty list")
}

func TestValidVersion(t *testing.T) {
	v := relationships.VersionOf(subject, predicate, nil)
	tests := []struct {
		name string
		v    string
		want bool
	}{
		{"a version", v, true},
		{"empty", "", false},
		{"short", v[1:], false},
		{"long", v + "0", false},
		{"upper case", "0123456789ABCDEF0123456789ABCDEF", false},
		{"quoted", `"` + v[2:] + `"`, false},
		{"not hexadecimal", "0123456789abcdefg123456789abcdef", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { require.Equal(t, tt.want, relationships.ValidVersion(tt.v)) })
	}
}
