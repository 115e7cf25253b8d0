package writes

import "github.com/rynodb/rynodb/internal/store"

// Writer writes entities: Create, Update and Set with their index entries, unique
// values and lists, Patch, and transactions of several operations.
type Writer struct {
	core *store.Core // the tables, their requests, the lists and the registered indexes
}

// New returns a Writer working through core.
func New(core *store.Core) *Writer { return &Writer{core: core} }
