package ryno

import (
	"time"
)

// An entity written with an Expires time reads as missing from that second on,
// whether or not DynamoDB's time to live has removed its item yet. Readers hide it
// (hidden); a writer that meets it completes its deletion first, as it completes a
// Delete cut off half-way (stored.ending), so nothing that referred to it outlives
// it; writes that do not read the item first carry actions.NotExpired in their condition.

// validateExpiry checks an Expires time before any request: zero (no expiry), or a
// time DynamoDB's time to live can hold, after the Unix epoch and before year 10000.
func validateExpiry(field string, t time.Time) error {
	if t.IsZero() {
		return nil
	}
	if t.Unix() < 1 || t.UTC().Year() > 9999 {
		return invalid(field, t.UTC().Format(time.RFC3339), "must fall after 1970-01-01 and before year 10000")
	}
	return nil
}
