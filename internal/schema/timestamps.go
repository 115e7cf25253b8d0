package schema

import (
	"fmt"
	"strings"
	"time"
)

// TimeLayout is the layout of the _created and _updated attributes: UTC with exactly
// three fractional digits, as JavaScript's Date.toISOString writes it. Every value has
// the same width, so string order is time order, which the by-type index relies on.
// time.RFC3339Nano is not usable: it drops trailing zeros, so "05.1Z" sorts after
// "05.12Z" and "05Z" after "05.5Z" ('Z' follows '.' and the digits).
const TimeLayout = "2006-01-02T15:04:05.000Z"

// FormatTime returns t in UTC, truncated to milliseconds, in TimeLayout.
//
// The result is fixed width only for years 0 to 9999; the store formats its own clock
// readings, which are well inside. Use ValidateTime on times from elsewhere.
func FormatTime(t time.Time) string {
	return TruncateTime(t).Format(TimeLayout)
}

// ParseTime parses s, which must be exactly in TimeLayout, and returns a UTC time.
// Anything FormatTime would not have written, such as RFC 3339 without milliseconds
// or with an offset, is an error.
func ParseTime(s string) (time.Time, error) {
	t, err := time.Parse(TimeLayout, s)
	// The round trip rejects what time.Parse tolerates, such as ',' for '.'.
	if err != nil || t.Format(TimeLayout) != s {
		return time.Time{}, &ValidationError{Field: "timestamp", Value: s,
			Reason: "must be UTC in the form " + TimeLayout}
	}
	return t, nil
}

// ReadTime reads a timestamp an item holds: in TimeLayout, or in any other RFC 3339
// form another program may have written (the original JavaScript RynoDB, a hand
// edit in the console), such as 2019-01-01T00:00:00Z, one with an offset, or with
// more or fewer fractional digits. It returns the time as FormatTime would store it:
// in UTC, truncated to milliseconds. RFC 3339's lower-case t and z are read too.
// Anything else, or a year outside 1 to 9999 once in UTC, is an error naming s.
func ReadTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, strings.ToUpper(s))
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 time", s)
	}
	if err := ValidateTime(t); err != nil {
		return time.Time{}, fmt.Errorf("%q is outside years 1 to 9999 in UTC", s)
	}
	return TruncateTime(t), nil
}

// InLayout reports whether s is a time as FormatTime writes it. A stored time that
// is not is read with ReadTime, and written back in TimeLayout by the next write.
func InLayout(s string) bool {
	_, err := ParseTime(s)
	return err == nil
}

// TruncateTime returns what survives FormatTime and ParseTime: t in UTC, truncated to
// milliseconds, without a monotonic clock reading.
func TruncateTime(t time.Time) time.Time {
	return t.UTC().Truncate(time.Millisecond)
}

// ValidateTime reports whether t falls in years 1 to 9999 (UTC). FormatTime writes
// those at fixed width; a later year would take five digits and sort wrongly, and an
// earlier one (before Go's zero Time) is taken for a mistake.
func ValidateTime(t time.Time) error {
	if y := t.UTC().Year(); y < 1 || y > 9999 {
		return &ValidationError{Field: "timestamp", Value: t.UTC().String(),
			Reason: fmt.Sprintf("year %d is outside 1..9999", y)}
	}
	return nil
}
