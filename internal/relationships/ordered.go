package relationships

import (
	"cmp"
	"slices"
	"sort"

	"github.com/rynodb/rynodb/entity"
)

// OrderedPlan is what replacing the objects of an ordered set writes: the entries
// to put (objects new to the set, and objects that move) and the entries to
// delete (objects no longer in it).
type OrderedPlan struct {
	Puts    []Entry
	Deletes []Entry
}

// PlanOrderedSet plans replacing current, the entries of subject's ordered set
// under predicate, with want, distinct objects in their new order. Objects that
// keep their order keep their entries: the longest run of current positions that
// want keeps increasing. Every other object of want gets a position between those
// of its kept neighbours, spread evenly, and the objects after the last kept one
// get positions next, next+stride, ... (next must exceed every position of
// current; the stride leaves room for later insertions between them). Where two
// kept neighbours leave too little room between them, the objects from there to
// the end get positions from next on.
func PlanOrderedSet(subject entity.Key, predicate string, current []Entry, want []entity.Key, next, stride int64) OrderedPlan {
	held := make(map[entity.Key]int64, len(current))
	for _, e := range current {
		held[e.Object] = e.Position
	}
	keep := keptInOrder(want, held)
	var plan OrderedPlan
	put := func(k entity.Key, p int64) {
		plan.Puts = append(plan.Puts, OrderedSetEntry(subject, predicate, k, p))
	}
	lo := int64(-1)
	for i := 0; i < len(want); {
		if keep[i] {
			lo = held[want[i]]
			i++
			continue
		}
		j := i
		for j < len(want) && !keep[j] {
			j++
		}
		n := int64(j - i)
		if j == len(want) || held[want[j]]-lo-1 < n {
			for ; i < len(want); i++ { // no room: the rest goes after everything held
				put(want[i], next)
				next += stride
			}
			break
		}
		step := (held[want[j]] - lo) / (n + 1)
		for k := range n {
			put(want[i+int(k)], lo+step*(k+1))
		}
		i = j
	}
	wanted := make(map[entity.Key]bool, len(want))
	for _, k := range want {
		wanted[k] = true
	}
	for _, e := range current {
		if !wanted[e.Object] {
			plan.Deletes = append(plan.Deletes, e)
		}
	}
	return plan
}

// keptInOrder marks the objects of want that keep their entries: a longest
// subsequence of those held whose positions increase (patience sorting).
func keptInOrder(want []entity.Key, held map[entity.Key]int64) []bool {
	var tails []int // tails[l]: index in want ending the best run of length l+1
	prev := make([]int, len(want))
	for i, k := range want {
		p, ok := held[k]
		if !ok {
			continue
		}
		l := sort.Search(len(tails), func(l int) bool { return held[want[tails[l]]] >= p })
		prev[i] = -1
		if l > 0 {
			prev[i] = tails[l-1]
		}
		if l == len(tails) {
			tails = append(tails, i)
		} else {
			tails[l] = i
		}
	}
	keep := make([]bool, len(want))
	if len(tails) > 0 {
		for i := tails[len(tails)-1]; i >= 0; i = prev[i] {
			keep[i] = true
		}
	}
	return keep
}

// SortOrdered puts the entries of each ordered set in entries, read in key order
// (each set's entries next to each other, by object), in the set's order.
func SortOrdered(entries []Entry) {
	for i := 0; i < len(entries); {
		j := i + 1
		for j < len(entries) && entries[i].Ordered && entries[j].Ordered &&
			entries[j].Predicate == entries[i].Predicate && entries[j].Subject == entries[i].Subject {
			j++
		}
		slices.SortFunc(entries[i:j], func(a, b Entry) int { return cmp.Compare(a.Position, b.Position) })
		i = j
	}
}
