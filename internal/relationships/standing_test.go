package relationships_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/relationships"
)

var now = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// headOf returns the exact head of entries at version v.
func headOf(v int64, entries ...Entry) relationships.Head {
	h := relationships.Head{Subject: subject, Predicate: predicate, Version: v, Count: len(entries), Digest: relationships.DigestOf(entries)}
	for _, e := range entries {
		h.Next = max(h.Next, e.Index+1)
	}
	return h
}

func markers(entries ...Entry) map[Key]relationships.Marker { return relationships.MarkersOf(entries) }

func TestInspect(t *testing.T) {
	l := list(A, B, C)
	leased := headOf(3, l...)
	leased.Lease, leased.LeaseUntil = "w", now.Add(time.Second)
	expired := leased
	expired.LeaseUntil = now.Add(-time.Second)
	intent := headOf(3, l...)
	intent.Intent = "w"
	stale := headOf(3, l[:2]...) // the head of before C was added
	tests := []struct {
		name    string
		h       relationships.Head
		markers map[Key]relationships.Marker
		entries []Entry
		whole   bool
		want    relationships.Standing
	}{
		{"exact markers", headOf(3, l...), markers(l[1]), nil, false, relationships.Clean},
		{"exact whole list", headOf(3, l...), nil, l, true, relationships.Clean},
		{"a list never written", relationships.Head{}, markers(), nil, false, relationships.Clean},
		{"a list written before heads", relationships.Head{}, nil, l, true, relationships.Clean},
		{"a live lease", leased, nil, l, true, relationships.Held},
		{"an expired lease", expired, nil, l, true, relationships.Left},
		{"an intent", intent, nil, l, true, relationships.Left},
		{"a marker past next", stale, markers(l[2]), nil, false, relationships.Doubtful},
		{"markers without a head", relationships.Head{}, markers(l[0]), nil, false, relationships.Doubtful},
		{"entries the head does not count", stale, nil, l, true, relationships.Doubtful},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var doubt relationships.Doubt
			require.Equal(t, tt.want, relationships.Inspect(tt.h, tt.markers, tt.entries, tt.whole, now, &doubt))
		})
	}
}

func TestTheSameContradictionReadTwiceIsADamagedList(t *testing.T) {
	l := list(A, B, C)
	stale := headOf(3, l[:2]...)
	var doubt relationships.Doubt
	require.Equal(t, relationships.Doubtful, relationships.Inspect(stale, nil, l, true, now, &doubt))
	require.Equal(t, relationships.Left, relationships.Inspect(stale, nil, l, true, now, &doubt), "same version, same entries")

	// A writer committing between two reads changes the head's version or the
	// entries: still doubtful, not damaged.
	doubt = relationships.Doubt{}
	require.Equal(t, relationships.Doubtful, relationships.Inspect(stale, nil, l, true, now, &doubt))
	newer := stale
	newer.Version++
	require.Equal(t, relationships.Doubtful, relationships.Inspect(newer, nil, l, true, now, &doubt))
	require.Equal(t, relationships.Doubtful, relationships.Inspect(newer, nil, append(l, at(3, D)), true, now, &doubt))
}

func TestDisagreement(t *testing.T) {
	l := list(A, B, A)
	exact := headOf(4, l...)
	m := func(entries ...Entry) []relationships.Marker {
		var out []relationships.Marker
		for _, mk := range relationships.MarkersOf(entries) {
			out = append(out, mk)
		}
		return out
	}
	leased, expired, intent := exact, exact, exact
	leased.Lease, leased.LeaseUntil = "w", now.Add(time.Minute)
	expired.Lease, expired.LeaseUntil = "w", now.Add(-time.Minute)
	intent.Lease, intent.LeaseUntil, intent.Intent = "w", now.Add(-time.Minute), "w"
	counted := exact
	counted.Count = 2
	digest := exact
	digest.Digest = relationships.DigestOf(l[:1])
	next := exact
	next.Next = 2
	waiting, left := exact, exact
	waiting.Waiting = []relationships.Request{{ID: "w", Objects: []Key{B}, Posted: now.Add(-time.Second)}}
	waiting.Done = map[string]relationships.Done{"d": {At: now.Add(-time.Second)}}
	left.Waiting = []relationships.Request{{ID: "w", Objects: []Key{B}, Posted: now.Add(-relationships.RequestTTL - time.Second)}}
	left.Done = map[string]relationships.Done{"d": {At: now.Add(-relationships.RequestTTL - time.Second)}}
	tests := []struct {
		name    string
		h       relationships.Head
		entries []Entry
		markers []relationships.Marker
		intents int
		want    string // a part of the description; "" for none
	}{
		{"exact", exact, l, m(l...), 0, ""},
		{"writers waiting on the head, or about to take their results", waiting, l, m(l...), 0, ""},
		{"requests and results left by writers cut off", left, l, m(l...), 0, "2 requests or results of combined writes are left"},
		{"a writer at work", leased, l[:1], nil, 1, ""},
		{"a list never written", relationships.Head{}, nil, nil, 0, ""},
		{"a lease left", expired, l, m(l...), 0, "left its lease"},
		{"an intent left", intent, l, m(l...), 1, "its intent"},
		{"intent parts left", exact, l, m(l...), 2, "2 intent part"},
		{"no head", relationships.Head{}, l, nil, 0, "no head"},
		{"count", counted, l, m(l...), 0, "counts 2 entries, the list holds 3"},
		{"digest", digest, l, m(l...), 0, "digest"},
		{"next", next, l, m(l...), 0, "hands out position 2"},
		{"a position held twice", headOf(4, at(0, A), at(0, B)), []Entry{at(0, A), at(0, B)}, m(at(0, A), at(0, B)), 0, "position 0 is held twice"},
		{"a marker missing", exact, l, m(l[1]), 0, "2 objects have entries, 1 have markers"},
		{"a marker wrong", exact, l, m(l[0], l[1]), 0, "holds [0], its entries are at [0 2]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := relationships.Disagreement(tt.h, tt.entries, tt.markers, tt.intents, now)
			if tt.want == "" {
				require.Empty(t, got)
				return
			}
			require.Contains(t, got, tt.want)
		})
	}
}

func TestInOrderAndDuplicatePositions(t *testing.T) {
	shared := []Entry{at(2, C), at(0, B), at(0, A), at(1, D)}
	require.True(t, relationships.DuplicatePositions(shared))
	require.False(t, relationships.DuplicatePositions(list(A, B, A)))
	require.Equal(t, []Key{A, B, D, C}, relationships.InOrder(shared), "by position, then by key")
}
