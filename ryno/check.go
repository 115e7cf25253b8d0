package ryno

import (
	"context"
	"fmt"

	"github.com/rynodb/rynodb/internal/store"
)

// Orphan is an entry that refers to an entity that does not exist.
type Orphan struct {
	Entry ItemKey // the entry's table and primary key
	// Role says what is missing: the "subject", "object" or "entity" the entry names;
	// or for a "claim" on a unique value, the entity holds no entry of that value.
	Role    string
	Missing Key // the missing entity, or the claim's owner; zero when the entry names none
}

func (o Orphan) String() string {
	if o.Missing == (Key{}) {
		return fmt.Sprintf("%s: malformed entry", o.Entry)
	}
	if o.Role == store.RoleClaimed {
		return fmt.Sprintf("%s: entity %s no longer holds the value it claims", o.Entry, o.Missing)
	}
	return fmt.Sprintf("%s: %s %s does not exist", o.Entry, o.Role, o.Missing)
}

// Trace is what a write cut off (a process killed, a Lambda function timed out)
// left behind: work that the next writer of the entity or list finishes, and Check
// with Repair too.
type Trace struct {
	Kind      TraceKind
	Key       Key    // the entity; for a list, its subject
	Predicate string // for TraceList, the list's predicate
	Detail    string // what was found
}

// TraceKind says what a Trace is.
type TraceKind string

const (
	// TraceDelete is an entity marked as being deleted (a tombstone): a Delete cut
	// off before it swept everything that refers to the entity.
	TraceDelete TraceKind = "delete"
	// TraceWrite is an entity marked as being written (a pending mark) for longer
	// than Options.ListLease: a write cut off before all its index entries were
	// written. Finishing it needs the indexes of the entity's type, which only a
	// client registering them has; Check of another client reports it only.
	TraceWrite TraceKind = "write"
	// TraceList is a relationship list left by a writer cut off (its lease expired,
	// or its intent or intent parts are left), or whose head or markers disagree
	// with its entries.
	TraceList TraceKind = "list"
	// TraceUnindexed is a relationship entry that the reverse index does not hold:
	// written without its reverse key by a writer of an earlier version after the
	// store was migrated. Neither ReverseRelationships nor a Delete of its object
	// finds it until Repair writes its key.
	TraceUnindexed TraceKind = "unindexed"
	// TraceExpired is an entity whose Expires has passed but that is still stored:
	// no writer of its key, stream consumer or repair has deleted it and what
	// refers to it yet. Readers already see it as missing; a repair deletes it as
	// Delete does.
	TraceExpired TraceKind = "expired"
)

func (t Trace) String() string {
	if t.Kind == TraceList || t.Kind == TraceUnindexed {
		return fmt.Sprintf("%s %s -%s->: %s", t.Kind, t.Key, t.Predicate, t.Detail)
	}
	return fmt.Sprintf("%s %s: %s", t.Kind, t.Key, t.Detail)
}

// CheckOptions configures Check.
type CheckOptions struct {
	// Repair deletes every orphan found and finishes every trace.
	Repair bool
	// Segments splits the scan of each table into that many segments read in
	// parallel (DynamoDB's parallel scan), for large tables. Default 1; at most
	// MaxCheckSegments. Batch requests stay within Options.MaxConcurrency in all.
	Segments int
	// OnOrphan, when set, is called for each orphan found.
	OnOrphan func(Orphan)
	// OnTrace, when set, is called for each trace found.
	OnTrace func(Trace)
	// Progress, when set, is called after each page of entries.
	Progress func(CheckProgress)
}

// MaxCheckSegments bounds CheckOptions.Segments.
const MaxCheckSegments = 1000

// CheckProgress counts what a Check has done so far.
type CheckProgress struct {
	Relationships int // relationship entries scanned
	IndexEntries  int // index entries scanned
	Orphans       int // orphans found
	Repaired      int // orphans deleted
	Kept          int // orphans not deleted, as their entity was created meanwhile
	Traces        int // traces of writes cut off found
	Finished      int // traces finished
}

// Check scans the store for what a write cut off left, and for orphans.
//
// Traces: entities marked as being deleted or written (TraceDelete, TraceWrite),
// entities expired but still stored (TraceExpired), and relationship lists left
// leased, with intents, or whose heads and markers disagree with their entries
// (TraceList). With Repair it finishes each: it completes the Delete (of an expired
// entity too), writes the index entries the entity's record calls for, or takes the list
// over, finishes the writes of its intent and rebuilds its head and markers from the
// entries, the way the next writer would. A mark or lease that is still live belongs
// to a writer at work and is left alone.
//
// Orphans: relationship entries whose subject or object does not exist, index
// entries whose entity does not exist, bookkeeping of lists whose subject does not
// exist, and claims of unique values their entity no longer holds. An entity being
// deleted counts as missing. With Repair, what refers to each missing entity is
// deleted as a Delete of it would, under the condition that it stays missing: an
// entity created meanwhile keeps its entries, which are counted as Kept. Lists that
// lose entries keep exact heads and markers. Malformed entries, which name no
// entity, are deleted as they are.
//
// Each segment of a scan holds one page at a time, whatever the size of the tables.
// OnOrphan, OnTrace and Progress are called from one goroutine at a time.
//
// It scans the three tables one after the other, each with one Scan per 1 MB page
// and segment (segments in parallel), and reads the entities each page of entries
// names in BatchGetItem requests; lists with traces are read again, and Repair adds
// the writes of what it finishes or deletes.
//
// An entry written just before its entity (a relationship added before its object is
// created, say) is an orphan until then: run Check when such writes are quiet.
func (c *Client) Check(ctx context.Context, opts CheckOptions) (_ CheckProgress, err error) {
	ctx, call, err := c.begin(ctx, "Check")
	defer call.end(&err)
	if err != nil {
		return CheckProgress{}, err
	}
	if opts.Segments < 0 || opts.Segments > MaxCheckSegments {
		return CheckProgress{}, invalid("CheckOptions.Segments", fmt.Sprint(opts.Segments), fmt.Sprintf("must be between 1 and %d", MaxCheckSegments))
	}
	done, err := c.core.Check(ctx, opts.inStore())
	return CheckProgress(done), err
}

// inStore is o as the store's check takes it, reporting the public forms of what
// it finds.
func (o CheckOptions) inStore() store.CheckOptions {
	so := store.CheckOptions{Repair: o.Repair, Segments: o.Segments}
	if o.OnOrphan != nil {
		so.OnOrphan = func(f store.Orphan) { o.OnOrphan(Orphan{Entry: f.Entry, Role: f.Role, Missing: f.Missing}) }
	}
	if o.OnTrace != nil {
		so.OnTrace = func(t store.Trace) {
			o.OnTrace(Trace{Kind: TraceKind(t.Kind), Key: t.Key, Predicate: t.Predicate, Detail: t.Detail})
		}
	}
	if o.Progress != nil {
		so.Progress = func(p store.CheckProgress) { o.Progress(CheckProgress(p)) }
	}
	return so
}
