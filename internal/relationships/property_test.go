package relationships_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

// requireReplaces asserts what every PlanReplace must hold: the plan is sound, it
// turns existing into exactly objects, in order, and it writes nothing that is
// already there.
func requireReplaces(t testing.TB, existing []Entry, objects []Key) Plan {
	t.Helper()
	p := relationships.PlanReplace(subject, predicate, existing, objects)
	requireSound(t, existing, p)
	if after := relationships.Objects(apply(t, existing, p)); !slices.Equal(after, objects) {
		require.Equal(t, objects, after, "the list after the plan")
	}
	stored := make(map[string]Entry, len(existing))
	for _, e := range existing {
		stored[primaryKey(e)] = e
	}
	for _, put := range p.Puts {
		if e, found := stored[primaryKey(put)]; found && e.Object == put.Object {
			require.Failf(t, "put rewrites an entry unchanged", "%+v", put)
		}
	}
	return p
}

// pool returns the objects a random list draws from: few, so that lists repeat
// them, including two that differ in scope only.
func pool(r *rand.Rand) []Key {
	keys := []Key{A, B, B2, C, D, E, X, Y, {Scope: "acme", Type: "film", ID: "a"}}
	return keys[:1+r.IntN(len(keys))]
}

// randomList returns a list of up to maxLen objects drawn from keys.
func randomList(r *rand.Rand, keys []Key, maxLen int) []Key {
	objects := make([]Key, r.IntN(maxLen+1))
	for i := range objects {
		objects[i] = keys[r.IntN(len(keys))]
	}
	return objects
}

// randomEntries places objects at random indexes, in one of several layouts:
// dense, sparse, at the top of the index range, or with repeated indexes (which
// concurrent writers can leave behind).
func randomEntries(r *rand.Rand, objects []Key) []Entry {
	n := len(objects)
	var indexes []int
	switch r.IntN(4) {
	case 0:
		indexes = seq(0, n)
	case 1:
		indexes = distinct(r, 0, 3*n+2, n)
	case 2:
		indexes = distinct(r, maxIndex-2*n-2, maxIndex, n)
	default:
		for range n {
			indexes = append(indexes, r.IntN(n))
		}
	}
	entries := make([]Entry, n)
	for i, o := range objects {
		entries[i] = at(indexes[i], o)
	}
	relationships.Sort(entries)
	return slices.CompactFunc(entries, func(a, b Entry) bool { return primaryKey(a) == primaryKey(b) })
}

func seq(from, to int) []int {
	s := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		s = append(s, i)
	}
	return s
}

// distinct returns n distinct sorted integers from lo to hi.
func distinct(r *rand.Rand, lo, hi, n int) []int {
	picked := make(map[int]bool, n)
	for len(picked) < n {
		picked[lo+r.IntN(hi-lo+1)] = true
	}
	s := make([]int, 0, n)
	for i := range picked {
		s = append(s, i)
	}
	slices.Sort(s)
	return s
}

// edit returns objects changed by a few random insertions, deletions and moves, as
// a new list usually is.
func edit(r *rand.Rand, objects, keys []Key) []Key {
	out := slices.Clone(objects)
	for range r.IntN(4) {
		switch i := r.IntN(len(out) + 1); {
		case r.IntN(3) == 0:
			out = slices.Insert(out, i, keys[r.IntN(len(keys))])
		case i < len(out) && r.IntN(2) == 0:
			out = slices.Delete(out, i, i+1)
		case i < len(out):
			o := out[i]
			out = slices.Delete(out, i, i+1)
			out = slices.Insert(out, r.IntN(len(out)+1), o)
		}
	}
	return out
}

func TestPlanReplaceRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(2017, 42))
	for i := range 5000 {
		keys := pool(r)
		existing := randomEntries(r, randomList(r, keys, 14))
		objects := randomList(r, keys, 14)
		if r.IntN(2) == 0 {
			objects = edit(r, relationships.Objects(existing), keys)
		}
		if len(objects) == 0 {
			objects = nil
		}
		requireReplaces(t, existing, objects)
		if t.Failed() {
			t.Fatalf("case %d: existing %+v, objects %+v", i, existing, objects)
		}
	}
}

// TestPlanReplaceKeepsMost compares, on small lists, the number of entries a plan
// leaves untouched with the best any numbering of the new list can do, found by
// trying them all.
func TestPlanReplaceKeepsMost(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for range 400 {
		keys := pool(r)
		objects := randomList(r, keys, 5)
		existing := make([]Entry, 0, 5)
		for _, o := range randomList(r, keys, 5) {
			existing = append(existing, at(r.IntN(9), o))
		}
		existing = slices.CompactFunc(sorted(existing), func(a, b Entry) bool { return primaryKey(a) == primaryKey(b) })

		p := requireReplaces(t, existing, objects)
		require.Equal(t, mostKept(t, existing, objects), len(objects)-len(p.Puts),
			"existing %+v, objects %+v, plan %+v", existing, objects, p)
	}
}

func sorted(entries []Entry) []Entry {
	relationships.Sort(entries)
	return entries
}

// mostKept returns the largest number of positions of objects that any strictly
// increasing numbering puts exactly where an existing entry holds that object
// (the same scope too: another scope at the same key is overwritten, not kept).
// Existing indexes are below 9, so numberings up to 9+len(objects) cover them all.
func mostKept(t *testing.T, existing []Entry, objects []Key) int {
	held := make(map[string]Key, len(existing))
	for _, e := range existing {
		held[primaryKey(e)] = e.Object
	}
	best := 0
	var try func(j, from, kept int)
	try = func(j, from, kept int) {
		if j == len(objects) {
			best = max(best, kept)
			return
		}
		for i := from; i <= 9+len(objects); i++ {
			k := kept
			if o, found := held[primaryKey(at(i, objects[j]))]; found && o == objects[j] {
				k++
			}
			try(j+1, i+1, k)
		}
	}
	try(0, 0, 0)
	return best
}

func TestPlanReplaceLargeLists(t *testing.T) {
	const size = 10_000
	r := rand.New(rand.NewPCG(3, 5))
	distinctObjects := make([]Key, size)
	for i := range distinctObjects {
		distinctObjects[i] = Key{Scope: "acme", Type: "book", ID: schema.FormatIndex(i)}
	}
	spaced := func(objects []Key, gap int) []Entry {
		entries := make([]Entry, len(objects))
		for i, o := range objects {
			entries[i] = at(i*gap, o)
		}
		return entries
	}

	t.Run("few edits in a spaced list write little", func(t *testing.T) {
		existing := spaced(distinctObjects, 10)
		objects := slices.Clone(distinctObjects)
		const edits = 100
		for i := range edits {
			j := r.IntN(len(objects))
			if i%2 == 0 {
				objects = slices.Insert(objects, j, Key{Scope: "new", Type: "book", ID: schema.FormatIndex(i)})
			} else {
				objects = slices.Delete(objects, j, j+1)
			}
		}
		p := requireReplaces(t, existing, objects)
		require.LessOrEqual(t, len(p.Puts)+len(p.Deletes), edits)
	})
	t.Run("reversed", func(t *testing.T) {
		objects := slices.Clone(distinctObjects)
		slices.Reverse(objects)
		requireReplaces(t, list(distinctObjects...), objects)
	})
	t.Run("shuffled", func(t *testing.T) {
		objects := slices.Clone(distinctObjects)
		r.Shuffle(len(objects), func(i, j int) { objects[i], objects[j] = objects[j], objects[i] })
		requireReplaces(t, spaced(distinctObjects, 3), objects)
	})
	t.Run("one object repeated past the match bound", func(t *testing.T) {
		same := slices.Repeat([]Key{A}, 1200)
		// 1200*1201 matches: the list is renumbered from 0, keeping the entries in place.
		p := requireReplaces(t, list(same...), append([]Key{A}, same...))
		require.Equal(t, []Entry{at(1200, A)}, p.Puts)
	})
}

func FuzzPlanReplace(f *testing.F) {
	f.Add([]byte{3, 0, 1, 1, 2, 2, 3, 0, 3, 1, 2, 0, 1})
	f.Add([]byte{4, 0, 0, 1, 0, 2, 0, 3, 0, 7, 0, 1, 2, 3})
	f.Add([]byte{2, 255, 1, 0, 2, 1, 2, 1, 2})
	keys := []Key{A, B, B2, C, D}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Long inputs add time, not cases: the large list tests cover size.
		existing, objects := decodeScenario(data[:min(len(data), 1024)], keys)
		requireReplaces(t, existing, objects)
	})
}

// decodeScenario reads a list of entries and a new list from fuzz input: a count
// n, n pairs (index step, object), then one object per byte. A step of 255 jumps
// to the top of the index range.
func decodeScenario(data []byte, keys []Key) ([]Entry, []Key) {
	if len(data) == 0 {
		return nil, nil
	}
	n := min(int(data[0]), (len(data)-1)/2)
	data = data[1:]
	var existing []Entry
	index := 0
	for i := range n {
		step, o := data[2*i], keys[int(data[2*i+1])%len(keys)]
		if step == 255 {
			index = maxIndex - 8
		} else {
			index = min(index+int(step), maxIndex)
		}
		existing = append(existing, at(index, o))
	}
	var objects []Key
	for _, b := range data[2*n:] {
		objects = append(objects, keys[int(b)%len(keys)])
	}
	// Entries of one key are one item: keep the first.
	existing = slices.CompactFunc(sorted(existing), func(a, b Entry) bool { return primaryKey(a) == primaryKey(b) })
	return existing, objects
}
