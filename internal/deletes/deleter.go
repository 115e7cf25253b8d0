package deletes

import "github.com/rynodb/rynodb/internal/store"

// Deleter deletes entities: the Delete call, and the completion of a deletion
// that another call meets unfinished (it is the core's store.Completer).
type Deleter struct {
	core *store.Core // the tables, their requests, the lists and the guards
}

// New returns a Deleter working through core. The client hands it back to core as
// Config.Deletes.
func New(core *store.Core) *Deleter { return &Deleter{core: core} }
