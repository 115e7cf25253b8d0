package ryno

import (
	"fmt"

	"github.com/rynodb/rynodb/internal/relationships"
)

// Owns declares that the entities of Type own the objects of their list under
// Predicate: deleting an owner marks what it owns, recursively, so that the whole
// tree reads as missing, then deletes it, each entity with everything that refers
// to it, as Delete deletes one entity.
type Owns struct {
	Type      string // the owner's type, in any scope
	Predicate string // its list of what it owns
}

// ownership holds Options.Owns by owner type.
type ownership map[string][]string

func newOwnership(owns []Owns) (ownership, error) {
	o := ownership{}
	for i, ow := range owns {
		field := fmt.Sprintf("Options.Owns[%d]", i)
		if ow.Type == "" {
			return nil, invalid(field+".Type", "", "must name the owner's type")
		}
		if err := relationships.ValidatePredicate(ow.Predicate); err != nil {
			return nil, wrap(err, "%s.Predicate", field)
		}
		o[ow.Type] = append(o[ow.Type], ow.Predicate)
	}
	return o, nil
}
