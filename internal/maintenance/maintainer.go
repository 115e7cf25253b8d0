package maintenance

import (
	"github.com/rynodb/rynodb/internal/deletes"
	"github.com/rynodb/rynodb/internal/lists"
	"github.com/rynodb/rynodb/internal/store"
)

// Maintainer checks, repairs and reindexes the tables of one client. It holds no
// state of its own: every call reads the tables afresh.
type Maintainer struct {
	core    *store.Core      // the tables, their requests and the registered indexes
	lists   *lists.Engine    // the lists it verifies and finishes
	deletes *deletes.Deleter // completes the deletions it finds cut off
}

// New returns a Maintainer working through core, verifying lists with le and
// completing deletions with dels.
func New(core *store.Core, le *lists.Engine, dels *deletes.Deleter) *Maintainer {
	return &Maintainer{core: core, lists: le, deletes: dels}
}
