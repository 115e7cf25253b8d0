package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"strings"

	"github.com/rynodb/rynodb/migrations"
)

// command is one of ryno's commands.
type command struct {
	group    string // "migrate" for the migrate subcommands, empty for the others
	name     string
	summary  string // one line for the command list
	help     string // the paragraph of its own help
	billing  bool   // takes the billing flags
	settings bool   // takes the flags of the tables' settings: --pitr, --deletion-protection, --sse
	run      func(ctx context.Context, r *runner, p *migrations.Provider, s *settings) error

	// offline runs a command that needs no connection to DynamoDB, instead of run; it
	// takes no --endpoint or --timeout.
	offline func(r *runner, s *settings) error
}

// path names the command as typed after ryno, such as "migrate up".
func (c *command) path() string { return strings.TrimSpace(c.group + " " + c.name) }

func (c *command) usage(msg string) error {
	return &usageError{command: c.path(), msg: msg}
}

// commands lists the subcommands in the order of the help text.
var commands = []*command{
	{
		group:   "migrate",
		name:    "up",
		summary: "create missing tables and indexes, wait until ACTIVE, record the schema version",
		help: `Creates the tables and global secondary indexes that are missing, waits until
every table and index is ACTIVE, runs the data steps of the schema versions not yet
recorded, and records the schema version. Version 2's step builds the heads and
markers of relationship lists written by earlier versions, in one scan of the
relationship entries table; version 3's gives every relationship entry its reverse
key, in another, and then deletes the reverse index it replaces. Tables and indexes are only added: when a table differs
in a way up cannot repair (another key schema, a missing local index), it changes
nothing and exits with status 1. Running it again does nothing.

Up also turns on time to live on the entities table, on the attribute _expires, so
that DynamoDB deletes expired entities (the library hides them until then); on an
existing store too, without --update-existing. A time to live on another attribute
is reported as a warning and left alone.

--pitr, --deletion-protection, --streams and --sse apply to the tables up creates
(--streams: a stream of new and old images per table, which package changes
decodes). Existing
tables that lack them are reported as warnings and left alone, unless
--update-existing is given: up then turns them on. Up never turns them off. With
--pitr, up first checks that the endpoint supports point-in-time recovery
(DynamoDB Local does not) and changes nothing when it does not.

When up fails after it changed something, it lists on standard error what it did
and what it left undone; running it again does the rest.`,
		billing:  true,
		settings: true,
		run:      runUp,
	},
	{
		group:   "migrate",
		name:    "plan",
		summary: `show what "migrate up" would do; change nothing`,
		help: `Shows what "ryno migrate up" would do, and any drift, without changing anything.
Exits with status 1 when up would refuse to run.`,
		billing:  true,
		settings: true,
		run:      runPlan,
	},
	{
		group:   "migrate",
		name:    "status",
		summary: "show each table and index, the schema version and any drift",
		help: `Shows each table and index with its state, the recorded schema version, any drift
from the schema and what "ryno migrate up" would do. Exits with status 1 on drift that
up cannot repair; missing tables are not an error.`,
		billing:  true,
		settings: true,
		run:      runStatus,
	},
	{
		group:   "migrate",
		name:    "down",
		summary: "delete the tables and all their data (needs --delete-all-data)",
		help: `Deletes the store's three tables and every item in them, and waits until they are
gone. Tables that do not exist are skipped. Nothing is deleted without
--delete-all-data.`,
		run: runDown,
	},
	migrateExportCommand,
}

func findMigrateCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func (r *runner) migrate(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return &usageError{command: "migrate", msg: "missing migrate command: up, plan, status, down or export"}
	}
	if args[0] == "help" {
		return r.help(append([]string{"migrate"}, args[1:]...))
	}
	cmd := findMigrateCommand(args[0])
	if cmd == nil {
		return &usageError{command: "migrate", msg: fmt.Sprintf("unknown migrate command %q", args[0])}
	}
	s, err := r.parse(cmd, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		r.printCommandHelp(cmd)
		return nil
	}
	if err != nil {
		return err
	}
	if cmd.offline != nil {
		return cmd.offline(r, s)
	}

	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	client, err := r.newClient(ctx, cmd, s)
	if err != nil {
		return err
	}
	opts := s.options()
	opts.Logger = log.New(r.stdout, "", 0)
	p, err := migrations.NewProvider(client, opts)
	if err != nil {
		return cmd.usage(err.Error())
	}
	err = cmd.run(ctx, r, p, s)
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
		return fmt.Errorf("%w (after --timeout %s)", err, s.timeout)
	}
	return err
}

func runUp(ctx context.Context, r *runner, p *migrations.Provider, _ *settings) error {
	res, err := p.Up(ctx)
	var drift *migrations.DriftError
	if errors.As(err, &drift) {
		what := "up changed nothing"
		if res != nil && res.Changed() { // found after it started: the tables changed meanwhile
			what = "up stopped"
		}
		fmt.Fprintf(r.stderr, "ryno: %s: the tables differ from the schema in ways up does not repair:\n", what)
		printDrift(r.stderr, drift.Drift)
		return reportedError(ExitError)
	}
	if err != nil {
		if res != nil && len(res.Pending) > 0 {
			printLeft(r, res)
		}
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(r.stdout, "warning: %s\n", w)
	}
	if !res.Changed() {
		fmt.Fprintf(r.stdout, "schema version %d is up to date; nothing to do\n", res.Version)
		return nil
	}
	fmt.Fprintf(r.stdout, "schema version %d is up to date: %s in %s\n",
		res.Version, count(len(res.Actions), "action"), res.Duration.Round(millisecond))
	return nil
}

// printLeft says, on standard error, what a failed up did and what it left
// undone: the error, which follows, says why.
func printLeft(r *runner, res *migrations.Result) {
	if res.Changed() {
		fmt.Fprintln(r.stderr, "up stopped; done:")
		printActions(r.stderr, res.Actions)
	} else {
		fmt.Fprintln(r.stderr, "up stopped; nothing was changed")
	}
	fmt.Fprintln(r.stderr, "not done:")
	printActions(r.stderr, res.Pending)
	fmt.Fprintln(r.stderr, `run "ryno migrate up" again to do the rest once the cause below is fixed`)
}

func runPlan(ctx context.Context, r *runner, p *migrations.Provider, _ *settings) error {
	plan, err := p.Plan(ctx)
	if err != nil {
		return err
	}
	if len(plan.Drift) > 0 {
		fmt.Fprintln(r.stdout, "drift:")
		printDrift(r.stdout, plan.Drift)
	}
	if errs := plan.Errors(); len(errs) > 0 {
		fmt.Fprintf(r.stdout, "up would refuse to run: %s above cannot be repaired by up\n", count(len(errs), "error"))
		return reportedError(ExitError)
	}
	if plan.Newer() {
		fmt.Fprintf(r.stdout, "up would refuse to run: schema version %d is newer than %d; migrate with a newer release\n",
			plan.RecordedVersion, plan.TargetVersion)
		return reportedError(ExitError)
	}
	if plan.Empty() {
		fmt.Fprintf(r.stdout, "schema version %d is up to date; nothing to do\n", plan.TargetVersion)
		return nil
	}
	fmt.Fprintf(r.stdout, "up would run (schema version %s -> %d):\n", versionString(plan.RecordedVersion), plan.TargetVersion)
	printActions(r.stdout, plan.Actions)
	return nil
}

func runStatus(ctx context.Context, r *runner, p *migrations.Provider, _ *settings) error {
	st, err := p.Status(ctx)
	if err != nil {
		return err
	}
	printStatus(r.stdout, st)
	if len(st.Errors()) > 0 {
		return reportedError(ExitError)
	}
	return nil
}

func runDown(ctx context.Context, r *runner, p *migrations.Provider, s *settings) error {
	res, err := p.Down(ctx, migrations.DownOptions{ConfirmDataLoss: s.deleteAllData})
	if errors.Is(err, migrations.ErrNotConfirmed) {
		return &usageError{command: "migrate down", msg: fmt.Sprintf(
			"migrate down deletes %s and every item in them; add --delete-all-data to confirm",
			strings.Join(p.Names().Tables(), ", "))}
	}
	if err != nil {
		return err
	}
	if !res.Changed() {
		fmt.Fprintf(r.stdout, "nothing to delete: no table with prefix %s exists\n", p.Names().Prefix)
		return nil
	}
	fmt.Fprintf(r.stdout, "deleted %s in %s\n", count(len(res.Actions), "table"), res.Duration.Round(millisecond))
	return nil
}
