package indexes

import (
	"fmt"
	"strings"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/entitystate"
)

// Def is one registered index over entities of type E (see ryno.Index, which it
// is made from once validated).
type Def[E any] struct {
	Type    string
	Name    string
	Map     func(e E, emit func(indexing.Value)) // e is the map function's own copy
	Project []string
	Unique  bool
	Inline  int // 0: in the index entries table; 1 or 2: the inline slot
	Shards  int // partition keys of the lookup index the entries spread over; 0 or 1: one
	// Resharding is the Shards the entries had, while they move (0: none).
	Resharding int
}

// Registry holds the registered indexes by entity type.
type Registry[E any] map[string][]Def[E]

// New returns the registry of defs, which the caller has validated.
func New[E any](defs []Def[E]) Registry[E] {
	reg := make(Registry[E])
	for _, d := range defs {
		reg[d.Type] = append(reg[d.Type], d)
	}
	return reg
}

// Unique reports whether the index named name of typ is unique.
func (reg Registry[E]) Unique(typ, name string) bool {
	for _, ix := range reg[typ] {
		if ix.Name == name {
			return ix.Unique
		}
	}
	return false
}

// ByName returns the registered index named name, of any type.
func (reg Registry[E]) ByName(name string) (Def[E], bool) {
	for _, defs := range reg {
		for _, ix := range defs {
			if ix.Name == name {
				return ix, true
			}
		}
	}
	return Def[E]{}, false
}

// Has reports whether typ has indexes: its writes run their map functions.
func (reg Registry[E]) Has(typ string) bool { return len(reg[typ]) > 0 }

// HasEntries reports whether typ has indexes kept in the index entries table: its
// writes read and write entries there.
func (reg Registry[E]) HasEntries(typ string) bool {
	for _, ix := range reg[typ] {
		if ix.Inline == 0 {
			return true
		}
	}
	return false
}

// Set returns the encoded set of the names of typ's indexes: the _indexes attribute
// of the entities this client writes. An inline index is recorded with its slot,
// after a control character no name holds, so that a client declaring it
// otherwise finds it unknown and refuses to write the entity.
func (reg Registry[E]) Set(typ string) string {
	names := make([]string, len(reg[typ]))
	for i, ix := range reg[typ] {
		names[i] = ix.Name
		if ix.Inline > 0 {
			names[i] += fmt.Sprint(inlineMark, ix.Inline)
		}
	}
	return entitystate.IndexSet(names)
}

// inlineMark separates an inline index's name from its slot in _indexes.
const inlineMark = "\x01inline "

// Display returns the name of an index as recorded in _indexes, for people:
// "status (inline 1)".
func Display(recorded string) string {
	if name, slot, ok := strings.Cut(recorded, inlineMark); ok {
		return name + " (inline " + slot + ")"
	}
	return recorded
}
