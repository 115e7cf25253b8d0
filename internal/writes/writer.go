package writes

import (
	"github.com/rynodb/rynodb/internal/lists"
	"github.com/rynodb/rynodb/internal/store"
)

// Writer writes entities: Create, Update and Set with their index entries, unique
// values and lists, Patch, and transactions of several operations.
type Writer struct {
	core  *store.Core   // the tables, their requests and the registered indexes
	lists *lists.Engine // the lists a write replaces, and the lists of a transaction
}

// New returns a Writer working through core, writing lists with le.
func New(core *store.Core, le *lists.Engine) *Writer { return &Writer{core: core, lists: le} }
