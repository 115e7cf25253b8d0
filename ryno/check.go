package ryno

import (
	"context"
	"fmt"

	"github.com/rynodb/rynodb/check"
)

// Orphan is an entry that refers to an entity that does not exist. It is package
// check's type.
type Orphan = check.Orphan

// Trace is what a write cut off (a process killed, a Lambda function timed out)
// left behind: work that the next writer of the entity or list finishes, and Check
// with Repair too. It is package check's type.
type Trace = check.Trace

// TraceKind says what a Trace is. It is package check's type.
type TraceKind = check.TraceKind

// The kinds of Trace; see package check for what each is.
const (
	TraceDelete    = check.TraceDelete    // an entity marked as being deleted
	TraceWrite     = check.TraceWrite     // an entity marked as being written
	TraceList      = check.TraceList      // a relationship list left by a writer cut off
	TraceUnindexed = check.TraceUnindexed // a relationship entry the reverse index lacks
	TraceExpired   = check.TraceExpired   // an entity expired but still stored
)

// CheckOptions configures Check. It is package check's Options.
type CheckOptions = check.Options

// MaxCheckSegments bounds CheckOptions.Segments.
const MaxCheckSegments = check.MaxSegments

// CheckProgress counts what a Check has done so far. It is package check's
// Progress.
type CheckProgress = check.Progress

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
	return c.maint.Check(ctx, opts)
}
