package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/migrations"
	"github.com/rynodb/rynodb/ryno"
)

// Exit statuses returned by Main.
const (
	ExitOK    = 0 // success
	ExitError = 1 // the command failed, or found drift of error severity
	ExitUsage = 2 // the command line is wrong or incomplete
)

// Config adapts the command to an application.
type Config struct {
	// Indexes are the application's indexes, as given to ryno.Options.Indexes. The
	// reindex command runs their map functions, which only the application has, and
	// check --repair needs them to finish a write cut off while writing an entity's
	// index entries.
	Indexes []ryno.Index
	// Owns, Sets and OrderedSets are the application's, as given to ryno.Options:
	// check --repair completes a Delete cut off, which deletes what an owner owns,
	// and tells a set's entries from a list's.
	Owns        []ryno.Owns
	Sets        []string
	OrderedSets []string
	// ShardedTypes are the application's, as given to ryno.Options: reindex moves
	// the entities of a type whose shard count changed, and every command lists
	// a sharded type's entities where they are.
	ShardedTypes []ryno.ShardedType
	// ShardedIncoming is the application's, as given to ryno.Options: check
	// --repair moves the entries of a type whose shard count changed.
	ShardedIncoming []ryno.ShardedType
}

// clientOptions returns the options of the client of a command: the
// application's configuration, with the tables and reports of s.
func (r *runner) clientOptions(s *settings) ryno.Options {
	return ryno.Options{TablePrefix: s.prefix, Indexes: r.cfg.Indexes, Owns: r.cfg.Owns, Sets: r.cfg.Sets,
		OrderedSets: r.cfg.OrderedSets, ShardedTypes: r.cfg.ShardedTypes, ShardedIncoming: r.cfg.ShardedIncoming, OnCall: s.reportTo(r.stderr)}
}

// Main runs the stock ryno command, which has no indexes: Run with a zero Config.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return Run(ctx, Config{}, args, stdout, stderr)
}

// Run runs ryno as configured by cfg with args, the command line without the program
// name, writing output to stdout and errors to stderr, and returns the exit status.
// ctx cancels the work in progress, as on an interrupt. An application that registers
// indexes calls it from its own binary to offer reindex:
//
//	os.Exit(cli.Run(ctx, cli.Config{Indexes: indexes}, os.Args[1:], os.Stdout, os.Stderr))
//
// Each command sends what the call behind it sends: migrate up, plan, status and
// down those of migrations.Provider's Up, Plan, Status and Down, check those of
// ryno's Client.Check, reindex those of Client.Reindex. migrate export, iam-policy
// and help send none, and a wrong command line is refused before any request.
func Run(ctx context.Context, cfg Config, args []string, stdout, stderr io.Writer) int {
	r := &runner{cfg: cfg, stdout: stdout, stderr: stderr, getenv: os.Getenv, isTerminal: isTerminal}
	return r.exit(r.run(ctx, args))
}

// runner carries what every command writes to and reads from.
type runner struct {
	cfg            Config
	stdout, stderr io.Writer
	getenv         func(string) string
	isTerminal     func(io.Writer) bool // whether progress lines can be shown on a writer
}

func (r *runner) run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return &usageError{msg: "missing command"}
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "migrate":
		return r.migrate(ctx, rest)
	case "check":
		return r.check(ctx, rest)
	case "reindex":
		return r.reindex(ctx, rest)
	case "export":
		return r.export(ctx, rest)
	case "import":
		return r.importLines(ctx, rest)
	case "iam-policy":
		return r.iamPolicy(rest)
	case "help", "-h", "-help", "--help":
		return r.help(rest)
	case "version":
		if len(rest) > 0 {
			return &usageError{msg: fmt.Sprintf("version takes no arguments, got %q", rest[0])}
		}
		fmt.Fprintf(r.stdout, "ryno %s, schema version %d\n", moduleVersion(), migrations.CurrentVersion)
		return nil
	default:
		return &usageError{msg: fmt.Sprintf("unknown command %q", cmd)}
	}
}

// exit reports err on stderr and returns the exit status for it.
func (r *runner) exit(err error) int {
	var usage *usageError
	var reported reportedError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &usage):
		fmt.Fprintf(r.stderr, "ryno: %s\n", usage.msg)
		fmt.Fprintf(r.stderr, "Run 'ryno help%s' for usage.\n", prefixSpace(usage.command))
		return ExitUsage
	case errors.As(err, &reported):
		return int(reported)
	default:
		fmt.Fprintf(r.stderr, "%s%s\n", errs.Prefix, errs.Message(err))
		return ExitError
	}
}

// usageError is a wrong or incomplete command line. command names the command whose
// help applies, such as "migrate up"; empty for ryno's own.
type usageError struct {
	command string
	msg     string
}

func (e *usageError) Error() string { return e.msg }

// reportedError is a failure already written out; it only sets the exit status.
type reportedError int

func (e reportedError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func prefixSpace(s string) string {
	if s == "" {
		return ""
	}
	return " " + s
}

func moduleVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}
