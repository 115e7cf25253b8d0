package relationships_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

// memList is a list as the tables hold it: entries by position and object, markers,
// and a head. apply commits a Change as a transaction would, checking its conditions.
type memList struct {
	head    relationships.Head
	entries map[string]Entry
	markers map[Key][]int
}

func newMemList() *memList {
	return &memList{
		head:    relationships.Head{Subject: subject, Predicate: predicate},
		entries: map[string]Entry{},
		markers: map[Key][]int{},
	}
}

// slotKey is an entry's primary key within the list: position, object type and id.
func slotKey(e Entry) string { return fmt.Sprint(e.Index, "\x00", e.Object.Type, "\x00", e.Object.ID) }

func (m *memList) list() []Entry {
	entries := slices.Collect(maps.Values(m.entries))
	slices.SortFunc(entries, func(a, b Entry) int { return a.Index - b.Index })
	return entries
}

func (m *memList) markersOf(objects []Key) map[Key]relationships.Marker {
	out := map[Key]relationships.Marker{}
	for _, o := range objects {
		out[o] = relationships.Marker{Object: o, Positions: slices.Clone(m.markers[o])}
	}
	return out
}

func (m *memList) apply(t *testing.T, c relationships.Change) {
	t.Helper()
	x := c.Expect
	require.Equal(t, x.Exists, m.head.Version > 0, "the head's existence")
	if x.Version > 0 {
		require.Equal(t, x.Version, m.head.Version, "the head's version")
	}
	if x.CheckNext {
		require.Equal(t, x.Next, m.head.Next, "the head's next free position")
	}
	if x.CheckDigest && x.Exists {
		require.True(t, x.Digest.Equal(m.head.Digest), "the digest of the list read")
	}
	for _, mc := range c.Markers {
		if mc.Check {
			require.Equal(t, mc.Expect, m.markers[mc.Object], "the marker of %v", mc.Object)
		}
	}
	for _, e := range c.Deletes {
		delete(m.entries, slotKey(e))
	}
	for _, e := range c.Puts {
		m.entries[slotKey(e)] = e
	}
	for _, mc := range c.Markers {
		if mc.Keep {
			continue
		}
		if len(mc.Positions) == 0 {
			delete(m.markers, mc.Object)
		} else {
			m.markers[mc.Object] = slices.Clone(mc.Positions)
		}
	}
	m.head.Version++
	if c.SetsNext() {
		m.head.Next = c.Next
	}
	if c.Commutative() {
		m.head.Count += c.CountDelta
		m.head.Digest = m.head.Digest.Add(c.DigestDelta)
	} else {
		m.head.Count, m.head.Digest = c.Count, c.Digest
	}
}

// check asserts that the head and markers describe the entries exactly.
func (m *memList) check(t *testing.T) {
	t.Helper()
	entries := m.list()
	require.Len(t, entries, m.head.Count, "the head's count")
	require.True(t, relationships.DigestOf(entries).Equal(m.head.Digest), "the head's digest")
	positions := map[int]bool{}
	want := map[Key][]int{}
	for _, e := range entries {
		require.Less(t, e.Index, m.head.Next, "next is above every position")
		require.False(t, positions[e.Index], "position %d is used twice", e.Index)
		positions[e.Index] = true
		want[e.Object] = append(want[e.Object], e.Index)
	}
	require.Equal(t, want, m.markers, "the markers")
}

func TestChangeAddAppendsEachNewObjectOnceAfterEveryEntry(t *testing.T) {
	m := newMemList()
	c := relationships.ChangeAdd(m.head, m.markersOf([]Key{A, B, A}), []Key{A, B, A})
	require.Equal(t, []Key{A, B}, c.Added)
	m.apply(t, c)
	m.check(t)

	c = relationships.ChangeAdd(m.head, m.markersOf([]Key{B, C}), []Key{B, C})
	require.Equal(t, []Key{C}, c.Added, "B is there already")
	require.Equal(t, relationships.HeadExpectation{Exists: true, Next: 2, CheckNext: true}, c.Expect,
		"an Add depends on the next free position, not on the version")
	m.apply(t, c)
	m.check(t)
	require.Equal(t, []Key{A, B, C}, objectsOf(m.list()))
	require.Equal(t, 3, m.head.Next)

	c = relationships.ChangeAdd(m.head, m.markersOf([]Key{A}), []Key{A})
	require.True(t, c.Empty())
	require.Empty(t, c.Added)
}

func TestChangeRemoveDeletesEveryEntryOfItsObjects(t *testing.T) {
	m := newMemList()
	m.apply(t, relationships.ChangeReplace(m.head, nil, []Key{A, B, A, C, A}))
	m.check(t)
	c := relationships.ChangeRemove(m.head, m.markersOf([]Key{A, X}), []Key{A, X, A})
	require.Equal(t, []Key{A}, c.Removed, "X is not there")
	require.True(t, c.Commutative())
	require.Len(t, c.Deletes, 3)
	m.apply(t, c)
	m.check(t)
	require.Equal(t, []Key{B, C}, objectsOf(m.list()))
	require.Equal(t, 5, m.head.Next, "removing frees no position for reuse")
}

func TestChangeReplaceLeavesExactlyTheListAndItsMarkers(t *testing.T) {
	m := newMemList()
	for _, objects := range [][]Key{{A, B, C}, {C, B, A}, {B2, B, B}, {}, {D, E, D, X}} {
		c := relationships.ChangeReplace(m.head, m.list(), objects)
		m.apply(t, c)
		m.check(t)
		require.Equal(t, objects, objectsOf(m.list()))
	}
}

func TestChangeReplaceReportsWhatItAddedAndRemoved(t *testing.T) {
	m := newMemList()
	m.apply(t, relationships.ChangeReplace(m.head, nil, []Key{A, B}))
	c := relationships.ChangeReplace(m.head, m.list(), []Key{B, C, C})
	require.Equal(t, []Key{C}, c.Added)
	require.Equal(t, []Key{A}, c.Removed)
}

func TestChangeReplaceExpectsTheDigestOfWhatItRead(t *testing.T) {
	m := newMemList()
	m.apply(t, relationships.ChangeReplace(m.head, nil, []Key{A, B}))
	stale := m.list()[:1] // a read that missed B
	c := relationships.ChangeReplace(m.head, stale, []Key{C})
	require.True(t, c.Expect.CheckDigest)
	require.False(t, c.Expect.Digest.Equal(m.head.Digest), "the stale read shows in the digest")
}

func TestReconcileRewritesMarkersThatDoNotMatch(t *testing.T) {
	entries := []Entry{at(0, A), at(1, B), at(4, A)}
	stored := []relationships.Marker{{Object: A, Positions: []int{0}}, {Object: C, Positions: []int{2}}, {Object: B, Positions: []int{1}}}
	got := relationships.Reconcile(entries, stored)
	require.Equal(t, []relationships.MarkerChange{
		{Object: A, Positions: []int{0, 4}},
		{Object: C},
	}, got)
}

// TestRandomChangesKeepTheHeadAndMarkersExact applies random sequences of Add, Remove
// and Replace and compares the list with a plain model after each.
func TestRandomChangesKeepTheHeadAndMarkersExact(t *testing.T) {
	pool := []Key{A, B, C, D, E, X, Y, B2}
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 7))
		m := newMemList()
		model := []Key{}
		for step := range 30 {
			objects := make([]Key, r.IntN(5))
			for i := range objects {
				objects[i] = pool[r.IntN(len(pool))]
			}
			switch r.IntN(3) {
			case 0:
				c := relationships.ChangeAdd(m.head, m.markersOf(objects), objects)
				m.apply(t, c)
				for _, o := range objects {
					if !slices.Contains(model, o) {
						model = append(model, o)
					}
				}
			case 1:
				if m.head.Version == 0 {
					continue // nothing to remove from a list never written
				}
				c := relationships.ChangeRemove(m.head, m.markersOf(objects), objects)
				m.apply(t, c)
				model = slices.DeleteFunc(model, func(o Key) bool { return slices.Contains(objects, o) })
			case 2:
				m.apply(t, relationships.ChangeReplace(m.head, m.list(), objects))
				model = append([]Key{}, objects...)
			}
			m.check(t)
			require.Equal(t, model, objectsOf(m.list()), "seed %d, step %d", seed, step)
		}
	}
}

func objectsOf(entries []Entry) []Key {
	objects := []Key{}
	for _, e := range entries {
		objects = append(objects, e.Object)
	}
	return objects
}

func TestHeadAndMarkerItemsRoundTrip(t *testing.T) {
	h := relationships.Head{Subject: subject, Predicate: predicate, Version: 7, Next: 12, Count: 3,
		Digest: relationships.DigestOf([]Entry{at(0, A), at(5, B)})}
	decoded, err := relationships.HeadFromItem(subject, predicate, headItem(h))
	require.NoError(t, err)
	require.Equal(t, h.Version, decoded.Version)
	require.Equal(t, h.Next, decoded.Next)
	require.Equal(t, h.Count, decoded.Count)
	require.True(t, h.Digest.Equal(decoded.Digest))

	none, err := relationships.HeadFromItem(subject, predicate, nil)
	require.NoError(t, err)
	require.Zero(t, none.Version)

	m, err := relationships.MarkerFromItem(A, relationships.MarkerItem(subject, predicate, A, []int{9, 2}))
	require.NoError(t, err)
	require.Equal(t, []int{2, 9}, m.Positions)
	empty, err := relationships.MarkerFromItem(A, nil)
	require.NoError(t, err)
	require.Empty(t, empty.Positions)
}

func TestDigestsAddUpAndTellListsApart(t *testing.T) {
	ab := relationships.DigestOf([]Entry{at(0, A), at(1, B)})
	require.True(t, ab.Equal(relationships.DigestOf([]Entry{at(1, B), at(0, A)})), "order does not matter")
	require.False(t, ab.Equal(relationships.DigestOf([]Entry{at(0, B), at(1, A)})), "positions do")
	require.False(t, ab.Equal(relationships.DigestOf([]Entry{at(0, A), at(1, B2)})), "scopes do")
	require.True(t, ab.Minus(at(1, B)).Equal(relationships.DigestOf([]Entry{at(0, A)})))
	require.True(t, relationships.Digest{}.Add(relationships.Delta([]Entry{at(0, A)}, nil)).Equal(relationships.DigestOf([]Entry{at(0, A)})))
	parsed, err := relationships.ParseDigest(ab.String())
	require.NoError(t, err)
	require.True(t, parsed.Equal(ab))
	_, err = relationships.ParseDigest("x")
	require.Error(t, err)
}

func headItem(h relationships.Head) map[string]types.AttributeValue {
	n := func(v any) types.AttributeValue { return &types.AttributeValueMemberN{Value: fmt.Sprint(v)} }
	return map[string]types.AttributeValue{
		schema.AttrVersion: n(h.Version), schema.AttrNext: n(h.Next), schema.AttrCount: n(h.Count), schema.AttrDigest: n(h.Digest),
	}
}

// TestAnAddPlannedBeforeARemoveStillCommits plans an Add, lets a Remove of another
// object commit, then commits the Add: its expectation (the next free position)
// still holds and the head stays exact. An Add planned before another Add does not
// hold: both would hand out the same positions.
func TestAnAddPlannedBeforeARemoveStillCommits(t *testing.T) {
	m := newMemList()
	m.apply(t, relationships.ChangeReplace(m.head, nil, []Key{A, B}))
	add := relationships.ChangeAdd(m.head, m.markersOf([]Key{C}), []Key{C})
	other := relationships.ChangeAdd(m.head, m.markersOf([]Key{D}), []Key{D})
	m.apply(t, relationships.ChangeRemove(m.head, m.markersOf([]Key{A}), []Key{A}))
	m.apply(t, add)
	m.check(t)
	require.Equal(t, []Key{B, C}, objectsOf(m.list()))
	require.NotEqual(t, m.head.Next, other.Expect.Next, "the other Add must read again")
}
