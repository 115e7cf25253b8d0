package relationships

import (
	"maps"
	"math/big"
	"slices"
	"time"

	"github.com/rynodb/rynodb/entity"
)

// Change is what one write of a list commits, head and markers included: the entries
// to put and delete, the markers that change (with what each must hold when the
// write commits), and the head after the write. Apply it in one transaction, or
// under a lease on the list.
type Change struct {
	Subject   entity.Key
	Predicate string
	Puts      []Entry // entries to write, in list order
	Deletes   []Entry // entries to delete
	Markers   []MarkerChange

	// Expect is how the head must stand for the change to commit.
	Expect HeadExpectation
	// The head after the change. With Expect.Version set, or no head, the change
	// sets them; a commutative change (Expect.Version 0 and a head that exists)
	// adds CountDelta and DigestDelta instead, without knowing the stored values,
	// and an Add (Expect.CheckNext) also sets Next.
	Next        int
	Count       int
	Digest      Digest
	CountDelta  int
	DigestDelta *big.Int

	// Added and Removed are the objects the change adds to the list or removes from
	// it: what a caller counting edges needs.
	Added, Removed []entity.Key

	// Applied are the requests waiting on the head that the change commits, and
	// Prune the attributes of requests and results left there too long (see
	// Request). At is when the results are recorded (the client's clock).
	Applied []Applied
	Prune   []string
	At      time.Time
}

// Combined reports whether the change commits requests waiting on the head.
func (c Change) Combined() bool { return len(c.Applied) > 0 || len(c.Prune) > 0 }

// Empty reports whether the change writes no entry.
func (c Change) Empty() bool { return len(c.Puts) == 0 && len(c.Deletes) == 0 }

// Commutative reports whether the change adds to the head's count and digest
// instead of setting them: it does not depend on the head's version.
func (c Change) Commutative() bool { return c.Expect.Version == 0 && c.Expect.Exists }

// SetsNext reports whether the change sets the head's next free position.
func (c Change) SetsNext() bool { return !c.Commutative() || c.Expect.CheckNext }

// HeadExpectation is what a write of a list requires of its head.
type HeadExpectation struct {
	// Exists says a head must exist; with Version 0 that is all (a commutative
	// change). Without Exists, no head may exist: the list was never written.
	Exists bool
	// Version, when not 0, is the version the head must still have.
	Version int64
	// Next, when CheckNext, is the next free position the head must still have: an
	// Add depends on nothing else of the head, so a Remove or a sweep committing in
	// between (which add to the count and digest, and hand out no position) leaves
	// its plan right, and only writers handing out positions make it read again.
	Next      int
	CheckNext bool
	// Digest, when CheckDigest, is the digest the head must still have: the digest
	// of the entries the writer read, so that the read was the whole list as it is.
	Digest      Digest
	CheckDigest bool
	// Pinned says the head must still have version Pin (0: no head), though the
	// change may not depend on it otherwise: the caller requires the list it read
	// (a conditional write). It changes nothing of what the change sets or adds.
	Pin    int64
	Pinned bool
}

// PinTo makes c require the head h it was planned against: its version, or no
// head when h is the head of a list never written.
func (c *Change) PinTo(h Head) {
	c.Expect.Pin, c.Expect.Pinned = h.Version, true
	if h.Version == 0 {
		c.Expect.Exists = false // a Remove of a list never written requires no head
	}
}

// MarkerChange changes the marker of one object, or with Keep only checks it.
type MarkerChange struct {
	Object entity.Key
	// Check makes Expect a condition of the write: the marker holds exactly those
	// positions, or none when Expect is empty.
	Check  bool
	Expect []int
	// Keep leaves the marker as it is: the write only relies on it (an Add skipping
	// an object already there, a Remove of an object that is not).
	Keep bool
	// Positions are the object's positions after the change; none deletes the
	// marker.
	Positions []int
}

// expectOf returns the head expectation of a write that read h and depends on it.
func expectOf(h Head) HeadExpectation {
	return HeadExpectation{Exists: h.Version > 0, Version: h.Version}
}

// ChangeAdd returns the change that appends to the list of head h each of objects it
// does not hold, in order, at positions from h.Next. markers holds the marker of
// each object (absent ones have no positions); objects repeated are added once. The
// change requires the head's next free position and every object's marker to be as
// read, so that no object is added twice, none is skipped that is not there, no
// position is handed out twice, and every position added comes after every entry.
// On a head that exists it adds to the count and digest, so that Removes and sweeps
// committing meanwhile do not make it read again.
func ChangeAdd(h Head, markers map[entity.Key]Marker, objects []entity.Key) Change {
	expect := HeadExpectation{Exists: h.Version > 0, Next: h.Next, CheckNext: h.Version > 0}
	c := Change{Subject: h.Subject, Predicate: h.Predicate, Expect: expect, Next: h.Next}
	seen := make(map[entity.Key]bool, len(objects))
	for _, o := range objects {
		if seen[o] {
			continue
		}
		seen[o] = true
		if present := markers[o].Positions; len(present) > 0 {
			c.Markers = append(c.Markers, MarkerChange{Object: o, Check: true, Expect: present, Keep: true, Positions: present})
			continue
		}
		e := Entry{Subject: h.Subject, Predicate: h.Predicate, Index: c.Next, Object: o}
		c.Next++
		c.Puts = append(c.Puts, e)
		c.Markers = append(c.Markers, MarkerChange{Object: o, Check: true, Positions: []int{e.Index}})
		c.Added = append(c.Added, o)
	}
	c.Count = h.Count + len(c.Puts)
	c.Digest = h.Digest.Plus(c.Puts...)
	c.CountDelta = len(c.Puts)
	c.DigestDelta = Delta(c.Puts, nil)
	return c
}

// ChangeRemove returns the change that deletes every entry of each of objects from
// the list of head h, as markers place them. It requires each marker to hold the
// positions read (none for an object not there), so that exactly the entries
// present when it commits are deleted.
// It adds to the head's count and digest rather than setting them, so it does not
// depend on the head's version.
func ChangeRemove(h Head, markers map[entity.Key]Marker, objects []entity.Key) Change {
	c := Change{Subject: h.Subject, Predicate: h.Predicate, Expect: HeadExpectation{Exists: true}}
	seen := make(map[entity.Key]bool, len(objects))
	for _, o := range objects {
		if seen[o] {
			continue
		}
		seen[o] = true
		positions := markers[o].Positions
		if len(positions) == 0 {
			c.Markers = append(c.Markers, MarkerChange{Object: o, Check: true, Keep: true})
			continue
		}
		for _, p := range positions {
			c.Deletes = append(c.Deletes, Entry{Subject: h.Subject, Predicate: h.Predicate, Index: p, Object: o})
		}
		c.Markers = append(c.Markers, MarkerChange{Object: o, Check: true, Expect: positions})
		c.Removed = append(c.Removed, o)
	}
	c.CountDelta = -len(c.Deletes)
	c.DigestDelta = Delta(nil, c.Deletes)
	return c
}

// ChangeReplace returns the change after which the list of head h is exactly
// objects, in order, given the list's entries as read (in any order). It writes only
// the difference (see PlanReplace) and rewrites the markers of the objects whose
// positions change. It requires the head's version and the digest of the entries
// read, so it commits only if the read was the whole list as it stands.
func ChangeReplace(h Head, entries []Entry, objects []entity.Key) Change {
	plan := PlanReplace(h.Subject, h.Predicate, entries, objects)
	after := applyPlan(entries, plan)
	c := Change{
		Subject: h.Subject, Predicate: h.Predicate, Puts: plan.Puts, Deletes: plan.Deletes,
		Expect: expectOf(h), Next: h.Next, Count: len(after), Digest: DigestOf(after),
	}
	c.Expect.Digest, c.Expect.CheckDigest = DigestOf(entries), true
	for _, e := range after {
		c.Next = max(c.Next, e.Index+1)
	}
	before, now := positionsOf(entries), positionsOf(after)
	if h.Version == 0 {
		before = nil // a list never written through a head has no markers yet
	}
	c.Markers = markerChanges(before, now)
	for _, o := range slices.SortedFunc(maps.Keys(now), compareObjects) {
		if len(before[o]) == 0 {
			c.Added = append(c.Added, o)
		}
	}
	for _, o := range slices.SortedFunc(maps.Keys(before), compareObjects) {
		if len(now[o]) == 0 {
			c.Removed = append(c.Removed, o)
		}
	}
	return c
}

// Reconcile returns the markers that bring the markers read (stored) in line with
// the list's entries: for a writer holding the list after another was cut off
// half-way, when the markers may not match the entries.
func Reconcile(entries []Entry, stored []Marker) []MarkerChange {
	before := make(map[entity.Key][]int, len(stored))
	for _, m := range stored {
		before[m.Object] = m.Positions
	}
	return markerChanges(before, positionsOf(entries))
}

// Apply returns the entries of a list after c, given its entries before.
func Apply(entries []Entry, c Change) []Entry {
	return applyPlan(entries, Plan{Puts: c.Puts, Deletes: c.Deletes})
}

// MarkersOf returns the markers the entries of one list call for, by object.
func MarkersOf(entries []Entry) map[entity.Key]Marker {
	markers := make(map[entity.Key]Marker)
	for o, p := range positionsOf(entries) {
		markers[o] = Marker{Object: o, Positions: p}
	}
	return markers
}

// applyPlan returns the entries of a list after plan: the puts, and the entries it
// neither deletes nor overwrites.
func applyPlan(entries []Entry, plan Plan) []Entry {
	gone := make(map[slot]bool, len(plan.Puts)+len(plan.Deletes))
	for _, e := range plan.Deletes {
		gone[slotOf(e)] = true
	}
	for _, e := range plan.Puts {
		gone[slotOf(e)] = true
	}
	after := slices.Clone(plan.Puts)
	for _, e := range sortedUnique(entries) {
		if !gone[slotOf(e)] {
			after = append(after, e)
		}
	}
	slices.SortFunc(after, compareKeys)
	return after
}

// positionsOf returns the positions of each object's entries, sorted.
func positionsOf(entries []Entry) map[entity.Key][]int {
	positions := make(map[entity.Key][]int)
	for _, e := range entries {
		positions[e.Object] = append(positions[e.Object], e.Index)
	}
	for _, p := range positions {
		slices.Sort(p)
	}
	return positions
}

// markerChanges returns the unchecked marker changes from before to now, for each
// object whose positions differ, in object order.
func markerChanges(before, now map[entity.Key][]int) []MarkerChange {
	objects := slices.Collect(maps.Keys(now))
	for o := range before {
		if _, ok := now[o]; !ok {
			objects = append(objects, o)
		}
	}
	slices.SortFunc(objects, compareObjects)
	var changes []MarkerChange
	for _, o := range objects {
		if !slices.Equal(before[o], now[o]) {
			changes = append(changes, MarkerChange{Object: o, Positions: now[o]})
		}
	}
	return changes
}

func compareObjects(a, b entity.Key) int {
	if a.String() < b.String() {
		return -1
	}
	if a.String() > b.String() {
		return 1
	}
	return 0
}
