package ryno

import (
	"fmt"
	"slices"

	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// Owns declares that the entities of Type own the objects of their list under
// Predicate: deleting an owner marks what it owns, recursively, so that the whole
// tree reads as missing, then deletes it, each entity with everything that refers
// to it, as Delete deletes one entity.
type Owns struct {
	Type      string // the owner's type, in any scope
	Predicate string // its list of what it owns

	// ObjectType, when set, makes the owner's Delete hide its objects of that type,
	// and what they own, from readers at the instant of its tombstone, rather than
	// from the end of the marking pass. Every read returning an entity of
	// ObjectType (Get, BatchGet, GetByUnique, the listings of entities) then looks
	// its owners up in the reverse index and reads them, a round for each level of
	// owners: see "Owned entities" in docs/deletes.md for the cost.
	ObjectType string
}

// ownership holds Options.Owns: the predicates each owner type owns, and, by
// object type, the owned lists whose owners readers check.
type ownership struct {
	owns     map[string][]string
	ownersOf map[string][]store.OwnerList
}

func newOwnership(owns []Owns) (ownership, error) {
	o := ownership{owns: map[string][]string{}, ownersOf: map[string][]store.OwnerList{}}
	for i, ow := range owns {
		field := fmt.Sprintf("Options.Owns[%d]", i)
		if ow.Type == "" {
			return o, invalid(field+".Type", "", "must name the owner's type")
		}
		if err := relationships.ValidatePredicate(ow.Predicate); err != nil {
			return o, wrap(err, "%s.Predicate", field)
		}
		if !slices.Contains(o.owns[ow.Type], ow.Predicate) { // a list owning two object types is named twice
			o.owns[ow.Type] = append(o.owns[ow.Type], ow.Predicate)
		}
		if ow.ObjectType == "" {
			continue
		}
		if err := schema.ValidateComponent(field+".ObjectType", ow.ObjectType); err != nil {
			return o, err
		}
		o.ownersOf[ow.ObjectType] = append(o.ownersOf[ow.ObjectType], store.OwnerList{Type: ow.Type, Predicate: ow.Predicate})
	}
	return o, nil
}
