package relationships

import (
	"slices"
	"sort"

	"github.com/rynodb/rynodb/entity"
)

// maxMatches bounds the matches (a current entry and a target position with the
// same object) that longestChain examines. A list that repeats no object has at
// most one match per position; only lists repeating objects hundreds of times pass
// the bound.
const maxMatches = 1 << 20

// assignIndexes returns an index for each position of targets, strictly increasing
// and within 0..maxIndex, that leaves as many entries of current (sorted by
// compareKeys) in place as possible: an entry stays in place when its object is
// wanted at its index.
//
// The entries left in place form a chain of matches (entry i, position j), with
// shift = index(i) - j. A chain is valid when its positions increase, its shifts
// never decrease (so that the positions between two kept entries fit between their
// indexes), the first shift is at least 0 (room for the positions before it, down
// to index 0) and the last is at most maxIndex-(len(targets)-1) (room after it).
// Such a chain is a common subsequence of the current and target lists that can
// keep its indexes; longestChain finds a longest one, and place numbers the
// positions around it.
//
// Time is O((n+t+m) log(n+t+m)) for n current entries, t targets and m matches;
// m is at most min(n, t) when no object repeats. When m would pass maxMatches, the
// targets are numbered 0..t-1 instead, in O(n+t), which still keeps the entries
// already at their position.
func assignIndexes(current []Entry, targets []entity.Key) []int {
	indexes := make([]int, len(targets))
	for j := range indexes {
		indexes[j] = -1
	}
	for _, m := range longestChain(current, targets) {
		indexes[m.target] = current[m.entry].Index
	}
	for start := 0; start < len(indexes); {
		end := start
		for end < len(indexes) && indexes[end] < 0 {
			end++
		}
		if end > start {
			place(indexes, start, end)
		}
		start = end + 1
	}
	return indexes
}

// match pairs a current entry with a target position of the same object.
type match struct {
	entry, target int
	shift         int // index of the entry minus the target position
	prev          int // the match before this one in the longest chain ending here, or -1
}

// longestChain returns a longest valid chain of matches between current and
// targets (see assignIndexes), in target order, or none if there are more than
// maxMatches matches. It is the patience method for a longest non-decreasing
// subsequence of shifts, taking matches in target order.
func longestChain(current []Entry, targets []entity.Key) []match {
	at := make(map[entity.Key][]int, len(current)) // positions in current, by object
	for i, e := range current {
		at[e.Object] = append(at[e.Object], i)
	}
	n := 0
	for _, t := range targets {
		n += len(at[t])
	}
	if n > maxMatches {
		return nil
	}
	maxShift := maxIndex - (len(targets) - 1)

	var matches []match
	var tails []int // tails[k]: the match ending a chain of k+1 with the lowest last shift
	for j, t := range targets {
		// Decreasing index, so decreasing shift: two matches of one position can never
		// chain, as a chain's shifts do not decrease and the indexes of one object differ.
		for _, i := range slices.Backward(at[t]) {
			shift := current[i].Index - j
			if shift < 0 {
				break
			}
			if shift > maxShift {
				continue
			}
			k := sort.Search(len(tails), func(k int) bool { return matches[tails[k]].shift > shift })
			prev := -1
			if k > 0 {
				prev = tails[k-1]
			}
			matches = append(matches, match{entry: i, target: j, shift: shift, prev: prev})
			if k == len(tails) {
				tails = append(tails, 0)
			}
			tails[k] = len(matches) - 1
		}
	}
	chain := make([]match, len(tails))
	m := -1
	if len(tails) > 0 {
		m = tails[len(tails)-1]
	}
	for k := len(chain) - 1; k >= 0; k-- {
		chain[k] = matches[m]
		m = matches[m].prev
	}
	return chain
}

// place numbers indexes[start:end], a run of new positions, between its kept
// neighbours, which the chain guarantees leave room:
//   - after the last kept entry (or from 0), consecutively, as appending does;
//   - before the first kept entry, consecutively up to it, leaving the room below
//     for later prepends;
//   - between two kept entries, evenly spaced, leaving room on both sides for later
//     insertions.
func place(indexes []int, start, end int) {
	run := indexes[start:end]
	switch {
	case end == len(indexes):
		first := 0
		if start > 0 {
			first = indexes[start-1] + 1
		}
		for k := range run {
			run[k] = first + k
		}
	case start == 0:
		first := indexes[end] - len(run)
		for k := range run {
			run[k] = first + k
		}
	default:
		left := indexes[start-1]
		step := (indexes[end] - left) / (len(run) + 1) // at least 1; (k+1)*step cannot overflow
		for k := range run {
			run[k] = left + (k+1)*step
		}
	}
}
