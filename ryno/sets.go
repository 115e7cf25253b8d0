package ryno

import (
	"maps"
	"slices"
)

// A set (a predicate in Options.Sets) keeps one entry per object, keyed by the
// object, with no head or marker: each object's entry is written on its own, and
// no write of one object waits for another's. What a list gets from its head's
// version (refusing a write to a missing subject, and leaving nothing of a deleted
// one) a set gets from the order of its requests: entries are written first, and
// the subject is read after them, consistently. A Delete marks the entity before
// it reads its entries, so either its read sees an entry, or the writer's read of
// the subject, coming later, sees the mark and takes its entries back.

// setOf returns the predicates of Options.Sets as a set.
func setOf(predicates []string) map[string]bool {
	sets := make(map[string]bool, len(predicates))
	for _, p := range predicates {
		sets[p] = true
	}
	return sets
}

// listsOnly refuses a set where only lists are written: as the lists of an entity
// write (ReplaceLists).
func (c *Client) listsOnly(call string, predicates ...string) error {
	for _, p := range predicates {
		if c.core.Sets[p] {
			return invalid(call, p, "is a set (Options.Sets): write it with AddRelationships, RemoveRelationships, ReplaceRelationships or their Tx forms")
		}
	}
	return nil
}

// takeSets removes the sets (Options.Sets) from the lists of o, checked, and returns
// them: Create, Update, Set and Modify write them after the entity, as
// ReplaceRelationships does. A transaction keeps refusing them (validateLists).
func (c *Client) takeSets(subject Key, o *writeOptions) (map[string][]Key, error) {
	var sets map[string][]Key
	for _, p := range slices.Sorted(maps.Keys(o.lists)) {
		if !c.core.Sets[p] {
			continue
		}
		if err := c.validateList(subject, p, o.lists[p]); err != nil {
			return nil, wrap(err, "ReplaceLists[%q]", p)
		}
		if sets == nil {
			sets, o.lists = map[string][]Key{}, maps.Clone(o.lists)
		}
		sets[p] = ownKeys(o.lists[p])
		delete(o.lists, p)
	}
	return sets, nil
}
