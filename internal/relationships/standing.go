package relationships

import (
	"fmt"
	"slices"
	"time"

	"github.com/rynodb/rynodb/entity"
)

// Standing is what a writer finds on a list before it plans against the head and
// markers it read.
type Standing int

const (
	// Clean: the bookkeeping read may be planned against.
	Clean Standing = iota
	// Held: another writer holds the list under a live lease.
	Held
	// Left: a writer was cut off (its lease expired, or its intent is recorded), or
	// the bookkeeping contradicts the entries as read twice. What was left must be
	// finished and the head and markers rebuilt from the entries before any plan.
	Left
	// Doubtful: the bookkeeping contradicts what was read, which a writer committing
	// between the reads can explain. Read again.
	Doubtful
)

// Doubt remembers a contradiction between a head and the entries or markers read
// with it, so that the same contradiction read again, with the head unchanged, is
// known for a damaged list rather than a race.
type Doubt struct {
	seen    bool
	version int64
	digest  Digest
}

// Inspect returns the standing of a list whose head h was read at now with the
// markers of some objects, or with its whole list when whole (entries then holds
// every entry). A contradiction is Doubtful the first time and Left when doubt shows
// it was read before with the same head version and entries.
//
// The reads are not atomic: a writer committing between them makes markers or
// entries newer than the head read. Positions only grow and every commit bumps the
// head's version, so a later read that finds the same version and the same entries
// cannot be explained by a writer.
func Inspect(h Head, markers map[entity.Key]Marker, entries []Entry, whole bool, now time.Time, doubt *Doubt) Standing {
	switch {
	case h.Leased(now):
		return Held
	case h.Lease != "" || h.Intent != "":
		return Left
	}
	var digest Digest
	if whole {
		digest = DigestOf(entries)
	}
	if !contradicts(h, markers, entries, whole, digest) {
		return Clean
	}
	if doubt.seen && doubt.version == h.Version && doubt.digest.Equal(digest) {
		return Left
	}
	*doubt = Doubt{seen: true, version: h.Version, digest: digest}
	return Doubtful
}

// contradicts reports whether h disagrees with what was read with it: a marker or
// an entry at or past the next free position, markers of a list without a head, or
// for a whole list, another count or digest.
func contradicts(h Head, markers map[entity.Key]Marker, entries []Entry, whole bool, digest Digest) bool {
	if h.Version == 0 {
		for _, m := range markers {
			if len(m.Positions) > 0 {
				return true
			}
		}
		return false // a list written before heads: a replace writes its head
	}
	for _, m := range markers {
		for _, p := range m.Positions {
			if p >= h.Next {
				return true
			}
		}
	}
	if !whole {
		return false
	}
	for _, e := range entries {
		if e.Index >= h.Next {
			return true
		}
	}
	return len(entries) != h.Count || !digest.Equal(h.Digest)
}

// Disagreement describes how the bookkeeping of a list (its head h, its markers and
// the intent parts left in its partition) disagrees with its entries at now: a
// writer cut off, a count, digest or next free position that does not describe the
// entries, a position held twice, a marker that does not hold its object's
// positions, requests or results of combined writes older than RequestTTL on the
// head. It returns "" for bookkeeping that describes the entries exactly, and for
// a list a writer holds under a live lease: that writer is at work.
func Disagreement(h Head, entries []Entry, markers []Marker, intents int, now time.Time) string {
	switch {
	case h.Leased(now):
		return ""
	case h.Lease != "" && h.Intent != "":
		return fmt.Sprintf("a writer cut off left its lease (expired %s) and its intent to finish", h.LeaseUntil.UTC().Format(time.RFC3339))
	case h.Lease != "":
		return fmt.Sprintf("a writer cut off left its lease (expired %s)", h.LeaseUntil.UTC().Format(time.RFC3339))
	case intents > 0:
		return fmt.Sprintf("%d intent part(s) of writers cut off are left", intents)
	case h.Version == 0 && len(entries)+len(markers) > 0:
		return fmt.Sprintf("%d entries and %d markers but no head", len(entries), len(markers))
	case h.Version == 0:
		return ""
	case len(entries) != h.Count:
		return fmt.Sprintf("the head counts %d entries, the list holds %d", h.Count, len(entries))
	case !DigestOf(entries).Equal(h.Digest):
		return "the head's digest is not that of the entries"
	}
	held := map[int]bool{}
	for _, e := range entries {
		switch {
		case e.Index >= h.Next:
			return fmt.Sprintf("the head hands out position %d, which an entry holds", h.Next)
		case held[e.Index]:
			return fmt.Sprintf("position %d is held twice", e.Index)
		}
		held[e.Index] = true
	}
	want := MarkersOf(entries)
	got := 0
	for _, m := range markers {
		if len(m.Positions) == 0 {
			continue
		}
		got++
		if !slices.Equal(m.Positions, want[m.Object].Positions) {
			return fmt.Sprintf("the marker of %s holds %v, its entries are at %v", m.Object, m.Positions, want[m.Object].Positions)
		}
	}
	if got != len(want) {
		return fmt.Sprintf("%d objects have entries, %d have markers", len(want), got)
	}
	if left := Expired(h, now); len(left) > 0 {
		return fmt.Sprintf("%d requests or results of combined writes are left by writers cut off (older than %s)", len(left), RequestTTL)
	}
	return ""
}

// DuplicatePositions reports whether two entries of a list share a position (a
// list damaged by a writer before positions were allocated under the head).
func DuplicatePositions(entries []Entry) bool {
	held := make(map[int]bool, len(entries))
	for _, e := range entries {
		if held[e.Index] {
			return true
		}
		held[e.Index] = true
	}
	return false
}

// InOrder returns the objects of a list's entries in list order: by position, then
// by key among entries sharing one.
func InOrder(entries []Entry) []entity.Key {
	sorted := sortedUnique(entries)
	objects := make([]entity.Key, len(sorted))
	for i, e := range sorted {
		objects[i] = e.Object
	}
	return objects
}
