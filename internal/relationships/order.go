package relationships

import (
	"cmp"
	"slices"
	"strings"

	"github.com/rynodb/rynodb/entity"
)

// Sort sorts entries into the order of their primary keys, the order in which a
// Query returns them: by subject, then by predicate, then by index (list order),
// then by object type and id. Predicates compare as they are escaped in keys, so
// "a-b" sorts before "a" (the delimiter ':' sorts after '-').
func Sort(entries []Entry) {
	type keyed struct {
		subject, predicate string
		entry              Entry
	}
	ks := make([]keyed, len(entries))
	for i, e := range entries {
		ks[i] = keyed{e.Subject.String(), e.predicateKey(), e}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		return cmp.Or(strings.Compare(a.subject, b.subject), strings.Compare(a.predicate, b.predicate))
	})
	for i, k := range ks {
		entries[i] = k.entry
	}
}

// Objects returns the objects of entries, in the same order.
func Objects(entries []Entry) []entity.Key {
	objects := make([]entity.Key, len(entries))
	for i, e := range entries {
		objects[i] = e.Object
	}
	return objects
}

// ByPredicate groups the objects of entries by predicate, keeping their order
// within each predicate. Entries as a Query returns them (or after Sort) give each
// predicate's list in index order.
func ByPredicate(entries []Entry) map[string][]entity.Key {
	lists := make(map[string][]entity.Key)
	for _, e := range entries {
		lists[e.Predicate] = append(lists[e.Predicate], e.Object)
	}
	return lists
}
