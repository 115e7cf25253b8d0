package deletes

import (
	"github.com/rynodb/rynodb/internal/lists"
	"github.com/rynodb/rynodb/internal/store"
)

// Deleter deletes entities: the Delete call, and the completion of a deletion
// that another call meets unfinished (it is the core's store.Completer).
type Deleter struct {
	core  *store.Core   // the tables, their requests and the guards
	lists *lists.Engine // the lists its sweep keeps exact
}

// New returns a Deleter working through core, keeping lists exact with le. The
// client hands it back to core as Config.Deletes.
func New(core *store.Core, le *lists.Engine) *Deleter { return &Deleter{core: core, lists: le} }
