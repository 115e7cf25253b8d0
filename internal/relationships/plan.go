package relationships

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/schema"
)

// Plan is the set of writes that brings a subject's list for one predicate to a
// new state. No primary key appears twice in a plan, whether among Puts, among
// Deletes or across both, so its writes can be sent in any order and any batches.
// That matters: a delete that lands after a put of the same key would erase it.
type Plan struct {
	// Puts are the entries to write, in list order. A put replaces any item with
	// the same primary key.
	Puts []Entry
	// Deletes are the entries to delete, in list order. Only their primary key is
	// needed to delete them; the rest says what goes.
	Deletes []Entry
}

// Empty reports whether the plan writes nothing.
func (p Plan) Empty() bool { return len(p.Puts) == 0 && len(p.Deletes) == 0 }

// PlanReplace returns the writes after which subject's list for predicate is
// exactly objects, in that order. Existing holds the list's current entries, in any
// order. An object may appear several times, each time as its own entry.
//
// The plan writes only the difference, and keeps it small: it keeps as many
// existing entries untouched as any valid numbering can, gives new entries free
// indexes between the kept ones, and deletes the rest. An existing entry is kept
// only if the same object (scope, type and id) is wanted at its index; one whose key
// a new entry takes, because only the object's scope differs, is overwritten by a
// put rather than deleted. A new entry for an object whose existing entry the plan
// drops inherits that entry's edge attributes, so an edge keeps its attributes when
// it moves.
//
// It takes O(n log n) time for lists of n entries that repeat few objects; see
// assignIndexes for the details. Lists that repeat objects so often that the
// matches between them would pass a million are renumbered from 0 instead, which
// keeps only the entries already in place. The objects must pass Validate.
func PlanReplace(subject entity.Key, predicate string, existing []Entry, objects []entity.Key) Plan {
	current := sortedUnique(existing)
	return reconcile(subject, predicate, current, objects, assignIndexes(current, objects))
}

// PlanAdd returns the writes that append objects to subject's list for predicate,
// in order, after highest, the list's current highest index (-1 for an empty list).
// Objects in present, the objects the list already holds, are skipped, and so are
// repeats within objects: adding an object twice adds it once.
//
// It returns a *tables.ValidationError if highest is out of range or the new
// indexes would pass schema.MaxIndex.
func PlanAdd(subject entity.Key, predicate string, highest int, present []entity.Key, objects []entity.Key) (Plan, error) {
	if highest < -1 || highest > maxIndex {
		return Plan{}, &schema.ValidationError{Field: "highest index", Value: strconv.Itoa(highest),
			Reason: fmt.Sprintf("must be between -1 (an empty list) and %d", int64(maxIndex))}
	}
	seen := make(map[entity.Key]bool, len(present)+len(objects))
	for _, o := range present {
		seen[o] = true
	}
	var puts []Entry
	for _, o := range objects {
		if !seen[o] {
			seen[o] = true
			puts = append(puts, Entry{Subject: subject, Predicate: predicate, Object: o})
		}
	}
	// Not len(puts) > maxIndex-highest: for -1, that overflows where int has 32 bits.
	if highest > maxIndex-len(puts) {
		return Plan{}, &schema.ValidationError{Field: "objects",
			Reason: fmt.Sprintf("appending %d objects after index %d would pass the maximum index %d",
				len(puts), highest, int64(maxIndex))}
	}
	for i := range puts {
		puts[i].Index = highest + 1 + i
	}
	return Plan{Puts: puts}, nil
}

// PlanRemove returns the deletes of every entry of existing whose object is one of
// objects: all of that object's entries, wherever it appears in the list. Objects
// with no entry are ignored. Existing holds the entries of one subject and
// predicate, in any order.
func PlanRemove(existing []Entry, objects []entity.Key) Plan {
	remove := make(map[entity.Key]bool, len(objects))
	for _, o := range objects {
		remove[o] = true
	}
	var deletes []Entry
	for _, e := range existing {
		if remove[e.Object] {
			deletes = append(deletes, e)
		}
	}
	return Plan{Deletes: sortedUnique(deletes)}
}

// sortedUnique returns a copy of entries sorted by compareKeys, without repeated
// keys.
func sortedUnique(entries []Entry) []Entry {
	s := slices.Clone(entries)
	slices.SortStableFunc(s, compareKeys)
	return slices.CompactFunc(s, func(a, b Entry) bool { return compareKeys(a, b) == 0 })
}

// compareKeys orders entries by the components of their primary keys: subject,
// predicate, index, object type and id. Within one list this is list order. It
// differs from the order of the escaped keys (Sort) only among entries sharing an
// index, and needs no allocation.
func compareKeys(a, b Entry) int {
	return cmp.Or(
		strings.Compare(a.Subject.Scope, b.Subject.Scope),
		strings.Compare(a.Subject.Type, b.Subject.Type),
		strings.Compare(a.Subject.ID, b.Subject.ID),
		strings.Compare(a.Predicate, b.Predicate),
		cmp.Compare(a.Index, b.Index),
		strings.Compare(a.Object.Type, b.Object.Type),
		strings.Compare(a.Object.ID, b.Object.ID),
	)
}

// slot is the part of an entry's primary key that varies within one subject's
// list for one predicate.
type slot struct {
	index   int
	typ, id string
}

func slotOf(e Entry) slot { return slot{e.Index, e.Object.Type, e.Object.ID} }

// fate is what a plan does with an existing entry.
type fate uint8

const (
	deleted     fate = iota // not wanted at its index: deleted
	unchanged               // wanted as it is: left alone
	overwritten             // its key is taken by a put of another object
)

// reconcile compares the wanted entries (objects at indexes) with the current ones
// by primary key: it puts the wanted entries that differ and deletes the current
// entries no put overwrites.
func reconcile(subject entity.Key, predicate string, current []Entry, objects []entity.Key, indexes []int) Plan {
	at := make(map[slot]int, len(current))
	for i, e := range current {
		at[slotOf(e)] = i
	}
	fates := make([]fate, len(current))
	var puts []Entry
	for j, o := range objects {
		want := Entry{Subject: subject, Predicate: predicate, Index: indexes[j], Object: o}
		i, found := at[slotOf(want)]
		switch {
		case found && current[i].Object == o:
			fates[i] = unchanged
			continue
		case found:
			fates[i] = overwritten
		}
		puts = append(puts, want)
	}
	inheritAttributes(puts, current, fates)
	var deletes []Entry
	for i, e := range current {
		if fates[i] == deleted {
			deletes = append(deletes, e)
		}
	}
	return Plan{Puts: puts, Deletes: deletes}
}

// inheritAttributes gives each put the edge attributes of a current entry of the
// same object that the plan rewrites, pairing the entries of one object in list
// order. Which entries a plan rewrites is a detail of the numbering; edges should
// not lose their attributes to it.
func inheritAttributes(puts, current []Entry, fates []fate) {
	if !slices.ContainsFunc(current, func(e Entry) bool { return len(e.Attributes) > 0 }) {
		return
	}
	rewritten := make(map[entity.Key][]Entry)
	for i, e := range current {
		if fates[i] != unchanged {
			rewritten[e.Object] = append(rewritten[e.Object], e)
		}
	}
	for j := range puts {
		o := puts[j].Object
		if q := rewritten[o]; len(q) > 0 {
			puts[j].Attributes = q[0].Attributes
			rewritten[o] = q[1:]
		}
	}
}
