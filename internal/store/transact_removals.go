// What a TxDelete needs of the transaction's other operations: every entry that
// points at the deleted entity removed by one of them.

package store

import (
	"fmt"
	"slices"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/relationships"
)

// removal returns what says of an entry pointing at k whether an operation of the
// transaction removes it (see removes), or nil when no operation removes k from a
// list or set.
func (t *Tx) removal(k Key) func(relationships.Entry) bool {
	if !slices.ContainsFunc(t.ops, func(p *txOp) bool {
		return p.Kind == TxRemove && slices.Contains(p.Objects, k) || len(p.Put.Lists) > 0
	}) {
		return nil
	}
	return func(e relationships.Entry) bool { return t.removes(e.Subject, e.Predicate, e.Object) }
}

// removes reports whether an operation of the transaction removes object from
// subject's list or set predicate, so that no entry of it there outlives the
// commit: a TxRemove of object, whose conditions hold what it read of object's
// entries until the commit (a set's one entry, there or not; a list's marker of
// object, with the positions it deletes), or a write replacing the list
// (ReplaceLists) by one without object, on the condition that the list is the one
// it read (the head's version and digest). An entry there that a TxDelete of
// object reads must also be one that operation acts on (unremoved). Its action is
// the only one on the entry's item: a TxDelete adds none on entries of other
// subjects, and a transaction holds one action per item.
func (t *Tx) removes(subject Key, predicate string, object Key) bool {
	for _, p := range t.ops {
		if p.Key != subject {
			continue
		}
		switch p.Kind {
		case TxRemove:
			if p.Predicate == predicate && slices.Contains(p.Objects, object) {
				return true
			}
		case TxCreate, TxUpdate, TxSet:
			if objects, ok := p.Put.Lists[predicate]; ok && !slices.Contains(objects, object) {
				return true
			}
		}
	}
	return false
}

// unremoved returns the refusals of the TxDeletes that read an entry pointing at
// their entity, in a list another operation removes it from, that no action of
// that operation touches. The removal of a list deletes the positions the entity's
// marker held when it read it: the entry is newer than that read (whose conditions
// would refuse the commit), or gone and still shown by the reverse index, which is
// read eventually, or in a list whose markers do not describe it (written before
// lists had heads). The transaction reads again, and the refusals, which match
// ErrHasRelationships, stand when the entry stays.
func (t *Tx) unremoved(parts []*txPart) []entity.OpError {
	var touched map[string]bool
	var moved []entity.OpError
	for _, p := range parts {
		if len(p.incoming) == 0 {
			continue
		}
		if touched == nil {
			touched = map[string]bool{}
			for _, q := range parts {
				for _, act := range q.t.Actions {
					touched[actionItem(act)] = true
				}
			}
		}
		for _, in := range p.incoming {
			if !touched[batching.ItemID(t.c.Names.Relationships, in.key)] {
				moved = append(moved, p.op.refusal(fmt.Errorf("%w: an entry of %s %q pointing at it is not one the operation removing it from that list read",
					errs.ErrHasRelationships, in.entry.Subject, in.entry.Predicate)))
				break
			}
		}
	}
	return moved
}
