// Package ryno stores entities, and the relationships between them, in Amazon
// DynamoDB, following the Kixx RynoDB schema: an entities table paged by type through
// a global secondary index, a relationship entries table with a reverse index, and
// an index entries table. Package migrations, and the ryno command built on it,
// create the tables.
//
// A [Client] wraps a DynamoDB client (anything satisfying [DynamoDBAPI], such as
// *dynamodb.Client) and a table prefix:
//
//	db, err := ryno.New(dynamodb.NewFromConfig(cfg), ryno.Options{TablePrefix: "myapp"})
//	e, err := db.Set(ctx, &ryno.Entity{
//		Key:        ryno.Key{Scope: "acme", Type: "person", ID: "ada"},
//		Attributes: map[string]any{"name": "Ada"},
//	})
//	got, err := db.Get(ctx, e.Key)
//
// This documentation is the reference of every call: what it does, what it
// promises, and what it sends. The manual, in the module's README.md and its docs
// directory, explains each part at length:
//
//   - docs/entities.md: the calls on entities, writes and timestamps, typed
//     entities, reading in part (Projection), paging and cursors, batches;
//   - docs/transactions.md: versions and conflicts, concurrency, transactions and
//     sequences;
//   - docs/relationships.md: lists, sets and ordered sets, what each costs, list
//     versions, reverse lookups;
//   - docs/deletes.md: deletes, owned entities, expiry, writers cut off;
//   - docs/indexes.md: map functions, conditions, unique and inline indexes;
//   - docs/items.md: the tables, attributes and numbers, items other programs wrote;
//   - docs/errors.md: every error, and the HTTP status it stands for;
//   - docs/production.md: AWS, Lambda, servers, tracing, cost per call, logging;
//   - docs/changes.md: the tables' streams as typed changes, and a stream reader
//     for servers (package changes);
//   - docs/bulk.md: Export and Import as JSON Lines (package bulk);
//   - docs/cli.md: the ryno command, and an application's own (package cli);
//   - docs/testing.md: DynamoDB Local, package rynotest, the crash test;
//   - docs/cost.md: the requests and rounds the benchmarks hold each call to, and
//     the write and read units of each call.
//
// # Requests and rounds
//
// Each call's documentation says which DynamoDB requests it sends and the rounds
// they take: requests in flight together count once, so a round is one wait for
// DynamoDB. The figures are those of the common case, a type without indexes and an
// entity without relationship lists, and the comment says what adds to them:
// index entries, lists, pages, owners, attempts lost to other writers. A Get is one
// GetItem in one round; a Delete of an entity nothing refers to, 5 requests in 3
// rounds. Input refused (a *ValidationError) costs no request. Options.OnCall
// reports what each call actually sent, in its [CallReport].
//
// # Entities
//
// An entity is identified by its [Key] (scope, type and id) and holds Attributes,
// Meta, Created, Updated, Version and Expires. [Client.Create], [Client.Update] and
// [Client.Set] write it whole; [Client.Patch] changes single attributes;
// [Client.Modify] reads, changes and writes it back. [Client.Get],
// [Client.BatchGet] and [Client.ListByType] read it. A struct that embeds [Record]
// stands for an entity: [GetAs], [CreateAs], [UpdateAs], [SetAs], [ModifyAs],
// [PageAs] and [ValuesAs] read and write it.
//
// Every call takes a context first and is linearizable: it behaves as if it ran
// alone, at one instant between its start and its return. An entity read from the
// store carries its Version, and writing it back requires that version (or
// [IfVersion], and [IfCreated] for the life of its key); otherwise the write fails
// with a *[ConflictError] and writes nothing.
//
// # Relationships
//
// A subject has, per predicate, an ordered list of objects: [Client.AddRelationships],
// [Client.RemoveRelationships], [Client.ReplaceRelationships], and [ReplaceLists] on
// an entity write, change it; [Client.Relationships], [Client.RelatedEntities],
// [Client.ReverseRelationships], [Client.HasRelationship] and
// [Client.CountRelationships] read it. A predicate named in Options.Sets is a set
// instead, and one in Options.OrderedSets an ordered set: each object once, one item
// per object, writers that never conflict. Options.Owns declares entities that own
// the objects of a list, deleted with them.
//
// # Deletes and expiry
//
// [Client.Delete] marks the entity (a tombstone), so that it reads as missing at
// once, then sweeps what refers to it: its lists, the entries pointing at it, its
// index entries. An entity whose Expires has passed reads as missing too, and the
// first writer that meets it deletes it. A write of more than one request that is
// cut off leaves an intent that the next writer, [Client.CompleteDelete] or
// [Client.Check] finishes.
//
// # Indexes and transactions
//
// Options.Indexes registers map functions per entity type; every write keeps their
// entries in step. [Client.QueryIndex] and [Client.QueryIndexEntries] answer
// equality, prefix and range queries (package indexing); a unique index holds each
// value for one entity of a scope ([Client.LookupUnique], [Client.GetByUnique]);
// [Client.Reindex] repairs a type's entries. [Client.Transact] commits operations on
// several entities ([TxCreate], [TxUpdate], [TxSet], [TxPatch], [TxDelete], [TxCheck],
// [TxAddRelationships], [TxRemoveRelationships]) all or none, and
// [Client.TransactNext] draws a sequence's next number with them.
//
// # Errors
//
// Invalid input is a *[ValidationError] ([ErrInvalid]), returned before any
// request. Match the others with errors.Is and errors.As: [ErrNotFound],
// [ErrExists], [ErrConflict] (*[ConflictError], *[LeaseError], *[ConditionError]),
// *[UniqueError], *[TransactionError], *[PartialWriteError], *[BatchError],
// *[UnreadableError], [ErrInvalidCursor], [ErrTableNotFound] and
// [ErrOutcomeUnknown]. Every message starts with one "ryno: ".
//
// # Start-up and observability
//
// [New] sends no request; [Client.CheckSchema] checks that the tables exist and
// match this version. Options.OnCall receives a [CallReport] of each call (its
// requests, rounds, retries and capacity), Options.TracerProvider makes each call an
// OpenTelemetry span, and Options.Logger logs retries, throttling and partial
// failures through log/slog. Package changes decodes the tables' streams into the
// changes the calls made.
package ryno
