package bulk

import (
	"strconv"
	"time"

	"github.com/rynodb/rynodb/entity"
)

// ExportOptions says what an export holds and how it reads it.
type ExportOptions struct {
	// Scopes and Types choose the entities: those of a scope listed, or of a type
	// listed (entity.Type names a scope and a type). Both empty: every entity.
	Scopes []string
	Types  []entity.Type
	// Segments splits the scan of the entities table into that many segments read
	// in parallel (DynamoDB's parallel scan). Default 4, at most 1000.
	Segments int
	// Progress, when set, is called after each page of entities written out, from
	// one goroutine at a time.
	Progress func(Report)
}

// Existing says what an import does with an entity that exists already.
type Existing int

const (
	// Keep leaves the stored entity as it is (the default).
	Keep Existing = iota
	// Overwrite replaces it with the line: attributes, Meta, timestamps and lists.
	// Its version becomes the line's, or the stored one's next when that is higher.
	Overwrite
	// Newer replaces it only when the line's version is higher than the stored one.
	Newer
)

// MaxErrors bounds Report.Errors.
const MaxErrors = 100

func (e Existing) String() string {
	switch e {
	case Keep:
		return "keep"
	case Overwrite:
		return "overwrite"
	case Newer:
		return "newer"
	}
	return "unknown"
}

// ImportOptions says how an import writes.
type ImportOptions struct {
	// Existing says what to do with entities that exist already.
	Existing Existing
	// SkipBadLines reports a line that cannot be read or written (a *LineError)
	// through Progress and goes on; otherwise the import stops at the first.
	SkipBadLines bool
	// From skips the lines before this one (numbered from 1): a resumed import
	// passes Report.Resume of the run it continues. Lines are written whole, so
	// writing one again changes nothing.
	From int
	// Exclusive says no other client writes the entities of the lines, nor the
	// unique values they hold, while the import runs: a restore into an empty
	// prefix, the seeding of an environment. Each entity that is not stored, none
	// of whose lists, sets or sequences are either, is then written as plain items
	// with BatchWriteItem, 50 lines at a time (its lists' items first, the entity
	// last), not in a transaction of its own: one write unit per item instead of
	// two, and several times faster. Lines of entities that exist, holding
	// unique values (a claim is conditional) or with Options.CheckObjects are
	// written one at a time as without it. An entity is written whole or not at all
	// as ever, but a run cut off may leave the lists of entities it did not write,
	// in part: the run resumed deletes them before writing those lines again, and
	// a reader meanwhile may meet them.
	Exclusive bool
	// Progress, when set, is called after each line written (or refused), from one
	// goroutine at a time.
	Progress func(Report)
}

// Report counts what an export or an import did so far.
type Report struct {
	Lines     int // lines written out, or read
	Written   int // entities written by an import
	Kept      int // entities an import left as stored (Keep, Newer)
	Bad       int // lines refused
	Relations int // objects of lists exported or imported
	// Resume is the line an import cut off now would start from (ImportOptions.From):
	// every line before it is done.
	Resume  int
	Elapsed time.Duration
	// Errors are the first lines refused (up to 100), as *LineError, when
	// SkipBadLines goes on; Bad counts them all.
	Errors []error
}

// LineError reports a line an import could not read or write.
type LineError struct {
	Line int // numbered from 1
	Key  entity.Key
	Err  error
}

func (e *LineError) Error() string {
	if e.Key == (entity.Key{}) {
		return "line " + strconv.Itoa(e.Line) + ": " + e.Err.Error()
	}
	return "line " + strconv.Itoa(e.Line) + " (" + e.Key.String() + "): " + e.Err.Error()
}

func (e *LineError) Unwrap() error { return e.Err }
