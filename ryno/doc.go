// Package ryno stores entities, and the relationships between them, in Amazon
// DynamoDB, following the Kixx RynoDB schema: an entities table paged by type through
// a global secondary index, a relationship entries table, and an index entries table.
//
// A Client wraps a DynamoDB client (anything satisfying DynamoDBAPI, such as
// *dynamodb.Client) and a table prefix:
//
//	db, err := ryno.New(dynamodb.NewFromConfig(cfg), ryno.Options{TablePrefix: "myapp"})
//	e, err := db.Set(ctx, &ryno.Entity{
//		Key:        ryno.Key{Scope: "acme", Type: "person", ID: "ada"},
//		Attributes: map[string]any{"name": "Ada"},
//	})
//	got, err := db.Get(ctx, e.Key)
//
// # Keys and attributes
//
// An entity is identified by its scope, type and id; each is non-empty UTF-8 without
// control characters and may contain any other character, ':' and '%' included.
// User attribute names must not start with '_', the namespace of the store's own
// attributes (_id, _scope, _type, _created, _updated, _meta, ...). Numbers read back
// into a map are json.Number, which keeps every digit and encodes to JSON as a
// number. A big.Int, big.Float or big.Rat is stored as an exact number (N); one
// DynamoDB cannot hold (more than 38 significant digits, out of range, 1/3) is
// refused with a *ValidationError before any request, as is a value attributevalue
// would store as an empty map although it holds data.
//
// # Typed entities
//
// A struct that embeds Record stands for an entity: GetAs reads one, CreateAs,
// UpdateAs and SetAs write one back and refresh its Record (key, Created, Updated,
// Version), so that a write checks the version read. UpdateAs, SetAs and ModifyAs
// change only the attributes the struct names and keep the others. PageAs and
// ValuesAs decode listings; EntityOf and Entity.Decode convert between the two
// forms.
//
// # Writes, versions and conflicts
//
// Create, Update and Set each replace the whole entity item; Patch sets, removes and
// adds to single attributes. The store sets Created once and Updated on every write,
// in UTC with millisecond precision, and bumps Version: 1 on create, one more on
// every write. Times another program stored in another RFC 3339 layout (the
// original JavaScript RynoDB's 2019-01-01T00:00:00Z) are read, and the entity's
// next write stores them in the store's.
//
// Every call is linearizable: it behaves as if it ran alone, at one instant between
// its start and its return. An entity read from the store carries its Version, and
// Update or Set of it writes only if the stored entity still has that version; a
// *ConflictError (ErrConflict) says someone else changed it, and nothing was
// written. Modify is the read-modify-write that retries such conflicts. Writes
// without a version (a blind Set) read the stored version and write under it,
// retrying within Options.Conflicts. Delete marks the entity first (a tombstone),
// so it reads as missing at once, then sweeps what refers to it; a write that meets
// the mark completes the Delete, as CompleteDelete does for a stream consumer. An
// entity whose Expires has passed reads as missing
// too, and is deleted the same way by the first writer that meets it, by a stream
// consumer once DynamoDB's time to live removed it (Cleanup), or by Check's repair.
//
// The entity and its index entries change together: in one TransactWriteItems when
// the changes fit in one, otherwise entity first, with a mark the next writer takes
// over from. An inline index (Index.Inline) has no entries: its one value per
// entity is an attribute of the entity item, in a GSI of the entities table, so it
// changes with the item in a plain PutItem. A write whose response is lost recognises its own write by a token
// stored on the item, or fails with ErrOutcomeUnknown when another writer changed
// the item since.
//
// # Relationships
//
// A subject has, per predicate, an ordered list of objects, stored one entry per item
// in the relationship entries table. The ReplaceLists option of Create, Update, Set
// and Modify replaces the lists it names, with the entity; Get with
// WithRelationships fills Entity.Relationships, which no write sends.
// AddRelationships, RemoveRelationships and ReplaceRelationships change one list, writing only the difference. Relationships,
// RelatedEntities, ReverseRelationships, ReverseRelatedEntities and HasRelationship
// read them; ReverseRelationships answers who points at an entity, under one
// predicate or any, ordered by predicate, subject and position whatever the order of
// the writes. Every listing has an iterator over all its pages (AllRelationships,
// AllRelatedEntities, AllReverseRelationships, AllReverseRelatedEntities). Delete
// removes every entry to or from the entity before the entity itself.
//
// Each list write is linearizable for its subject and predicate. A list has a head
// (its version, next free position, count and a digest of its entries) and a marker
// per object (the positions of its entries), stored beside its entries; a write
// commits the entries, markers and head in one transaction conditional on what it
// read, and reads and plans again when another writer got there first. Add and
// Remove return the objects they changed. The subject must exist; with
// Options.CheckObjects or CheckObjects(true), the objects too. Changes too large for
// one transaction take a lease on the list and record their intent before writing
// entries; other writers wait (then fail with a *LeaseError). Calls of one Client
// waiting for the same list are written together (Options.SeparateListWrites).
//
// A predicate in Options.Sets is a set instead: unordered, each object once, one
// item per object with no head or marker, so adding or removing an object is one
// write and writers of a set never conflict. One in Options.OrderedSets is a set
// that lists its objects in the order they were added, by a position kept in the
// key of the by-object index.
//
// Options.Owns declares what an entity owns, the objects of one of its lists:
// Delete deletes what an owner owns first, recursively, and InBackground lets it
// return once the owner reads as deleted (Wait waits for the rest).
//
// # Writers cut off
//
// Every write of more than one request leaves an intent first: a lease with its
// recorded writes on a list, a pending mark on an entity, a tombstone for a Delete.
// A writer that meets one that expired finishes it before its own write, so nothing
// plans against bookkeeping a crash left half-written, and Check with Repair finishes
// what no writer came back to (Trace).
//
// # Transactions
//
// Transact commits operations on several entities in one TransactWriteItems, all or
// none: TxCreate, TxUpdate, TxSet, TxPatch, TxDelete, TxCheck, TxAddRelationships and
// TxRemoveRelationships, with conditions on attributes (If, Attr). It reads what the
// operations need in one round, then sends the transaction; a refusal is a
// *TransactionError saying, for each operation refused, why. TransactNext draws the
// next number of an entity's sequence and commits it with the operations built for
// it.
//
// # Indexes
//
// Options.Indexes registers map functions per entity type; every write keeps the index
// entries table in step, diffed against the table itself. QueryIndex and
// QueryIndexEntries answer equality, prefix and range queries on order-preserving
// values (package indexing); AllInIndex and AllIndexEntries iterate over every page.
// A unique index (Index.Unique) holds each value for one entity of a scope, claimed
// in the same transaction as the entity's write; LookupUnique and GetByUnique find
// the entity holding a value. Reindex repairs a type's entries after a map function
// changes, and Check finds entries and claims whose entities are gone, and what
// writes cut off left.
//
// # Start-up
//
// New sends no request. CheckSchema checks that the tables and indexes exist and
// match this version (ErrTableNotFound, ErrSchemaMismatch), in one parallel round
// of DescribeTable and one GetItem. A request that meets a missing table fails
// with a *TableNotFoundError naming it.
//
// # Listings
//
// Every listing takes a PageOptions (limit, cursor, direction, consistent read) and
// has an iterator form. ListByType takes a Type and index queries a ScopedIndex:
// named fields where two strings could be swapped. A cursor is checked against its
// query before any request; Options.CursorKey seals cursors.
//
// # Errors
//
// Invalid input is reported as a *ValidationError (errors.Is(err, ErrInvalid))
// before any request is sent. A missing entity is ErrNotFound, a duplicate Create is
// ErrExists, a version conflict is a *ConflictError matching ErrConflict, a bad
// cursor is ErrInvalidCursor, a missing table ErrTableNotFound, all matched with
// errors.Is. Every message starts with one "ryno: ". A write that stored the
// entity but not the rest returns a *PartialWriteError carrying it; a client that
// lacks an index the entity was written with gets an *UnknownIndexError. Batch reads
// and writes that could not finish return a *BatchError naming the items. An entity
// item the store holds but cannot read (ErrUnreadable) is named by an
// *UnreadableError; a listing returns it with the page of the other items, and its
// iterator yields it and goes on.
//
// # Batches
//
// Calls that read or write many items split them into BatchGetItem (100 keys) and
// BatchWriteItem (25 items) requests, send independent requests in parallel (at most
// Options.MaxConcurrency at once) and retry items DynamoDB leaves unprocessed with
// capped exponential backoff and jitter, throttled requests too. No item is
// dropped: what could not be done is named in the error.
//
// # Observability
//
// Options.OnCall receives a CallReport as each call returns: its requests by API,
// rounds, retries, throttling, unprocessed items and the capacity consumed by
// table and index, which answers what a call cost. Options.TracerProvider makes
// each call an OpenTelemetry span (ryno.Get, ryno.Set, ...), parent of the spans
// of its requests when the DynamoDB client is instrumented (otelaws), carrying the
// report as attributes. Options.Logger logs retries, throttling, conflicts and
// partial failures through log/slog. A client given none of them adds no work to
// its calls.
//
// # Change events
//
// With the tables' streams on (migrations.Options.Streams), package changes decodes
// their records into what the calls did: entities created, updated and deleted,
// entries added and removed, unique values claimed and released. EntityFromItem
// decodes an entity item as a record, an export or a backup holds it.
package ryno
