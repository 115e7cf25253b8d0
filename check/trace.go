package check

import (
	"fmt"

	"github.com/rynodb/rynodb/entity"
)

// Trace is what a write cut off (a process killed, a Lambda function timed out)
// left behind: work that the next writer of the entity or list finishes, and a
// check with Repair too.
type Trace struct {
	Kind      TraceKind
	Key       entity.Key // the entity; for a list, its subject
	Predicate string     // for TraceList, the list's predicate
	Detail    string     // what was found
}

// TraceKind says what a Trace is.
type TraceKind string

const (
	// TraceDelete is an entity marked as being deleted (a tombstone): a Delete cut
	// off before it swept everything that refers to the entity.
	TraceDelete TraceKind = "delete"
	// TraceWrite is an entity marked as being written (a pending mark) for longer
	// than ryno.Options.ListLease: a write cut off before all its index entries were
	// written. Finishing it needs the indexes of the entity's type, which only a
	// client registering them has; the check of another client reports it only.
	TraceWrite TraceKind = "write"
	// TraceList is a relationship list left by a writer cut off (its lease expired,
	// its intent or intent parts are left, or requests or results of combined
	// writes older than a minute are left on its head), or whose head or markers
	// disagree with its entries.
	TraceList TraceKind = "list"
	// TraceUnindexed is a relationship entry that the reverse index does not hold
	// where readers look for it: written without its reverse key by a writer of an
	// earlier version after the store was migrated, or standing in the layout of
	// another shard count than its object's type's (ryno.Options.ShardedIncoming).
	// Neither ReverseRelationships nor a Delete of its object finds it (but while
	// the type is declared Resharding) until Repair writes its key and moves it.
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
