package migrations

import (
	"context"

	"github.com/rynodb/rynodb/internal/schema"
)

// CurrentVersion is the schema version that Up brings a store to.
const CurrentVersion = 4

// A migration is one version of the schema.
//
// The tables of a version are those of tables.Definitions at that version; Up creates
// whatever is missing from them before anything else. A migration may add a data step,
// which Up runs after the tables match, in version order, for every version newer than
// the recorded one. Data steps must be idempotent: if a later step fails, the earlier
// ones run again on the next Up, since the version is recorded only when all succeed.
type migration struct {
	Version     int
	Description string
	// Compatible is the oldest version whose programs still read and write a store
	// at this one: a program that knows only an older version checks a store at
	// this one as working (with a warning) when it is at least Compatible. A
	// version that only adds indexes keeps the one before; one that changes what
	// the programs write or read must name itself.
	Compatible int

	run func(ctx context.Context, api API, names schema.Names) error // data step; nil if none
}

// migrations lists every version in order, from 1 to CurrentVersion.
var migrations = []migration{
	{Version: 1, Compatible: 1, Description: "create the entities, relationship and index tables with their GSIs and LSI"},
	{Version: 2, Compatible: 2, Description: "build the heads and markers of relationship lists written before them", run: buildListHeads},
	{Version: 3, Compatible: 3, Description: "give every relationship entry its _reverse_key, the sort key of the reverse index replacing reverse_relationships", run: addReverseKeys},
	{Version: 4, Compatible: 3, Description: "add the entities table's inline index GSIs, entities_inline_1 and entities_inline_2"},
}

// allMigrations returns the schema versions in order, the last being CurrentVersion.
func allMigrations() []migration {
	return append([]migration(nil), migrations...)
}

// compatibleWith returns the Compatible of version v in migs, or v when migs lacks it.
func compatibleWith(migs []migration, v int) int {
	for _, m := range migs {
		if m.Version == v {
			return m.Compatible
		}
	}
	return v
}

// latest returns the highest version in migs, or 0 when migs is empty.
func latest(migs []migration) int {
	if len(migs) == 0 {
		return 0
	}
	return migs[len(migs)-1].Version
}
