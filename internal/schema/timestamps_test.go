package schema_test

import (
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/schema"
)

func TestFormatTime(t *testing.T) {
	plus2 := time.FixedZone("UTC+2", 2*60*60)
	tests := []struct {
		name string
		in   time.Time
		want string
	}{
		{"zero milliseconds keep their digits",
			time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), "2024-01-02T03:04:05.000Z"},
		{"milliseconds",
			time.Date(2024, 1, 2, 3, 4, 5, 120_000_000, time.UTC), "2024-01-02T03:04:05.120Z"},
		{"sub-millisecond part truncated, not rounded",
			time.Date(2024, 1, 2, 3, 4, 5, 999_999_999, time.UTC), "2024-01-02T03:04:05.999Z"},
		{"offset converted to UTC",
			time.Date(2024, 1, 1, 1, 0, 0, 0, plus2), "2023-12-31T23:00:00.000Z"},
		{"year 1", time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), "0001-01-01T00:00:00.000Z"},
		{"year 9999", time.Date(9999, 12, 31, 23, 59, 59, 999_000_000, time.UTC), "9999-12-31T23:59:59.999Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := schema.FormatTime(tt.in)
			require.Equal(t, tt.want, got)
			require.Len(t, got, len(schema.TimeLayout))
		})
	}
}

func TestTimeRoundTrip(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*60*60)
	times := []time.Time{
		time.Date(2024, 2, 29, 12, 0, 0, 0, time.UTC),
		time.Date(2024, 2, 29, 12, 0, 0, 1_500_000, time.UTC),
		time.Date(1970, 1, 1, 0, 0, 0, 0, tokyo),
		time.Now(), // carries a monotonic reading and nanoseconds
	}
	for _, in := range times {
		t.Run(in.String(), func(t *testing.T) {
			got, err := schema.ParseTime(schema.FormatTime(in))
			require.NoError(t, err)
			want := schema.TruncateTime(in)
			require.Equal(t, want, got) // same instant, location and no monotonic reading
			require.Equal(t, time.UTC, got.Location())
			require.True(t, in.Sub(got) >= 0 && in.Sub(got) < time.Millisecond)
		})
	}
}

func TestFormatTimeSortsInTimeOrder(t *testing.T) {
	base := time.Date(2024, 12, 31, 23, 59, 59, 0, time.UTC)
	times := []time.Time{
		time.Date(999, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC),
		base,
		base.Add(time.Millisecond),
		base.Add(10 * time.Millisecond),
		base.Add(100 * time.Millisecond),
		base.Add(120 * time.Millisecond),
		base.Add(999 * time.Millisecond),
		base.Add(time.Second), // crosses into a new year
		base.Add(time.Second + time.Millisecond),
		time.Date(9999, 12, 31, 23, 59, 59, 999_000_000, time.UTC),
	}
	formatted := make([]string, len(times))
	for i, tm := range times {
		formatted[i] = schema.FormatTime(tm)
	}
	require.True(t, sort.StringsAreSorted(formatted), "not in time order: %q", formatted)

	// The reason for the fixed layout: RFC3339Nano would put these out of order.
	require.Greater(t,
		base.Format(time.RFC3339Nano), base.Add(100*time.Millisecond).Format(time.RFC3339Nano))
}

func TestParseTimeRejects(t *testing.T) {
	tests := []struct {
		name, in string
	}{
		{"empty", ""},
		{"RFC 3339 without milliseconds", "2024-01-02T03:04:05Z"},
		{"microseconds", "2024-01-02T03:04:05.000000Z"},
		{"one fractional digit", "2024-01-02T03:04:05.1Z"},
		{"offset instead of Z", "2024-01-02T03:04:05.000+00:00"},
		{"lower case z", "2024-01-02T03:04:05.000z"},
		{"comma decimal separator", "2024-01-02T03:04:05,000Z"},
		{"space instead of T", "2024-01-02 03:04:05.000Z"},
		{"no zone", "2024-01-02T03:04:05.000"},
		{"trailing text", "2024-01-02T03:04:05.000Zx"},
		{"invalid day", "2024-02-30T03:04:05.000Z"},
		{"hour 24", "2024-01-02T24:00:00.000Z"},
		{"five-digit year", "12024-01-02T03:04:05.000Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := schema.ParseTime(tt.in)
			requireInvalid(t, err, "timestamp")
		})
	}
}

func TestValidateTime(t *testing.T) {
	tests := []struct {
		name string
		in   time.Time
		ok   bool
	}{
		{"now", time.Now(), true},
		{"year 1", time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{"year 9999", time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), true},
		{"zero time is year 1", time.Time{}, true},
		{"year 0", time.Date(0, 12, 31, 0, 0, 0, 0, time.UTC), false},
		{"year 10000", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{"year 10000 only in UTC", time.Date(9999, 12, 31, 23, 0, 0, 0, time.FixedZone("W", -2*60*60)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := schema.ValidateTime(tt.in)
			if tt.ok {
				require.NoError(t, err)
				return
			}
			requireInvalid(t, err, "timestamp")
		})
	}
}

func TestReadTime(t *testing.T) {
	at := time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name, in string
		want     time.Time
		inLayout bool
	}{
		{"the store's layout", "2019-01-01T00:00:00.000Z", at, true},
		{"whole seconds, as the original store wrote them", "2019-01-01T00:00:00Z", at, false},
		{"an offset", "2019-01-01T01:30:00+01:30", at, false},
		{"an offset of zero", "2019-01-01T00:00:00+00:00", at, false},
		{"fewer fractional digits", "2019-01-01T00:00:00.5Z", at.Add(500 * time.Millisecond), false},
		{"more, truncated", "2019-01-01T00:00:00.123987Z", at.Add(123 * time.Millisecond), false},
		{"a comma for the point", "2019-01-01T00:00:00,250Z", at.Add(250 * time.Millisecond), false},
		{"lower-case t and z", "2019-01-01t00:00:00.000z", at, false},
		{"year 1 in UTC", "0001-01-01T00:00:00Z", time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := schema.ReadTime(tt.in)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
			require.Equal(t, time.UTC, got.Location())
			require.Equal(t, tt.inLayout, schema.InLayout(tt.in))
		})
	}
	for _, bad := range []string{"", "yesterday", "2019-01-01", "2019-01-01 00:00:00Z", "2019-01-01T00:00:00",
		"2019-01-01T24:00:00Z", "10000-01-01T00:00:00Z", "0001-01-01T00:00:00+01:00", "9999-12-31T23:00:00-01:00"} {
		t.Run(bad, func(t *testing.T) {
			_, err := schema.ReadTime(bad)
			require.ErrorContains(t, err, strconv.Quote(bad))
			require.False(t, schema.InLayout(bad))
		})
	}
}
