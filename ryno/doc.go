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
// are attributevalue.Number and keep every digit; Entity.Decode fills a struct.
//
// # Writes
//
// Create, Update and Set each replace the whole entity item with one conditional
// PutItem, plus the relationship and index writes the entity calls for. The store sets Created once and Updated on every write, in UTC with
// millisecond precision. An entity read from the store carries its Created time, so
// writing it back costs one request.
//
// # Relationships
//
// A subject has, per predicate, an ordered list of objects, stored one entry per item
// in the relationship entries table. Entity.Relationships written by Set, Create and
// Update replaces the lists it names; AddRelationships, RemoveRelationships and
// ReplaceRelationships change one list, writing only the difference. Relationships,
// RelatedEntities, ReverseRelationships and HasRelationship read them. Delete removes
// every entry to or from the entity before the entity itself.
//
// # Indexes
//
// Options.Indexes registers map functions per entity type; every write keeps the index
// entries table in step, diffed against the table itself. QueryIndex and
// QueryIndexEntries answer equality, prefix and range queries on order-preserving
// values (package indexing). Reindex repairs a type's entries after a map function
// changes, and Check finds entries whose entities are gone.
//
// # Errors
//
// Invalid input is reported as a *ValidationError (errors.Is(err, ErrInvalid))
// before any request is sent. A missing entity is ErrNotFound, a duplicate Create is
// ErrConflict, a bad cursor is ErrInvalidCursor, all matched with errors.Is. Batch
// reads and writes that could not finish return a *BatchError naming the items.
//
// # Batches
//
// Calls that read or write many items split them into BatchGetItem (100 keys) and
// BatchWriteItem (25 items) requests, send independent requests in parallel (at most
// Options.MaxConcurrency at once) and retry items DynamoDB leaves unprocessed with
// capped exponential backoff and jitter. No item is dropped: what could not be done
// is named in the error.
package ryno
