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
	summary: "find entries that refer to entities that do not exist; --repair deletes them",
	help: `Scans the relationship and index entries tables for orphans: relationship entries
whose subject or object does not exist, and index entries whose entity does not exist.
It lists each orphan and, with --repair, deletes it, in a transaction that checks its
entity is still missing: an entity created meanwhile keeps its entries. Any table size
is read a page at a time; on a terminal, progress is shown on standard error. An entry
written just before its entity is an orphan until then: run check when such writes are
quiet.

Exit status: 0 when no orphan is left (none found, or all repaired); 1 when orphans
were found and not repaired, or on failure; 2 on a wrong or incomplete command line.`,
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
	db, err := ryno.New(api, ryno.Options{TablePrefix: s.prefix, OnCall: s.reportTo(r.stderr)})
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
		Progress: func(p ryno.CheckProgress) { progress.show(checkSummary(p)) },
	})
	progress.clear()
	if err != nil {
		return err
	}
	fmt.Fprintln(r.stdout, checkSummary(done))
	if done.Orphans > done.Repaired+done.Kept {
		return reportedError(ExitError)
	}
	return nil
}

func checkSummary(p ryno.CheckProgress) string {
	s := fmt.Sprintf("checked %d relationship and %d index entries: ", p.Relationships, p.IndexEntries)
	switch {
	case p.Orphans == 0:
		return s + "no orphans"
	case p.Kept > 0:
		return s + fmt.Sprintf("%s found, %d deleted, %d kept as their entity exists by now", count(p.Orphans, "orphan"), p.Repaired, p.Kept)
	case p.Repaired > 0:
		return s + fmt.Sprintf("%s found, %d deleted", count(p.Orphans, "orphan"), p.Repaired)
	}
	return s + count(p.Orphans, "orphan") + " found; run with --repair to delete them"
}
