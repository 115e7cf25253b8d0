package schema_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/schema"
)

// trickyComponents are values on which a naive key encoding breaks.
var trickyComponents = []string{"", ":", "%", "%3A", "a:b", "%25", "::", "%%", "%3a", "a%", "日:本"}

func FuzzJoinInjective(f *testing.F) {
	for i, a := range trickyComponents {
		b := trickyComponents[(i+1)%len(trickyComponents)]
		c := trickyComponents[(i+2)%len(trickyComponents)]
		f.Add(a, b, c, a, b, c)
		f.Add(a, b, c, b, c, a)
	}
	f.Add("a:b", "c", "d", "a", "b:c", "d") // the collision of the original encoding
	f.Add("a", "%3A", "b", "a", ":", "b")

	f.Fuzz(func(t *testing.T, a1, b1, c1, a2, b2, c2 string) {
		k1, k2 := schema.Join(a1, b1, c1), schema.Join(a2, b2, c2)
		same := a1 == a2 && b1 == b2 && c1 == c2
		require.Equal(t, same, k1 == k2, "Join(%q, %q, %q) = %q and Join(%q, %q, %q) = %q",
			a1, b1, c1, k1, a2, b2, c2, k2)
		requireSplitsInto(t, k1, a1, b1, c1)
		requireSplitsInto(t, k2, a2, b2, c2)
	})
}

// requireSplitsInto asserts that key splits on ':' into parts that unescape to components.
func requireSplitsInto(t *testing.T, key string, components ...string) {
	t.Helper()
	parts := strings.Split(key, ":")
	require.Len(t, parts, len(components), "key %q", key)
	for i, p := range parts {
		got, err := schema.Unescape(p)
		require.NoError(t, err, "part %d of key %q", i, key)
		require.Equal(t, components[i], got, "part %d of key %q", i, key)
	}
}

func FuzzEscapeRoundTrip(f *testing.F) {
	for _, s := range trickyComponents {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := schema.Escape(s)
		require.NotContains(t, e, ":", "Escape(%q)", s)
		got, err := schema.Unescape(e)
		require.NoError(t, err, "Unescape(Escape(%q))", s)
		require.Equal(t, s, got)

		// Unescape accepts only what Escape writes, so it is injective as well.
		if u, err := schema.Unescape(s); err == nil {
			require.Equal(t, s, schema.Escape(u), "Unescape(%q) = %q", s, u)
		}
	})
}
