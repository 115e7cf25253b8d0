package maintenance

import "github.com/rynodb/rynodb/internal/store"

// Maintainer checks, repairs and reindexes the tables of one client. It holds no
// state of its own: every call reads the tables afresh.
type Maintainer struct {
	core *store.Core // the tables, their requests and the registered indexes
}

// New returns a Maintainer working through core.
func New(core *store.Core) *Maintainer { return &Maintainer{core: core} }
