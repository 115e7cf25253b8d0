package store

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/paging"
	"github.com/rynodb/rynodb/internal/schema"
)

// valid reports whether the value of attribute name is valid for p.
func valid(p paging.Position, name, value string) bool {
	for _, a := range p.Attrs {
		if a.Name == name {
			return a.Fixed == value || a.Fixed == "" && (a.Valid == nil || a.Valid(value))
		}
	}
	return false
}

func TestOutgoingAcceptsTheEntriesOfItsListOnly(t *testing.T) {
	ada := entity.Key{Scope: "acme", Type: "person", ID: "ada"}
	sets := map[string]bool{"tags": true}
	tests := []struct {
		name      string
		predicate string
		key       string
		want      bool
	}{
		{"an entry of the list", "follows", schema.PredicateKey("follows", 7, "person", "grace"), true},
		{"an entry of another list", "follows", schema.PredicateKey("wrote", 7, "book", "b1"), false},
		{"any list when no predicate is named", "", schema.PredicateKey("wrote", 7, "book", "b1"), true},
		{"an entry of a set", "tags", schema.PredicateObjectKey("tags", "acme", "tag", "go"), true},
		{"a position that is not the key's width", "follows", "follows:7:person:grace", false},
		{"a set's key under a list's predicate", "follows", schema.PredicateObjectKey("follows", "acme", "person", "grace"), false},
		{"not a key", "follows", "%%%", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := outgoingPosition(ada, tt.predicate, sets)
			require.True(t, valid(p, schema.AttrSubjectKey, ada.String()))
			require.Equal(t, tt.want, valid(p, schema.AttrPredicateKey, tt.key))
		})
	}
}

func TestIncomingRelatesTheReverseKeyToTheOthers(t *testing.T) {
	grace := entity.Key{Scope: "acme", Type: "person", ID: "grace"}
	subject := schema.SubjectKey("acme", "person", "ada")
	predicate := schema.PredicateKey("follows", 3, "person", "grace")
	p := incomingPosition(grace, "follows", nil, schema.AttrObjectKey, grace.String())
	key := map[string]string{
		schema.AttrSubjectKey:   subject,
		schema.AttrPredicateKey: predicate,
		schema.AttrObjectKey:    grace.String(),
		schema.AttrReverseKey:   schema.ReverseKey("follows", "acme", "person", "ada", 3),
	}
	require.Equal(t, key[schema.AttrReverseKey], ReverseKey(subject, predicate, nil))
	require.True(t, p.Related(key))
	key[schema.AttrReverseKey] = schema.ReverseKey("follows", "acme", "person", "ada", 4)
	require.False(t, p.Related(key), "a reverse key of another position")
	require.False(t, valid(p, schema.AttrPredicateKey, schema.PredicateKey("follows", 3, "person", "alan")),
		"an entry pointing at another object")
}
