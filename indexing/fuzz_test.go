package indexing_test

import (
	"cmp"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
)

// requireSameOrder asserts that the encodings of a and b compare as want does.
func requireSameOrder(t *testing.T, want int, a, b indexing.Value) {
	t.Helper()
	require.NoError(t, a.Validate())
	require.NoError(t, b.Validate())
	require.Equal(t, want, cmp.Compare(a.Encoding(), b.Encoding()), "%q vs %q", a, b)
}

func FuzzIntOrder(f *testing.F) {
	for _, p := range [][2]int64{{0, 0}, {-1, 0}, {-1, 1}, {math.MinInt64, math.MaxInt64}, {15, 16}, {-16, -15}, {255, -256}} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b int64) {
		requireSameOrder(t, cmp.Compare(a, b), indexing.Int(a), indexing.Int(b))
		require.Equal(t, a, indexing.Int(a).Interface())
	})
}

func FuzzFloatOrder(f *testing.F) {
	specials := []float64{math.Inf(-1), -math.MaxFloat64, -1, -math.SmallestNonzeroFloat64, math.Copysign(0, -1), 0,
		math.SmallestNonzeroFloat64, 2.2250738585072009e-308, 2.2250738585072014e-308, 1, math.MaxFloat64, math.Inf(1)}
	for i, a := range specials {
		f.Add(a, specials[(i+1)%len(specials)])
		f.Add(a, -a)
	}
	f.Fuzz(func(t *testing.T, a, b float64) {
		va, vb := indexing.Float(a), indexing.Float(b)
		if math.IsNaN(a) || math.IsNaN(b) {
			require.True(t, va.Validate() != nil || vb.Validate() != nil)
			return
		}
		// cmp.Compare orders -0 before 0; the encoding, like ==, does not.
		want := 0
		if a < b {
			want = -1
		} else if a > b {
			want = 1
		}
		requireSameOrder(t, want, va, vb)
		require.Equal(t, a, va.Interface())
	})
}

// Unix seconds of the first and last instants Time supports.
var (
	minUnix = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	maxUnix = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix()
)

// supportedTime maps any sec and nsec onto an instant in Time's range.
func supportedTime(sec, nsec int64) time.Time {
	span := uint64(maxUnix - minUnix + 1)
	s := minUnix + int64(uint64(sec)%span)
	return time.Unix(s, int64(uint64(nsec)%1e9))
}

func FuzzTimeOrder(f *testing.F) {
	f.Add(int64(0), int64(0), int64(0), int64(1))
	f.Add(int64(-1), int64(999999999), int64(0), int64(0))
	f.Add(minUnix, int64(0), maxUnix, int64(999999999))
	f.Add(int64(1e10), int64(5), int64(1e10), int64(50))
	f.Fuzz(func(t *testing.T, s1, n1, s2, n2 int64) {
		a, b := supportedTime(s1, n1), supportedTime(s2, n2)
		requireSameOrder(t, a.Compare(b), indexing.Time(a), indexing.Time(b))
		require.True(t, a.Equal(indexing.Time(a).Interface().(time.Time)))
	})
}

func FuzzStringOrder(f *testing.F) {
	f.Add("a", "b")
	f.Add("a", "a ")
	f.Add("日本", "\U0010FFFF")
	f.Add("a:b", "a%b")
	f.Fuzz(func(t *testing.T, a, b string) {
		va, vb := indexing.String(a), indexing.String(b)
		if va.Validate() != nil || vb.Validate() != nil {
			return
		}
		requireSameOrder(t, cmp.Compare(a, b), va, vb)
	})
}

func FuzzParseValue(f *testing.F) {
	for _, v := range valueCorpus() {
		f.Add(v.Encoding())
	}
	f.Add("ffff8000000000000")
	f.Add("i800000000000000A")
	f.Fuzz(func(t *testing.T, s string) {
		v, err := indexing.ParseValue(s)
		if err != nil {
			require.Equal(t, indexing.Value{}, v)
			return
		}
		require.Equal(t, s, v.Encoding(), "ParseValue accepts only canonical encodings")
		require.NoError(t, v.Validate())
		require.Equal(t, v, rebuild(t, v), "Interface returns what v was built from")
	})
}

// rebuild builds v again from v.Interface().
func rebuild(t *testing.T, v indexing.Value) indexing.Value {
	t.Helper()
	switch x := v.Interface().(type) {
	case string:
		return indexing.String(x)
	case bool:
		return indexing.Bool(x)
	case int64:
		return indexing.Int(x)
	case float64:
		return indexing.Float(x)
	case time.Time:
		return indexing.Time(x)
	case []any:
		parts := v.Parts()
		require.Len(t, x, len(parts))
		for i, p := range parts {
			require.Equal(t, p, rebuild(t, p), "part %d", i)
		}
		return indexing.Tuple(parts...)
	}
	require.Failf(t, "unexpected Interface", "%T", v.Interface())
	return indexing.Value{}
}

// fuzzValue builds a value of one of the kinds from fuzzer input: a tuple of up to
// three parts built the same way from the bytes of kind, n and s.
func fuzzValue(kind uint8, n int64, s string) indexing.Value {
	if kind%6 == 5 {
		var parts []indexing.Value
		for i := range 1 + int(kind/6)%3 {
			cut := min(len(s), i+1)
			parts = append(parts, fuzzPart(kind>>uint(i), n>>uint(8*i), s[:cut]))
		}
		return indexing.Tuple(parts...)
	}
	return fuzzPart(kind, n, s)
}

// fuzzPart builds a value of one of the kinds but tuples from fuzzer input.
func fuzzPart(kind uint8, n int64, s string) indexing.Value {
	switch kind % 5 {
	case 0:
		return indexing.String(s)
	case 1:
		return indexing.Bool(n&1 == 1)
	case 2:
		return indexing.Int(n)
	case 3:
		return indexing.Float(math.Float64frombits(uint64(n)))
	}
	return indexing.Time(supportedTime(n, n>>7))
}

// fuzzCondition builds a condition from fuzzer input.
func fuzzCondition(op uint8, a, b indexing.Value) indexing.Condition {
	switch op % 8 {
	case 0:
		return indexing.All()
	case 1:
		return indexing.Equal(a)
	case 2:
		return indexing.BeginsWith(a)
	case 3:
		return indexing.Between(a, b)
	case 4:
		return indexing.Less(a)
	case 5:
		return indexing.LessOrEqual(a)
	case 6:
		return indexing.Greater(a)
	}
	return indexing.GreaterOrEqual(a)
}

func FuzzExpressionAgreesWithMatch(f *testing.F) {
	f.Add(uint8(4), uint8(0), int64(0), "b", uint8(0), int64(0), "c", uint8(0), int64(0), "a")
	f.Add(uint8(6), uint8(0), int64(0), "a", uint8(0), int64(0), "", uint8(0), int64(0), "a ")
	f.Add(uint8(4), uint8(2), int64(16), "", uint8(0), int64(0), "", uint8(2), int64(15), "")
	f.Add(uint8(3), uint8(3), int64(-1), "", uint8(3), int64(1), "", uint8(3), int64(0), "")
	f.Add(uint8(7), uint8(4), int64(1e18), "", uint8(0), int64(0), "", uint8(0), int64(0), "zz")
	f.Add(uint8(2), uint8(0), int64(0), "ab", uint8(0), int64(0), "", uint8(0), int64(0), "abc")
	f.Fuzz(func(t *testing.T, op, ka uint8, na int64, sa string, kb uint8, nb int64, sb string, kv uint8, nv int64, sv string) {
		cond := fuzzCondition(op, fuzzValue(ka, na, sa), fuzzValue(kb, nb, sb))
		v := fuzzValue(kv, nv, sv)
		x, err := cond.Expression("scope", "index")
		if cond.Validate() != nil {
			require.Error(t, err)
			return
		}
		require.NoError(t, err)
		if v.Validate() != nil {
			return // only valid values are stored
		}
		requireWellFormed(t, x)
		require.Equal(t, cond.Match(v), evalKeyCondition(t, x, "scope:index", v.Encoding()),
			"condition %s on %q: %s", cond, v, x.KeyCondition)
	})
}

// compareTuples orders tuples as Tuple promises: part by part, a tuple before its
// extensions; parts of different kinds by kind, of one kind by value.
func compareTuples(a, b []indexing.Value) int {
	for i := range min(len(a), len(b)) {
		if c := comparePart(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

var kindOrder = map[indexing.Kind]int{indexing.KindString: 0, indexing.KindBool: 1, indexing.KindFloat: 2, indexing.KindInt: 3, indexing.KindTime: 4}

func comparePart(a, b indexing.Value) int {
	if a.Kind() != b.Kind() {
		return cmp.Compare(kindOrder[a.Kind()], kindOrder[b.Kind()])
	}
	switch x := a.Interface().(type) {
	case string:
		return cmp.Compare(x, b.Interface().(string))
	case bool:
		return cmp.Compare(boolInt(x), boolInt(b.Interface().(bool)))
	case int64:
		return cmp.Compare(x, b.Interface().(int64))
	case float64:
		y := b.Interface().(float64)
		if x == y { // -0 and 0 are one value
			return 0
		}
		return cmp.Compare(x, y)
	case time.Time:
		return x.Compare(b.Interface().(time.Time))
	}
	panic("unexpected kind")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func FuzzTupleOrder(f *testing.F) {
	f.Add(uint8(0), int64(0), "ab", uint8(0), int64(0), "abc")
	f.Add(uint8(11), int64(5), "acme", uint8(17), int64(-5), "acme")
	f.Add(uint8(23), int64(1), "a b", uint8(23), int64(1), "a")
	f.Add(uint8(5), int64(0), "x", uint8(11), int64(0), "x")
	f.Fuzz(func(t *testing.T, ka uint8, na int64, sa string, kb uint8, nb int64, sb string) {
		// Tuples of one to three parts, each part of any kind; the second tuple's
		// parts partly taken from the first's input, so that they share prefixes.
		asTuple := func(k uint8) uint8 { k %= 246; return k - k%6 + 5 }
		ta, tb := fuzzValue(asTuple(ka), na, sa), fuzzValue(asTuple(kb), nb, sb)
		if kb%2 == 0 && ta.Validate() == nil && tb.Validate() == nil {
			tb = indexing.Tuple(append(slices.Clone(ta.Parts()[:1]), tb.Parts()...)...)
		}
		if ta.Validate() != nil || tb.Validate() != nil {
			return
		}
		requireSameOrder(t, compareTuples(ta.Parts(), tb.Parts()), ta, tb)
		for _, v := range []indexing.Value{ta, tb} {
			parsed, err := indexing.ParseValue(v.Encoding())
			require.NoError(t, err)
			require.Equal(t, v, parsed)
		}
		// BeginsWith of a tuple's first parts is exactly "has those first parts".
		for k := 1; k <= len(ta.Parts()); k++ {
			prefix := ta.Parts()[:k]
			want := len(tb.Parts()) >= k && compareTuples(tb.Parts()[:k], prefix) == 0
			require.Equal(t, want, indexing.BeginsWith(indexing.Tuple(prefix...)).Match(tb), "%s begins with %s", tb, indexing.Tuple(prefix...))
		}
	})
}
