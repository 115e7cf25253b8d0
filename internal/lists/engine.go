package lists

import (
	"sync"

	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/store"
)

// Engine writes and reads relationship lists, sets and ordered sets. It is safe for
// concurrent use: calls on one list by one client are written together.
type Engine struct {
	core   *store.Core                         // the tables, their requests and the guards
	clock  positionClock                       // positions of ordered sets
	queues queue[ID, Op, relationships.Change] // list calls waiting to be written together
	// contended holds, by list, when a write last lost to another process's
	// commit: writes soon after combine at once (combine.go).
	contended sync.Map
	// read holds the results of combined calls read on heads and not yet taken
	// off (combine_taken.go).
	read *resultsRead
	// commits times the client's transactions of lists, for how long a combined
	// writer waits before standing in for another (combine_turns.go).
	commits commitTimes
}

// New returns an Engine working through core.
func New(core *store.Core) *Engine {
	e := &Engine{core: core}
	e.queues.Same = sameListKind
	e.read = newResultsRead(tidyAfter, e.tidy)
	return e
}
