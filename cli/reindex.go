package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/ryno"
)

var reindexCommand = &command{
	name:    "reindex",
	summary: "recompute the index entries of a scope's entities (needs the application's indexes)",
	help: `Recomputes the index entries of every entity of the given types in a scope with
the application's map functions, and writes only the difference: run it after adding
an index or changing a map function. Entries of indexes no longer registered for a
type are deleted. Entities of a type whose ShardedType changed are moved to its
shards. Without --type, every type with a registered index or a ShardedType is
reindexed.
Entities are read a page at a time; on a terminal, progress is shown on standard error.

Map functions live in the application, so reindex works in the application's own
build of this command (cli.Run with Config.Indexes); the stock ryno has no indexes
and refuses to run it.

Exit status: 0 on success; 1 on failure; 2 on a wrong or incomplete command line.`,
}

// errNoIndexes explains why the stock command cannot reindex.
const errNoIndexes = "reindex runs the application's map functions, and this command has none: " +
	"run the application's own build of it (cli.Run with Config.Indexes)"

func (r *runner) reindex(ctx context.Context, args []string) error {
	s, err := r.parse(reindexCommand, args)
	if errors.Is(err, flag.ErrHelp) {
		r.printCommandHelp(reindexCommand)
		return nil
	}
	if len(r.cfg.Indexes) == 0 && len(r.cfg.ShardedTypes) == 0 {
		return reindexCommand.usage(errNoIndexes)
	}
	if err != nil {
		return err
	}
	types, err := r.reindexTypes(s)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	api, err := r.newClient(ctx, reindexCommand, s)
	if err != nil {
		return err
	}
	db, err := ryno.New(api, r.clientOptions(s))
	if err != nil {
		return err
	}
	progress := r.progressLine()
	defer progress.clear()
	for _, typ := range types {
		done, err := db.Reindex(ctx, ryno.Type{Scope: s.scope, Name: typ}, func(p ryno.ReindexProgress) {
			progress.show(reindexSummary(s.scope, typ, p))
		})
		progress.clear()
		if err != nil {
			return err
		}
		fmt.Fprintln(r.stdout, reindexSummary(s.scope, typ, done))
	}
	return nil
}

// reindexTypes returns the types to reindex: those named by --type, or every type
// with a registered index.
func (r *runner) reindexTypes(s *settings) ([]string, error) {
	if s.scope == "" {
		return nil, reindexCommand.usage("missing scope: set --scope")
	}
	if err := schema.ValidateComponent("scope", s.scope); err != nil {
		return nil, reindexCommand.usage(err.Error())
	}
	for _, typ := range s.types {
		if err := schema.ValidateComponent("type", typ); err != nil {
			return nil, reindexCommand.usage(err.Error())
		}
	}
	types := s.types
	if len(types) == 0 {
		for _, ix := range r.cfg.Indexes {
			types = append(types, ix.Type)
		}
		for _, st := range r.cfg.ShardedTypes {
			types = append(types, st.Type)
		}
	}
	return slices.Compact(slices.Sorted(slices.Values(types))), nil
}

func reindexSummary(scope, typ string, p ryno.ReindexProgress) string {
	s := fmt.Sprintf("reindexed %s of type %s in scope %s: %s written, %d deleted",
		count(p.Entities, "entity"), typ, scope, count(p.Puts, "entry"), p.Deletes)
	if p.Moved > 0 {
		s += fmt.Sprintf(", %s moved to the type's shards", count(p.Moved, "entity"))
	}
	for _, d := range p.Duplicates {
		s += fmt.Sprintf("\n  duplicate in unique index %s: %v, emitted by %s, is held by %s; not written", d.Index, d.Value, d.Entity, d.Owner)
	}
	return s
}

// stringList is a flag that may be repeated; each use adds its value.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}
