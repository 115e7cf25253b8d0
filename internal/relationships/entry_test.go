package relationships_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

// tricky has ':' and '%' in every component.
var tricky = Entry{
	Subject:   Key{Scope: "a:b", Type: "c%d", ID: "e:f%"},
	Predicate: "p:q%",
	Index:     7,
	Object:    Key{Scope: "o:s", Type: "o%t", ID: "o:i%3A"},
}

func TestItem(t *testing.T) {
	e := tricky
	e.Attributes = map[string]types.AttributeValue{"since": n("2017")}
	want := map[string]types.AttributeValue{
		"_subject_scope":        s("a:b"),
		"_subject_type":         s("c%d"),
		"_subject_id":           s("e:f%"),
		"_predicate":            s("p:q%"),
		"_index":                n("7"),
		"_object_scope":         s("o:s"),
		"_object_type":          s("o%t"),
		"_object_id":            s("o:i%3A"),
		"_subject_key":          s("a%3Ab:c%25d:e%3Af%25"),
		"_object_key":           s("o%3As:o%25t:o%3Ai%253A"),
		"_predicate_key":        s("p%3Aq%25:0000000007:o%25t:o%3Ai%253A"),
		"_predicate_object_key": s("p%3Aq%25:o%3As:o%25t:o%3Ai%253A"),
		"_reverse_key":          s("p%3Aq%25:a%3Ab:c%25d:e%3Af%25:0000000007"),
		"since":                 n("2017"),
	}
	require.Equal(t, want, e.Item())

	require.Equal(t, map[string]types.AttributeValue{
		"_subject_key":   want["_subject_key"],
		"_predicate_key": want["_predicate_key"],
	}, e.PrimaryKey())
}

func TestItemReservedNamesWin(t *testing.T) {
	e := at(3, A)
	e.Attributes = map[string]types.AttributeValue{schema.AttrIndex: s("x"), "ok": s("y")}
	item := e.Item()
	require.Equal(t, n("3"), item[schema.AttrIndex])
	require.Equal(t, s("y"), item["ok"])
}

func TestFromItemRoundTrip(t *testing.T) {
	withAttrs := at(0, A)
	withAttrs.Attributes = map[string]types.AttributeValue{
		"since": n("2017"),
		"tags":  &types.AttributeValueMemberSS{Value: []string{"x", "y"}},
		"meta":  &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"_a": s("b")}},
	}
	tests := []struct {
		name  string
		entry Entry
	}{
		{"plain", at(0, A)},
		{"tricky components", tricky},
		{"edge attributes", withAttrs},
		{"highest index", at(maxIndex, B)},
		{"unicode", Entry{Subject: Key{Scope: "日本", Type: "語", ID: "🙂"}, Predicate: "好き", Index: 12, Object: Key{Scope: "é", Type: "ü", ID: "ß"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := relationships.FromItem(tt.entry.Item())
			require.NoError(t, err)
			require.Equal(t, tt.entry, got)
		})
	}
}

func TestFromItemIgnoresOtherReservedAttributes(t *testing.T) {
	item := at(1, A).Item()
	item["_future"] = s("x")
	got, err := relationships.FromItem(item)
	require.NoError(t, err)
	require.Nil(t, got.Attributes)
}

func TestFromItemRejectsMalformedItems(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(map[string]types.AttributeValue)
		reason string
	}{
		{"missing subject id", func(m map[string]types.AttributeValue) { delete(m, "_subject_id") },
			"_subject_id is missing"},
		{"missing object scope", func(m map[string]types.AttributeValue) { delete(m, "_object_scope") },
			"_object_scope is missing"},
		{"predicate not a string", func(m map[string]types.AttributeValue) { m["_predicate"] = n("1") },
			"_predicate is *types.AttributeValueMemberN, want a string"},
		{"index not a number", func(m map[string]types.AttributeValue) { m["_index"] = s("1") },
			"_index is *types.AttributeValueMemberS, want a number"},
		{"fractional index", func(m map[string]types.AttributeValue) { m["_index"] = n("1.5") },
			`_index is "1.5", want an integer from 0 to 9999999999`},
		{"negative index", func(m map[string]types.AttributeValue) { m["_index"] = n("-1") },
			`_index is "-1"`},
		{"index too large", func(m map[string]types.AttributeValue) { m["_index"] = n("10000000000") },
			`_index is "10000000000"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			item := at(1, A).Item()
			tt.edit(item)
			_, err := relationships.FromItem(item)
			require.ErrorContains(t, err, tt.reason)
		})
	}
}

func TestPrimaryKeyFromItem(t *testing.T) {
	e := tricky
	full := e.Item()
	keysOnly := map[string]types.AttributeValue{ // the by-object index's projection
		schema.AttrSubjectKey:         full[schema.AttrSubjectKey],
		schema.AttrPredicateKey:       full[schema.AttrPredicateKey],
		schema.AttrPredicateObjectKey: full[schema.AttrPredicateObjectKey],
	}
	for name, item := range map[string]map[string]types.AttributeValue{"full": full, "keys only": keysOnly} {
		t.Run(name, func(t *testing.T) {
			got, err := relationships.PrimaryKeyFromItem(item)
			require.NoError(t, err)
			require.Equal(t, e.PrimaryKey(), got)
		})
	}

	t.Run("missing sort key", func(t *testing.T) {
		delete(keysOnly, schema.AttrPredicateKey)
		_, err := relationships.PrimaryKeyFromItem(keysOnly)
		require.ErrorContains(t, err, "_predicate_key is missing")
	})
}

// A predicate's prefix must select its own entries only, whatever other predicates
// start with the same characters.
func TestPredicatePrefixSeparatesPredicates(t *testing.T) {
	predicates := []string{"friend", "friends", "friend:x", "friend%", "friend-", "fr", "Friend"}
	for _, p := range predicates {
		t.Run(p, func(t *testing.T) {
			for _, other := range predicates {
				e := Entry{Subject: subject, Predicate: other, Index: 4, Object: A}
				item := e.Item()
				pk := item[schema.AttrPredicateKey].(*types.AttributeValueMemberS).Value
				pok := item[schema.AttrPredicateObjectKey].(*types.AttributeValueMemberS).Value
				require.Equal(t, p == other, strings.HasPrefix(pk, schema.PredicatePrefix(p)), "%s in %q", other, pk)
				require.Equal(t, p == other, strings.HasPrefix(pok, schema.PredicateObjectPrefix(p)), "%s in %q", other, pok)
			}
		})
	}
}
