package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/rynodb/rynodb/ryno"
)

var checkCommand = &command{
	name:    "check",
	summary: "find what writes cut off left, and entries of entities that do not exist; --repair finishes and deletes them",
	help: `Scans the store for traces of writes that were cut off (a process killed, a Lambda
function timed out) and for orphans.

Traces: entities left marked as being deleted, or as being written for longer than
the list lease (30 s); relationship lists left leased or holding an intent, and lists
whose head or markers disagree with their entries; relationship entries missing
from the reverse index (written by a release before schema version 3 after the
store was migrated, or standing in another layout than the application's
ShardedIncoming, in its own build of this command). --repair finishes each as the
next writer would: it completes the Delete, takes the list over, finishes what its
writer recorded, rebuilds the list's bookkeeping from its entries and writes the
entry's reverse key, in the layout its object's type asks for. Finishing an
entity's index entries needs the indexes of its type, which this command does not
have: it reports those, and your application's own ryno (see the README) or its
next write of the entity finishes them.

Orphans: relationship entries whose subject or object does not exist, index entries
whose entity does not exist, claims of unique values their entity does not hold.
--repair deletes what refers to each missing entity as a Delete of it would, under
the condition that it is still missing: an entity created meanwhile keeps its
entries, and lists keep exact heads and markers.

Any table size is read a page at a time; on a terminal, progress is shown on
standard error. An entry written just before its entity is an orphan until then: run
check when such writes are quiet.

Exit status: 0 when nothing is left (none found, or all repaired); 1 when orphans
or traces were found and left, or on failure; 2 on a wrong or incomplete command line.`,
}

func (r *runner) check(ctx context.Context, args []string) error {
	s, err := r.parse(checkCommand, args)
	if errors.Is(err, flag.ErrHelp) {
		r.printCommandHelp(checkCommand)
		return nil
	}
	if err != nil {
		return err
	}
	if s.segments < 1 || s.segments > ryno.MaxCheckSegments {
		return checkCommand.usage(fmt.Sprintf("--segments must be between 1 and %d", ryno.MaxCheckSegments))
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	api, err := r.newClient(ctx, checkCommand, s)
	if err != nil {
		return err
	}
	db, err := ryno.New(api, r.clientOptions(s))
	if err != nil {
		return checkCommand.usage(err.Error())
	}
	progress := r.progressLine()
	done, err := db.Check(ctx, ryno.CheckOptions{
		Repair:   s.repair,
		Segments: s.segments,
		OnOrphan: func(o ryno.Orphan) {
			progress.clear()
			fmt.Fprintf(r.stdout, "orphan: %s\n", o)
		},
		OnTrace: func(t ryno.Trace) {
			progress.clear()
			fmt.Fprintf(r.stdout, "trace: %s\n", t)
		},
		Progress: func(p ryno.CheckProgress) { progress.show(checkSummary(p)) },
	})
	progress.clear()
	if err != nil {
		return err
	}
	fmt.Fprintln(r.stdout, checkSummary(done))
	if done.Orphans > done.Repaired+done.Kept || done.Traces > done.Finished {
		return reportedError(ExitError)
	}
	return nil
}

func checkSummary(p ryno.CheckProgress) string {
	s := fmt.Sprintf("checked %d relationship and %d index entries: ", p.Relationships, p.IndexEntries)
	return s + traceSummary(p) + orphanSummary(p)
}

// traceSummary says what was found of writes cut off, and finished; nothing when
// none was found.
func traceSummary(p ryno.CheckProgress) string {
	switch {
	case p.Traces == 0:
		return ""
	case p.Finished > 0:
		return fmt.Sprintf("%s of writes cut off found, %d finished; ", count(p.Traces, "trace"), p.Finished)
	}
	return count(p.Traces, "trace") + " of writes cut off found (--repair finishes them); "
}

func orphanSummary(p ryno.CheckProgress) string {
	switch {
	case p.Orphans == 0:
		return "no orphans"
	case p.Kept > 0:
		return fmt.Sprintf("%s found, %d deleted, %d kept as their entity exists by now", count(p.Orphans, "orphan"), p.Repaired, p.Kept)
	case p.Repaired > 0:
		return fmt.Sprintf("%s found, %d deleted", count(p.Orphans, "orphan"), p.Repaired)
	}
	return count(p.Orphans, "orphan") + " found; run with --repair to delete them"
}
