package schema_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/schema"
)

func TestEscape(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"plain", "users", "users"},
		{"unicode", "日本語🙂", "日本語🙂"},
		{"colon", "a:b", "a%3Ab"},
		{"percent", "100%", "100%25"},
		{"escaped colon literally", "%3A", "%253A"},
		{"escaped percent literally", "%25", "%2525"},
		{"only delimiters", "::", "%3A%3A"},
		{"double percent", "%%", "%25%25"},
		{"mixed", "a:%:b", "a%3A%25%3Ab"},
		{"other punctuation untouched", "a/b#c|d%", "a/b#c|d%25"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := schema.Escape(tt.in)
			require.Equal(t, tt.want, got)
			require.NotContains(t, got, ":")

			back, err := schema.Unescape(got)
			require.NoError(t, err)
			require.Equal(t, tt.in, back)
		})
	}
}

func TestUnescapeRejectsMalformed(t *testing.T) {
	tests := []struct {
		name, in, reason string
	}{
		{"raw colon", "a:b", "unescaped ':' at byte 1"},
		{"lone percent", "%", "malformed escape at byte 0"},
		{"truncated escape", "ab%2", "malformed escape at byte 2"},
		{"unknown escape", "%41", "malformed escape at byte 0"},
		{"lower case hex", "%3a", "malformed escape at byte 0"},
		{"percent after valid escape", "%25%", "malformed escape at byte 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := schema.Unescape(tt.in)
			requireInvalid(t, err, "escaped component")
			require.Contains(t, err.Error(), tt.reason)
		})
	}
}

func TestJoin(t *testing.T) {
	tests := []struct {
		name       string
		components []string
		want       string
	}{
		{"none", nil, ""},
		{"one", []string{"a"}, "a"},
		{"one empty", []string{""}, ""},
		{"two", []string{"a", "b"}, "a:b"},
		{"empty components keep their place", []string{"", "", ""}, "::"},
		{"escapes each component", []string{"a:b", "c%d"}, "a%3Ab:c%25d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, schema.Join(tt.components...))
		})
	}
}

func TestBuilders(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{"ScopeTypeKey", schema.ScopeTypeKey("acme", "user"), "acme:user"},
		{"ScopeTypeKey escapes", schema.ScopeTypeKey("a:b", "c%"), "a%3Ab:c%25"},
		{"SubjectKey", schema.SubjectKey("acme", "user", "42"), "acme:user:42"},
		{"SubjectKey escapes", schema.SubjectKey("acme", "user", "urn:x:1"), "acme:user:urn%3Ax%3A1"},
		{"PredicateKey", schema.PredicateKey("friend", 3, "user", "42"), "friend:0000000003:user:42"},
		{"PredicateKey escapes", schema.PredicateKey("a:b", 0, "%", "x:y"), "a%3Ab:0000000000:%25:x%3Ay"},
		{"PredicatePrefix", schema.PredicatePrefix("friend"), "friend:"},
		{"PredicatePrefix escapes", schema.PredicatePrefix("is:a"), "is%3Aa:"},
		{"PredicateObjectKey", schema.PredicateObjectKey("friend", "acme", "user", "42"), "friend:acme:user:42"},
		{"PredicateObjectKey escapes", schema.PredicateObjectKey("f", "a:b", "%3A", "1"), "f:a%3Ab:%253A:1"},
		{"PredicateObjectPrefix", schema.PredicateObjectPrefix("friend"), "friend:"},
		{"UniqueKey", schema.UniqueKey("by_email", "a@example.com"), "by_email:a@example.com"},
		{"UniqueKey escapes", schema.UniqueKey("by:time", "2024-01-02T03:04:05.000Z"), "by%3Atime:2024-01-02T03%3A04%3A05.000Z"},
		{"ScopeIndexName", schema.ScopeIndexName("acme", "by_email"), "acme:by_email"},
		{"ScopeIndexName escapes", schema.ScopeIndexName("a%", "b:"), "a%25:b%3A"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, tt.got)
		})
	}
}

// TestBuildersDoNotCollide checks the collisions plain joining would cause.
func TestBuildersDoNotCollide(t *testing.T) {
	tests := []struct {
		name string
		a, b string
	}{
		{"delimiter moves between scope and type",
			schema.ScopeTypeKey("a:b", "c"), schema.ScopeTypeKey("a", "b:c")},
		{"delimiter moves between type and id",
			schema.SubjectKey("s", "t:x", "1"), schema.SubjectKey("s", "t", "x:1")},
		{"literal escape versus escaped delimiter",
			schema.SubjectKey("s", "t", "%3A"), schema.SubjectKey("s", "t", ":")},
		{"literal %25 versus %",
			schema.SubjectKey("s", "t", "%25"), schema.SubjectKey("s", "t", "%")},
		{"predicate absorbs the index",
			schema.PredicateKey("p:0000000001", 2, "t", "1"), schema.PredicateKey("p", 1, "0000000002:t", "1")},
		{"unique key split",
			schema.UniqueKey("by:a", "b"), schema.UniqueKey("by", "a:b")},
		{"scope index name split",
			schema.ScopeIndexName("s:i", "x"), schema.ScopeIndexName("s", "i:x")},
		{"object key split",
			schema.PredicateObjectKey("p", "s:t", "u", "1"), schema.PredicateObjectKey("p", "s", "t:u", "1")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NotEqual(t, tt.a, tt.b)
		})
	}
}

func TestPredicatePrefixMatchesOnlyItsPredicate(t *testing.T) {
	tests := []struct {
		name, prefixOf, predicate string
		match                     bool
	}{
		{"same predicate", "friend", "friend", true},
		{"longer predicate", "friend", "friends", false},
		{"shorter predicate", "friends", "friend", false},
		{"predicate containing a colon", "friend", "friend:old", false},
		{"escaped predicate", "a:b", "a:b", true},
		{"escaped prefix of another", "a", "a:b", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := schema.PredicatePrefix(tt.prefixOf)
			key := schema.PredicateKey(tt.predicate, 7, "user", "42")
			objectKey := schema.PredicateObjectKey(tt.predicate, "acme", "user", "42")
			require.Equal(t, tt.match, strings.HasPrefix(key, prefix), "PredicateKey %q", key)
			require.Equal(t, tt.match, strings.HasPrefix(objectKey, schema.PredicateObjectPrefix(tt.prefixOf)),
				"PredicateObjectKey %q", objectKey)
		})
	}
}

func TestPredicateKeySortsInListOrder(t *testing.T) {
	indexes := []int64{0, 1, 2, 9, 10, 11, 99, 100, 1_000, 123_456_789, schema.MaxIndex}
	for i := 1; i < len(indexes); i++ {
		t.Run(fmt.Sprintf("%d<%d", indexes[i-1], indexes[i]), func(t *testing.T) {
			lo, hi := intOrSkip(t, indexes[i-1]), intOrSkip(t, indexes[i])
			// The object sorts after the index: a larger object must not reorder the list.
			a := schema.PredicateKey("friend", lo, "zzz", "zzz")
			b := schema.PredicateKey("friend", hi, "aaa", "aaa")
			require.Less(t, a, b)
		})
	}
}

func TestFormatIndex(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0000000000"},
		{2, "0000000002"},
		{10, "0000000010"},
		{1_234_567_890, "1234567890"},
		{schema.MaxIndex, "9999999999"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			got := schema.FormatIndex(intOrSkip(t, tt.in))
			require.Equal(t, tt.want, got)
			require.Len(t, got, schema.IndexWidth)
		})
	}
}

func TestValidateIndex(t *testing.T) {
	tests := []struct {
		in int64
		ok bool
	}{
		{-1, false},
		{0, true},
		{1, true},
		{schema.MaxIndex, true},
		{schema.MaxIndex + 1, false},
	}
	for _, tt := range tests {
		t.Run(strconv.FormatInt(tt.in, 10), func(t *testing.T) {
			err := schema.ValidateIndex(intOrSkip(t, tt.in))
			if tt.ok {
				require.NoError(t, err)
				return
			}
			requireInvalid(t, err, "index")
		})
	}
}

// intOrSkip returns i as an int, skipping the test where int is too small for it.
func intOrSkip(t *testing.T, i int64) int {
	t.Helper()
	if int64(int(i)) != i {
		t.Skipf("%d does not fit in a %d-bit int", i, strconv.IntSize)
	}
	return int(i)
}

// requireInvalid asserts err is a *ValidationError for field that matches ErrInvalid.
func requireInvalid(t *testing.T, err error, field string) *schema.ValidationError {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, schema.ErrInvalid)
	var verr *schema.ValidationError
	require.True(t, errors.As(err, &verr), "want *ValidationError, got %T", err)
	require.Equal(t, field, verr.Field)
	require.NotEmpty(t, verr.Reason)
	return verr
}

func TestReverseKey(t *testing.T) {
	long := func(n int, r string) string { return strings.Repeat(r, n) }
	tests := []struct {
		name                      string
		predicate, scope, typ, id string
		index                     int
		want                      string // "" when only the properties below are checked
	}{
		{"plain", "follows", "acme", "user", "ada", 3, "follows:acme:user:ada:0000000003"},
		{"escaped", "p:q%", "a:b", "c%d", "e:f%", 7, "p%3Aq%25:a%3Ab:c%25d:e%3Af%25:0000000007"},
		{"empty scope", "follows", "", "user", "ada", 0, "follows::user:ada:0000000000"},
		{"long id", "follows", "acme", "user", long(1500, "x"), 12, ""},
		{"long id of multibyte characters", "follows", "acme", "user", long(600, "é"), 12, ""},
		{"long id of colons", "follows", "acme", "user", long(700, ":"), 12, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := schema.ReverseKey(tt.predicate, tt.scope, tt.typ, tt.id, tt.index)
			if tt.want != "" {
				require.Equal(t, tt.want, k)
			}
			require.LessOrEqual(t, len(k), schema.MaxSortKeyBytes)
			require.True(t, utf8.ValidString(k), "a DynamoDB string must be UTF-8")
			require.True(t, strings.HasPrefix(k, schema.PredicatePrefix(tt.predicate)))
			require.True(t, strings.HasSuffix(k, schema.FormatIndex(tt.index)))
		})
	}
}

func TestReverseKeyOrdersByPredicateSubjectAndPosition(t *testing.T) {
	ordered := []string{
		schema.ReverseKey("follows", "acme", "user", "ada", 9),
		schema.ReverseKey("follows", "acme", "user", "bob", 0),
		schema.ReverseKey("follows", "acme", "user", "bob", 1),
		schema.ReverseKey("follows", "acme", "user", "bob", 10),
		schema.ReverseKey("likes", "acme", "user", "ada", 0),
	}
	require.True(t, slices.IsSorted(ordered), "%q", ordered)
	require.Len(t, slices.Compact(slices.Clone(ordered)), len(ordered))
}

func TestShortenedReverseKeysStayDistinct(t *testing.T) {
	// Two ids sharing their first kilobyte differ in the hash of the subject key.
	a := schema.ReverseKey("follows", "acme", "user", strings.Repeat("x", 1100)+"a", 5)
	b := schema.ReverseKey("follows", "acme", "user", strings.Repeat("x", 1100)+"b", 5)
	require.NotEqual(t, a, b)
	c := schema.ReverseKey("follows", "acme", "user", strings.Repeat("x", 1100)+"a", 6)
	require.NotEqual(t, a, c)
	require.Equal(t, a, schema.ReverseKey("follows", "acme", "user", strings.Repeat("x", 1100)+"a", 5))
}

func TestOrderedSetKeys(t *testing.T) {
	tests := []struct {
		name      string
		position  int64
		predicate string
	}{
		{"zero", 0, "cards"},
		{"microseconds", 1_795_000_000_000_123, "cards"},
		{"largest", math.MaxInt64, "a:b%c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := schema.OrderedSetKey(tt.predicate, tt.position, "s:1", "card", "id%2")
			if !schema.IsOrderedSetKey(k) || !strings.HasPrefix(k, schema.OrderedSetPrefix(tt.predicate)) {
				t.Fatalf("%q: not recognised as an ordered set key", k)
			}
			got, err := schema.ParseOrderedSetKey(tt.predicate, k)
			if err != nil || got != tt.position {
				t.Fatalf("schema.ParseOrderedSetKey(%q) = %d, %v; want %d", k, got, err, tt.position)
			}
		})
	}
	if schema.IsOrderedSetKey(schema.PredicateObjectKey("cards", "s", "card", "1")) {
		t.Error("a list entry's LSI key is taken for an ordered set's")
	}
	if strings.HasPrefix(schema.PredicateObjectKey("cards", "s", "card", "1"), schema.OrderedSetPrefix("cards")) {
		t.Error("the ordered set's prefix selects a list entry")
	}
	for _, bad := range []string{"cards:\x05", "cards:\x05123:s:t:i", "x:\x050000000000000000001:s:t:i", "cards:\x05-000000000000000001:s:t:i"} {
		if _, err := schema.ParseOrderedSetKey("cards", bad); err == nil {
			t.Errorf("schema.ParseOrderedSetKey(%q) accepted it", bad)
		}
	}
	a, b := schema.OrderedSetKey("p", 9, "s", "t", "z"), schema.OrderedSetKey("p", 10, "s", "t", "a")
	if a >= b {
		t.Errorf("position 9 sorts after 10: %q, %q", a, b)
	}
}

func TestSplitIsTheInverseOfJoin(t *testing.T) {
	tests := []struct {
		name  string
		parts []string
	}{
		{"plain", []string{"acme", "person", "ada"}},
		{"delimiters and escapes", []string{"a:b", "%3A", "100%"}},
		{"empty components", []string{"", "x", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := schema.Split(schema.Join(tt.parts...), len(tt.parts))
			if !ok || !slices.Equal(got, tt.parts) {
				t.Fatalf("Split(Join(%q)) = %q, %v", tt.parts, got, ok)
			}
		})
	}
	for _, bad := range []struct {
		s string
		n int
	}{{"a:b", 3}, {"a:b:c:d", 3}, {"a%2:b:c", 3}, {"a%zz:b:c", 3}} {
		if got, ok := schema.Split(bad.s, bad.n); ok {
			t.Errorf("Split(%q, %d) = %q, want refused", bad.s, bad.n, got)
		}
	}
}
