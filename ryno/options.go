package ryno

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/rynodb/rynodb/internal/paging"
	"github.com/rynodb/rynodb/internal/relationships"
)

// CursorKeySize is the length of Options.CursorKey: an AES-256 key.
const CursorKeySize = paging.KeySize

// Options configures a Client. Only TablePrefix is required.
type Options struct {
	// TablePrefix names the tables: TablePrefix_entities_master and so on. Required;
	// letters, digits, '_', '.' and '-' only.
	TablePrefix string

	// ConsistentRead makes Get, BatchGet and queries of the tables themselves strongly
	// consistent. Queries of global secondary indexes (ListByType) are always
	// eventually consistent. Default false: DynamoDB's eventually consistent reads.
	ConsistentRead bool

	// MaxConcurrency bounds how many requests one call sends at once: the batches
	// of a multi-item call, the transactions of a large Delete or list write.
	// Default 32. The SDK's default HTTP transport keeps 10 idle connections per
	// host; give it MaxConcurrency (see "Using real AWS" in docs/production.md).
	MaxConcurrency int

	// Retry bounds retries of items DynamoDB leaves unprocessed in batch requests,
	// and of batch requests it throttles once the SDK client's own retryer has given
	// up: a throttled request counts as one that processed none of its items. Server
	// errors, and throttling of other requests, are retried by the SDK client only.
	Retry RetryOptions

	// Conflicts bounds the attempts of a write that loses races with other writers:
	// a Set or Update without a Version, Modify, Patch of an indexed type, a list
	// write. Each attempt after the second waits with capped exponential backoff
	// and full jitter, so racing writers spread out instead of colliding again.
	// MaxAttempts counts the attempts of one call (default 10); then the call fails
	// with a *ConflictError. Defaults: BaseDelay 10ms, MaxDelay 1s. A list write
	// that lost to another writer's commit to the list (its head moved on) is no
	// write that cannot go through: such attempts wait a jitter over 4 × BaseDelay
	// that does not grow and count apart, up to 10 × MaxAttempts, so that writers
	// of one list in many processes take turns instead of giving up.
	Conflicts RetryOptions

	// CheckObjects makes every relationship write check, in the same transaction,
	// that the objects it writes edges to exist: an edge to a missing entity is
	// refused with ErrNotFound naming it. Default false: a list may name entities
	// created later. CheckObjects(bool) sets it for one call.
	CheckObjects bool

	// Sets names the predicates whose lists are sets: unordered, each object at most
	// once. A set keeps one item per object and no head or marker, so adding or
	// removing one object is one write of one item, and writers of one set never
	// conflict; its relationships list in object key order, with Index 0. Every
	// client of the same tables must declare the same sets, before any is written:
	// entries a predicate got as a list are not part of its set. See "Sets" in
	// docs/relationships.md for what each call promises.
	Sets []string

	// OrderedSets names the predicates whose lists are ordered sets: sets (each
	// object at most once, one item per object, no head or marker, writers that
	// never conflict) that list their objects in the order they were added, by the
	// adding client's clock (Options.Now). ReplaceRelationships sets the order. A
	// predicate is a set or an ordered set, not both; every client must declare the
	// same. See "Ordered sets" in docs/relationships.md.
	OrderedSets []string

	// Owns declares what the entities of a type own: the objects of one of their
	// lists. Deleting an owner marks everything it owns as being deleted,
	// recursively, before it deletes any of it, then deletes it, each with
	// everything that refers to it; a Delete cut off half-way is completed, what it
	// owns included, by whoever completes it. Every client deleting entities of the
	// type must declare the same. An Owns naming its ObjectType hides the tree from
	// this client's reads at the owner's tombstone, at a cost on every read of that
	// type.
	Owns []Owns

	// SeparateListWrites makes every AddRelationships and RemoveRelationships its
	// own read and transaction. By default, calls of one Client that wait for the
	// same list while another writes it are written together when the list is free:
	// the Adds queued in a row in one transaction, the Removes in another. Each call
	// still returns what its own objects changed, as if the calls had run one after
	// another at that commit, so writers of one list in one process stop racing for
	// it. Calls with CheckObjects are always written alone.
	SeparateListWrites bool

	// ListLease is how long a writer holds a relationship list for a change too
	// large for one transaction. A writer that is cut off holds it until it
	// expires; then the next writer of the list takes it over, finishes the writes
	// the cut writer recorded and rebuilds the list's head and markers from its
	// entries. Check treats an entity's pending mark older than ListLease as a write
	// cut off. Expiry compares the writers' clocks, so keep it well above their
	// skew, and above the time a large write takes. Default 30s.
	ListLease time.Duration

	// CursorKey seals the cursors of listings: each is encrypted and authenticated
	// with AES-256-GCM under this key, bound to its query and direction, so clients
	// can neither read the keys inside nor forge or alter a cursor; a cursor that was
	// altered, sealed with another key or not sealed fails with ErrInvalidCursor.
	// It must be CursorKeySize (32) random bytes. Empty (the default) leaves cursors
	// readable (base64url JSON with a checksum); either way a cursor must hold a key
	// its query could have returned.
	//
	// Every process serving the same clients must use the same key, or a page read
	// from one cannot continue on another: keep it in a secret store or an
	// environment variable, base64-encoded, and decode it at start-up. Changing the
	// key invalidates the cursors outstanding; those clients start their listings
	// over. New does not copy the slice: do not modify it afterwards.
	CursorKey []byte

	// Indexes are the indexes the store maintains; see Index. Names must be unique.
	Indexes []Index

	// ShardedTypes spreads the by-type listing of the types named over several
	// partition keys, for types written faster than one partition key of a GSI
	// takes; see ShardedType. Each type at most once.
	ShardedTypes []ShardedType

	// ShardedIncoming spreads the relationship entries pointing at entities of the
	// types named over several partition keys of the sharded reverse index
	// (incoming_shard), for entities that receive new edges faster than one
	// partition key of a GSI takes (a celebrity everyone follows, a tag every post
	// carries): each entry goes to the shard its subject hashes to.
	// ReverseRelationships, ReverseRelatedEntities and the sweep of a Delete then
	// read every shard, in parallel. Resharding works as for ShardedType, but the
	// entries are moved by Check with Repair (`ryno check --repair`), which scans
	// the relationship entries table. Each type at most once; every client of the
	// store must declare the same.
	ShardedIncoming []ShardedType

	// Now returns the current time, for Created and Updated. Default time.Now.
	// Timestamps are stored in UTC with millisecond precision.
	Now func() time.Time

	// OnCall, when set, receives a CallReport as each call of the Client returns:
	// the requests it sent, its retries and throttling, and the capacity DynamoDB
	// says it consumed (the client asks for it with ReturnConsumedCapacity INDEXES).
	// ctx is the context the call was given (with the call's span, when traced),
	// so a server can add the cost to the request it serves. OnCall runs on the
	// caller's goroutine, so it must be quick; calls made at once call it at once.
	OnCall func(ctx context.Context, r CallReport)

	// TracerProvider, when set, gives each call of the Client a span named
	// "ryno.<Method>" (ryno.Get, ryno.Set, ...), parent of the spans of its requests
	// when the DynamoDB client is instrumented (otelaws), with the call's report as
	// attributes and its retries as events. Nil (the default) traces nothing.
	TracerProvider trace.TracerProvider

	// Logger, when set, receives through log/slog:
	//   - Debug: write conflicts retried, and the report of each call at its end;
	//   - Info: batch items left unprocessed and retried, and calls that met a
	//     conflicting write;
	//   - Warn: each attempt DynamoDB throttled (the SDK's retries included), the
	//     store's retries after throttling, and writes whose response was lost;
	//   - Error: calls that may have left work undone (items left unprocessed,
	//     unknown outcome, partial writes).
	// Nil (the default) logs nothing.
	Logger *slog.Logger
}

// RetryOptions bounds the retries of unprocessed batch items. Retries wait with
// capped exponential backoff and full jitter.
type RetryOptions struct {
	// MaxAttempts is how many requests in a row may leave a chunk's items
	// unprocessed without any progress before the chunk is given up and reported in
	// a *BatchError. A response that processes some items resets the count.
	// Default 10.
	MaxAttempts int
	// BaseDelay is the backoff before the first retry. Default 25ms.
	BaseDelay time.Duration
	// MaxDelay caps the backoff. Default 2s.
	MaxDelay time.Duration
}

// Defaults applied by New to zero fields.
const (
	defaultMaxConcurrency = 32
	defaultMaxAttempts    = 10
	defaultBaseDelay      = 25 * time.Millisecond
	defaultMaxDelay       = 2 * time.Second

	defaultListLease = 30 * time.Second

	defaultConflictAttempts  = 10
	defaultConflictBaseDelay = 10 * time.Millisecond
	defaultConflictMaxDelay  = time.Second
)

func (o Options) withDefaults() Options {
	if o.MaxConcurrency == 0 {
		o.MaxConcurrency = defaultMaxConcurrency
	}
	if o.Retry.MaxAttempts == 0 {
		o.Retry.MaxAttempts = defaultMaxAttempts
	}
	if o.Retry.BaseDelay == 0 {
		o.Retry.BaseDelay = defaultBaseDelay
	}
	if o.Retry.MaxDelay == 0 {
		o.Retry.MaxDelay = defaultMaxDelay
	}
	if o.Conflicts.MaxAttempts == 0 {
		o.Conflicts.MaxAttempts = defaultConflictAttempts
	}
	if o.Conflicts.BaseDelay == 0 {
		o.Conflicts.BaseDelay = defaultConflictBaseDelay
	}
	if o.Conflicts.MaxDelay == 0 {
		o.Conflicts.MaxDelay = defaultConflictMaxDelay
	}
	if o.ListLease == 0 {
		o.ListLease = defaultListLease
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

func (o Options) validate() error {
	switch {
	case o.MaxConcurrency < 0:
		return invalid("Options.MaxConcurrency", "", "must not be negative")
	case o.Retry.MaxAttempts < 0:
		return invalid("Options.Retry.MaxAttempts", "", "must not be negative")
	case o.Retry.BaseDelay < 0 || o.Retry.MaxDelay < 0:
		return invalid("Options.Retry", "", "delays must not be negative")
	case o.ListLease < 0:
		return invalid("Options.ListLease", o.ListLease.String(), "must not be negative")
	case o.Conflicts.MaxAttempts < 0:
		return invalid("Options.Conflicts.MaxAttempts", "", "must not be negative")
	case o.Conflicts.BaseDelay < 0 || o.Conflicts.MaxDelay < 0:
		return invalid("Options.Conflicts", "", "delays must not be negative")
	case len(o.CursorKey) != 0 && len(o.CursorKey) != CursorKeySize:
		return invalid("Options.CursorKey", "", fmt.Sprintf("must be %d bytes (AES-256), not %d", CursorKeySize, len(o.CursorKey)))
	}
	for _, f := range []struct {
		name       string
		predicates []string
	}{{"Options.Sets", o.Sets}, {"Options.OrderedSets", o.OrderedSets}} {
		for _, p := range f.predicates {
			var v *ValidationError
			if err := relationships.ValidatePredicate(p); errors.As(err, &v) {
				return invalid(f.name, p, v.Reason)
			}
		}
	}
	for _, p := range o.OrderedSets {
		if slices.Contains(o.Sets, p) {
			return invalid("Options.OrderedSets", p, "is also in Options.Sets: a predicate is a set or an ordered set")
		}
	}
	return nil
}
