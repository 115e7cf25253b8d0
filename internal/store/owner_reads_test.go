package store

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/batching"
)

// TestOwnerGraphHidesWhatAnEndedOwnerAboveHolds drives the graph a read learns
// level by level, as HiddenByOwners does, with the owners' states given.
func TestOwnerGraphHidesWhatAnEndedOwnerAboveHolds(t *testing.T) {
	k := func(id string) Key { return Key{Scope: "s", Type: "t", ID: id} }
	tests := []struct {
		name   string
		read   map[Key][]Key // the entities read, and their owners
		up     map[Key][]Key // each owner's owners
		ended  map[Key]bool  // the owners that have ended
		levels int           // the levels read
		hidden []Key
	}{
		{name: "no owner", read: map[Key][]Key{k("c"): nil}, levels: 0},
		{name: "a live owner", read: map[Key][]Key{k("c"): {k("i")}}, levels: 1},
		{name: "an ended owner", read: map[Key][]Key{k("c"): {k("i")}}, ended: map[Key]bool{k("i"): true},
			levels: 1, hidden: []Key{k("c")}},
		{name: "an ended owner two levels up", read: map[Key][]Key{k("c"): {k("i")}},
			up: map[Key][]Key{k("i"): {k("p")}}, ended: map[Key]bool{k("p"): true}, levels: 2, hidden: []Key{k("c")}},
		{name: "one of two owners ended", read: map[Key][]Key{k("c"): {k("i"), k("j")}},
			ended: map[Key]bool{k("j"): true}, levels: 1, hidden: []Key{k("c")}},
		{name: "an owner read among the entities", read: map[Key][]Key{k("c"): {k("i")}, k("i"): {k("p")}},
			ended: map[Key]bool{k("p"): true}, levels: 1, hidden: []Key{k("c"), k("i")}},
		{name: "a loop", read: map[Key][]Key{k("a"): {k("b")}}, up: map[Key][]Key{k("b"): {k("a")}}, levels: 1},
		{name: "a loop read from both ends", read: map[Key][]Key{k("a"): {k("b")}, k("b"): {k("a")}}, levels: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newOwnerGraph(tt.read)
			levels := 0
			for next := g.unread(); len(next) > 0; next = g.unread() {
				levels++
				require.LessOrEqual(t, levels, 3, "each owner is read once")
				for _, o := range next {
					g.read(o, tt.ended[o], tt.up[o])
				}
			}
			require.Equal(t, tt.levels, levels)
			var hidden []Key
			for _, k := range g.read0 {
				if g.hidden()[k] {
					hidden = append(hidden, k)
				}
			}
			require.ElementsMatch(t, tt.hidden, hidden)
		})
	}
}

// TestAnOwnerCheckErrorHidesTheOwnersKeys wraps a batch error naming owners: the
// caller asked for other keys, so errors.As finds no batch error, while errors.Is
// still sees the cause.
func TestAnOwnerCheckErrorHidesTheOwnersKeys(t *testing.T) {
	err := fmt.Errorf("get: %w", &OwnerCheckError{Err: &batching.Error{Op: "BatchGetItem", Err: context.Canceled}})
	var be *batching.Error
	require.False(t, errors.As(err, &be))
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "checking the owners of the entities read")
}
