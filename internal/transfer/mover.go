package transfer

import (
	"github.com/rynodb/rynodb/internal/lists"
	"github.com/rynodb/rynodb/internal/store"
	"github.com/rynodb/rynodb/internal/writes"
)

// Mover exports and imports the entities of one store.
type Mover struct {
	core        *store.Core
	lists       *lists.Engine
	writes      *writes.Writer
	concurrency int // lines and entities handled at once
}

// New returns the Mover of the store core serves, writing entities with w and
// reading lists with l, concurrency at once.
func New(core *store.Core, l *lists.Engine, w *writes.Writer, concurrency int) *Mover {
	return &Mover{core: core, lists: l, writes: w, concurrency: concurrency}
}
