package indexing_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
)

func TestEncodings(t *testing.T) {
	noon := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		value indexing.Value
		kind  indexing.Kind
		enc   string
		raw   any // what Interface returns
	}{
		{"string", indexing.String("ada"), indexing.KindString, "'ada", "ada"},
		{"string keeps delimiters", indexing.String("a:b%c"), indexing.KindString, "'a:b%c", "a:b%c"},
		{"string unicode", indexing.String("日本"), indexing.KindString, "'日本", "日本"},
		{"false", indexing.Bool(false), indexing.KindBool, "b0", false},
		{"true", indexing.Bool(true), indexing.KindBool, "b1", true},
		{"int min", indexing.Int(math.MinInt64), indexing.KindInt, "i0000000000000000", int64(math.MinInt64)},
		{"int -1", indexing.Int(-1), indexing.KindInt, "i7fffffffffffffff", int64(-1)},
		{"int 0", indexing.Int(0), indexing.KindInt, "i8000000000000000", int64(0)},
		{"int 5", indexing.Int(5), indexing.KindInt, "i8000000000000005", int64(5)},
		{"int 255", indexing.Int(255), indexing.KindInt, "i80000000000000ff", int64(255)},
		{"int max", indexing.Int(math.MaxInt64), indexing.KindInt, "iffffffffffffffff", int64(math.MaxInt64)},
		{"float -Inf", indexing.Float(math.Inf(-1)), indexing.KindFloat, "f000fffffffffffff", math.Inf(-1)},
		{"float -1", indexing.Float(-1), indexing.KindFloat, "f400fffffffffffff", -1.0},
		{"float -0", indexing.Float(math.Copysign(0, -1)), indexing.KindFloat, "f8000000000000000", 0.0},
		{"float 0", indexing.Float(0), indexing.KindFloat, "f8000000000000000", 0.0},
		{"float smallest subnormal", indexing.Float(math.SmallestNonzeroFloat64), indexing.KindFloat, "f8000000000000001", math.SmallestNonzeroFloat64},
		{"float 1", indexing.Float(1), indexing.KindFloat, "fbff0000000000000", 1.0},
		{"float 1.5", indexing.Float(1.5), indexing.KindFloat, "fbff8000000000000", 1.5},
		{"float +Inf", indexing.Float(math.Inf(1)), indexing.KindFloat, "ffff0000000000000", math.Inf(1)},
		{"time", indexing.Time(noon), indexing.KindTime, "t2024-05-01T12:00:00.000000000Z", noon},
		{"time nanoseconds", indexing.Time(noon.Add(7)), indexing.KindTime, "t2024-05-01T12:00:00.000000007Z", noon.Add(7)},
		{"time in another zone", indexing.Time(noon.In(time.FixedZone("X", -7*3600))), indexing.KindTime, "t2024-05-01T12:00:00.000000000Z", noon},
		{"time zero", indexing.Time(time.Time{}), indexing.KindTime, "t0001-01-01T00:00:00.000000000Z", time.Time{}},
		{"time max", indexing.Time(time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)), indexing.KindTime,
			"t9999-12-31T23:59:59.999999999Z", time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, tt.value.Validate())
			require.Equal(t, tt.kind, tt.value.Kind())
			require.Equal(t, tt.enc, tt.value.Encoding())
			require.Equal(t, tt.raw, tt.value.Interface())

			back, err := indexing.ParseValue(tt.enc)
			require.NoError(t, err)
			require.Equal(t, tt.value, back)
		})
	}
}

func TestMinusZeroIsZero(t *testing.T) {
	negZero := math.Copysign(0, -1)
	require.Equal(t, indexing.Float(0), indexing.Float(negZero))
	f := indexing.Float(negZero).Interface().(float64)
	require.False(t, math.Signbit(f), "Interface returns +0")
}

func TestTimeDropsMonotonicReading(t *testing.T) {
	now := time.Now()
	require.Equal(t, indexing.Time(now.Round(0)), indexing.Time(now))
}

func TestInvalidValues(t *testing.T) {
	tests := []struct {
		name   string
		value  indexing.Value
		reason string
	}{
		{"zero Value", indexing.Value{}, "is the zero Value"},
		{"empty string", indexing.String(""), "must not be empty"},
		{"invalid UTF-8", indexing.String("a\xff"), "is not valid UTF-8"},
		{"control character", indexing.String("a\tb"), "control character U+0009"},
		{"NUL", indexing.String("a\x00"), "control character U+0000"},
		{"too long", indexing.String(strings.Repeat("x", 1022)), "at most 1022"},
		{"too long once escaped", indexing.String(strings.Repeat(":", 341)), "is 1024 bytes"},
		{"NaN", indexing.Float(math.NaN()), "NaN"},
		{"year 0", indexing.Time(time.Date(0, 12, 31, 23, 59, 59, 0, time.UTC)), "year 0 is outside 1..9999"},
		{"year 10000", indexing.Time(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)), "year 10000 is outside 1..9999"},
		{"year 10000 in UTC", indexing.Time(time.Date(9999, 12, 31, 23, 0, 0, 0, time.FixedZone("W", -2*3600))), "year 10000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requireInvalid(t, tt.value.Validate(), tt.reason)
			require.Nil(t, tt.value.Interface())
		})
	}
}

func TestLongestString(t *testing.T) {
	// One byte of tag and two of "x:" in the _unique_key leave 1021 bytes.
	require.NoError(t, indexing.String(strings.Repeat("x", 1021)).Validate())
	require.NoError(t, indexing.String(strings.Repeat("日", 340)).Validate()) // 1020 bytes
}

func TestParseValueRejects(t *testing.T) {
	tests := []struct {
		name, enc, reason string
	}{
		{"empty", "", "must not be empty"},
		{"unknown tag", "x1", "not the tag of a kind"},
		{"untagged string", "ada", "not the tag of a kind"},
		{"empty string", "'", "must not be empty"},
		{"string with tab", "'a\tb", "control character"},
		{"bool 2", "b2", "not a canonical bool encoding"},
		{"bool too long", "b11", "not a canonical bool encoding"},
		{"int short", "i800000000000000", "not 16 hex digits"},
		{"int long", "i80000000000000000", "not 16 hex digits"},
		{"int upper case", "i800000000000000A", "not a canonical int encoding"},
		{"int sign", "i+800000000000000", "not 16 hex digits"},
		{"float NaN", "ffff8000000000000", "NaN"},
		{"float short", "f8", "not 16 hex digits"},
		{"float -0", "f7fffffffffffffff", "not a canonical float encoding"},
		{"time without fraction", "t2024-05-01T12:00:00Z", "not a time in the layout"},
		{"time with offset", "t2024-05-01T12:00:00.000000000+01:00", "not a time in the layout"},
		{"time milliseconds", "t2024-05-01T12:00:00.000Z", "not a time in the layout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := indexing.ParseValue(tt.enc)
			requireInvalid(t, err, tt.reason)
			require.Equal(t, indexing.Value{}, v)
		})
	}
}

func TestSortedInts(t *testing.T) {
	ints := []int64{math.MinInt64, math.MinInt64 + 1, -1 << 53, -1_000_000, -256, -255, -16, -15, -2, -1,
		0, 1, 2, 9, 10, 15, 16, 255, 256, 1_000_000, 1 << 53, math.MaxInt64 - 1, math.MaxInt64}
	values := make([]indexing.Value, len(ints))
	for i, n := range ints {
		values[i] = indexing.Int(n)
	}
	requireAscending(t, values)
}

func TestSortedFloats(t *testing.T) {
	floats := []float64{
		math.Inf(-1), -math.MaxFloat64, -1e300, -1e20, -12345.678, -2, -1.5, -1, -0.5, -1e-300,
		-math.SmallestNonzeroFloat64 * 2, -math.SmallestNonzeroFloat64,
		0,
		math.SmallestNonzeroFloat64, math.SmallestNonzeroFloat64 * 2, 2.2250738585072009e-308, // largest subnormal
		2.2250738585072014e-308, // smallest normal
		1e-300, 0.1, 0.5, 1, math.Nextafter(1, 2), 1.5, 2, 10, 12345.678, 1 << 53, 1e20, 1e300, math.MaxFloat64, math.Inf(1),
	}
	values := make([]indexing.Value, len(floats))
	for i, f := range floats {
		values[i] = indexing.Float(f)
	}
	requireAscending(t, values)
}

func TestSortedTimes(t *testing.T) {
	base := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	times := []time.Time{
		{},
		time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC),
		time.Date(999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(1677, 9, 21, 0, 0, 0, 0, time.UTC), // before the range of UnixNano
		time.Date(1969, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Unix(0, 0),
		base.Add(-time.Nanosecond),
		base,
		base.Add(time.Nanosecond),
		base.Add(time.Millisecond),
		base.Add(time.Second),
		time.Date(2262, 4, 12, 0, 0, 0, 0, time.UTC), // after the range of UnixNano
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
	}
	values := make([]indexing.Value, len(times))
	for i, tm := range times {
		values[i] = indexing.Time(tm)
	}
	requireAscending(t, values)
}

func TestKindsHaveDistinctTagsWithStringsLowest(t *testing.T) {
	values := []indexing.Value{
		indexing.String("\U0010FFFF"), indexing.Bool(false), indexing.Float(math.Inf(-1)),
		indexing.Int(math.MinInt64), indexing.Time(time.Time{}),
	}
	// The largest string sorts below the smallest value of every other kind, and the
	// kinds sort in a fixed order.
	requireAscending(t, values)
	for i, v := range values {
		require.Equal(t, indexing.Kind(i+1), v.Kind())
	}
}

func TestFixedWidthKinds(t *testing.T) {
	tests := []struct {
		name   string
		values []indexing.Value
	}{
		{"bool", []indexing.Value{indexing.Bool(false), indexing.Bool(true)}},
		{"int", []indexing.Value{indexing.Int(math.MinInt64), indexing.Int(0), indexing.Int(math.MaxInt64)}},
		{"float", []indexing.Value{indexing.Float(math.Inf(-1)), indexing.Float(0), indexing.Float(math.Inf(1))}},
		{"time", []indexing.Value{indexing.Time(time.Time{}), indexing.Time(time.Unix(1, 5)),
			indexing.Time(time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range tt.values {
				require.Len(t, v.Encoding(), len(tt.values[0].Encoding()), "%s", v)
			}
		})
	}
}

func TestKindString(t *testing.T) {
	require.Equal(t, "invalid", indexing.KindInvalid.String())
	require.Equal(t, "time", indexing.KindTime.String())
	require.Equal(t, "Kind(42)", indexing.Kind(42).String())
}
