package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/rynodb/rynodb/bulk"
	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/ryno"
)

var exportCommand = &command{
	name:    "export",
	summary: "write the store's entities with their lists and sequences as JSON Lines",
	help: `Writes the entities of the store, or of one scope (--scope) and some of its types
(--type), as JSON Lines: one entity a line with its attributes and metadata in
DynamoDB JSON, timestamps, version, expiry, lists of every kind in order, and
sequences; nothing of the store's bookkeeping. The entities table is read with a
parallel scan (--segments), a page per segment at a time, whatever its size.

Progress goes to standard error: a bar with the throughput and an estimate of the
time left on a terminal, a plain line every 10 seconds otherwise; a summary ends
the run there.

Exit status: 0 on success; 1 on failure; 2 on a wrong or incomplete command line.`,
}

var importCommand = &command{
	name:    "import",
	summary: "write entities from JSON Lines of ryno export; resumable",
	help: `Writes each line of --in (a file of ryno export, or - for standard input) through
the store's write path: attributes, metadata, timestamps, version and expiry as the
line holds them, index entries and unique values as the application's indexes emit
them, lists (sets and ordered sets as the application declares them) and sequences.
An entity that exists already is kept, overwritten, or replaced when the line's
version is newer (--existing).

A line that cannot be read or written is reported with its number and writes
nothing; the import stops at it, or with --skip-bad-lines goes on. With --resume
FILE, the line to start from is kept in FILE as lines are done: a run cut off
(interrupted, killed) starts again there, and FILE is removed once every line is
done. Writing a line twice writes it once.

With --exclusive (no other client writes the imported entities or their unique
values while the import runs: a restore into an empty prefix, seeding), entities
not stored yet are written with BatchWriteItem, 50 lines at a time, instead of a
transaction each: half the write units, several times faster.

Progress goes to standard error: a bar with the throughput and an estimate of the
time left on a terminal (by bytes of the file), a plain line every 10 seconds
otherwise. A summary on standard output ends the run.

Exit status: 0 when every line was written or kept; 1 when lines were refused, or
on failure; 2 on a wrong or incomplete command line.`,
}

// transferFlags adds the flags of export and import to fs.
func (s *settings) transferFlags(fs *flag.FlagSet, cmd string) {
	switch cmd {
	case "export":
		fs.StringVar(&s.out, "out", "-", "`file` to write, - for standard output")
		fs.StringVar(&s.scope, "scope", "", "export the entities of this `scope` only")
		fs.Var(&s.types, "type", "with --scope, export entities of this `type` only; repeat for several")
		fs.IntVar(&s.segments, "segments", 4, "scan the entities table in this many parallel segments")
	case "import":
		fs.StringVar(&s.in, "in", "", "`file` of ryno export to import, - for standard input; required")
		fs.StringVar(&s.existing, "existing", "keep", "what to do with an entity that exists: keep, overwrite, or newer (replace an older version)")
		fs.BoolVar(&s.skipBadLines, "skip-bad-lines", false, "report lines that cannot be written and go on")
		fs.BoolVar(&s.exclusive, "exclusive", false, "no other client writes these entities meanwhile: write new ones in batches")
		fs.StringVar(&s.resume, "resume", "", "`file` keeping the line to resume from")
	}
	fs.BoolVar(&s.report, "report", false, reportUsage)
}

func (r *runner) export(ctx context.Context, args []string) error {
	s, err := r.parse(exportCommand, args)
	if errors.Is(err, flag.ErrHelp) {
		r.printCommandHelp(exportCommand)
		return nil
	}
	if err != nil {
		return err
	}
	opts := bulk.ExportOptions{Segments: s.segments}
	switch {
	case s.segments < 1 || s.segments > ryno.MaxCheckSegments:
		return exportCommand.usage(fmt.Sprintf("--segments must be between 1 and %d", ryno.MaxCheckSegments))
	case len(s.types) > 0 && s.scope == "":
		return exportCommand.usage("--type needs --scope")
	case len(s.types) > 0:
		for _, t := range s.types {
			opts.Types = append(opts.Types, entity.Type{Scope: s.scope, Name: t})
		}
	case s.scope != "":
		opts.Scopes = []string{s.scope}
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	api, err := r.newClient(ctx, exportCommand, s)
	if err != nil {
		return err
	}
	db, err := r.transferClient(api, s)
	if err != nil {
		return exportCommand.usage(err.Error())
	}
	w, closeOut, err := r.output(s.out)
	if err != nil {
		return err
	}
	total := approximateEntities(ctx, api, db.Names().Entities)
	bar := r.transferProgress("exported", "entities", total)
	opts.Progress = func(rep bulk.Report) { bar.update(int64(rep.Lines), rep) }
	done, err := db.Export(ctx, w, opts)
	bar.clear()
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(r.stderr, "exported %s with %s in %s\n", count(done.Lines, "entity"), count(done.Relations, "list entry"), round(done.Elapsed))
	return nil
}

func (r *runner) importLines(ctx context.Context, args []string) error {
	s, err := r.parse(importCommand, args)
	if errors.Is(err, flag.ErrHelp) {
		r.printCommandHelp(importCommand)
		return nil
	}
	if err != nil {
		return err
	}
	opts := bulk.ImportOptions{SkipBadLines: s.skipBadLines, Exclusive: s.exclusive}
	switch s.existing {
	case "keep":
	case "overwrite":
		opts.Existing = bulk.Overwrite
	case "newer":
		opts.Existing = bulk.Newer
	default:
		return importCommand.usage(fmt.Sprintf("--existing must be keep, overwrite or newer, not %q", s.existing))
	}
	if s.in == "" {
		return importCommand.usage("missing --in: the file to import, or - for standard input")
	}
	if opts.From, err = readResume(s.resume); err != nil {
		return err
	}
	in, size, closeIn, err := r.input(s.in)
	if err != nil {
		return err
	}
	defer closeIn()
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	api, err := r.newClient(ctx, importCommand, s)
	if err != nil {
		return err
	}
	db, err := r.transferClient(api, s)
	if err != nil {
		return importCommand.usage(err.Error())
	}
	counted := &countingReader{r: in}
	bar := r.transferProgress("imported", "lines", size)
	saved := time.Now()
	opts.Progress = func(rep bulk.Report) {
		bar.update(counted.n.Load(), rep)
		if s.resume != "" && time.Since(saved) > time.Second {
			saved = time.Now()
			writeResume(s.resume, rep.Resume)
		}
	}
	if s.skipBadLines {
		bad := 0
		progress := opts.Progress
		opts.Progress = func(rep bulk.Report) {
			for ; bad < len(rep.Errors); bad++ {
				bar.clear()
				fmt.Fprintf(r.stderr, "refused: %v\n", rep.Errors[bad])
			}
			progress(rep)
		}
	}
	done, err := db.Import(ctx, counted, opts)
	bar.clear()
	if s.resume != "" {
		finishResume(s.resume, done, err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(r.stdout, "imported %s in %s: %d written, %d kept as stored, %d refused; %s\n",
		count(done.Lines, "line"), round(done.Elapsed), done.Written, done.Kept, done.Bad, count(done.Relations, "list entry"))
	if done.Bad > 0 {
		return reportedError(ExitError)
	}
	return nil
}

// transferClient is the client of export and import, with the application's
// indexes, sets and ordered sets.
func (r *runner) transferClient(api *dynamodb.Client, s *settings) (*ryno.Client, error) {
	return ryno.New(api, r.clientOptions(s))
}

// output opens where export writes: standard output for "-".
func (r *runner) output(name string) (io.Writer, func() error, error) {
	if name == "-" || name == "" {
		return r.stdout, func() error { return nil }, nil
	}
	f, err := os.Create(name)
	if err != nil {
		return nil, nil, err
	}
	return f, f.Close, nil
}

// input opens what import reads, with its size when it is a file (0: unknown).
func (r *runner) input(name string) (io.Reader, int64, func(), error) {
	if name == "-" {
		return os.Stdin, 0, func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, nil, err
	}
	var size int64
	if info, err := f.Stat(); err == nil {
		size = info.Size()
	}
	return f, size, func() { f.Close() }, nil
}

// approximateEntities is DynamoDB's count of the entities table's items, which it
// updates every few hours; 0 when unknown.
func approximateEntities(ctx context.Context, api *dynamodb.Client, table string) int64 {
	out, err := api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil || out.Table == nil {
		return 0
	}
	return aws.ToInt64(out.Table.ItemCount)
}

// readResume returns the line a resume file names; 0 when there is none.
func readResume(name string) (int, error) {
	if name == "" {
		return 0, nil
	}
	b, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n < 0 {
		return 0, importCommand.usage(fmt.Sprintf("--resume %s holds no line number: %q", name, strings.TrimSpace(string(b))))
	}
	return n, nil
}

// writeResume keeps line in the resume file, replacing it whole.
func writeResume(name string, line int) {
	tmp := name + ".tmp"
	if os.WriteFile(tmp, []byte(strconv.Itoa(line)+"\n"), 0o600) == nil {
		_ = os.Rename(tmp, name)
	}
}

// finishResume removes the resume file of an import that did every line, and
// keeps where any other stopped.
func finishResume(name string, done bulk.Report, err error) {
	if err == nil {
		_ = os.Remove(name)
		return
	}
	writeResume(name, done.Resume)
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func round(d time.Duration) time.Duration { return d.Round(10 * time.Millisecond) }
