// Package store is the machinery under package ryno's public face.
//
// It owns:
//   - the core every part shares (Core): the tables and the requests that read
//     them, conditional writes settled within the retry policy, and the guards of
//     changes made in several transactions (guard.go);
//   - the writes of entities: Create, Update and Set (Write), each attempt
//     reading what its plan needs, then committing the entity with its index
//     entries, unique claims and lists in one transaction, or under a pending mark
//     when they do not fit in one (put*.go); the upsert that needs no
//     read (upsert.go), over any shape of the type the client remembers
//     (shapes.go); Patch's one UpdateItem (patch.go); the lookup of a unique value
//     (unique.go);
//   - Transact: each operation read and planned, the transaction assembled within
//     DynamoDB's limits, and its refusals read (transact*.go);
//   - the list engine: the write of a relationship list in one transaction
//     planned from its head and markers (lists.go), and under a lease when it does
//     not fit in one (lease.go), the objects of its entries checked (object_checks.go); concurrent calls on one list written together
//     (list_queue.go); sets and ordered sets, one item per object, and the
//     positions of ordered sets (sets*.go, ordered_sets.go);
//   - the Delete: its tombstone, what the entity owns marked, then deleted, then the
//     sweep of what refers to it in transactions that check the tombstone, lists
//     kept exact, and the item last (delete*.go, sweep*.go); an expired entity is
//     deleted the same way by the writer that meets it;
//   - Check and its repairs: the scan for what a write cut off left (marks,
//     lists, entries the reverse index lacks) and for orphans, and the repairs
//     that finish or delete them (check.go, check_*.go, repair.go);
//   - Reindex: an entity's entries brought in line with the registered indexes,
//     under the condition that it is as read (reindex.go);
//   - the listings: the query of each one, and one page of it read from a
//     cursor (listing.go).
//
// It works on items, the keys of package entity (entity.Key, which ryno.Key
// names) and raises the refusals of package entity as they are (errors.go builds
// the few that need the store's knowledge). Package ryno checks and encodes each
// call (its Entity into the base item of a Put, its options into the store's),
// decodes the items the store returns, and hands the store the index registry
// through the Indexes interface, which runs the user's map functions on its
// Entity.
//
// It may import the SDK, package indexing (index values, a leaf with no I/O) and
// the internal packages below it (actions, batching, commit, entitystate, errs,
// groupcommit, indexentries, indexes, relationships, requests, schema, sweep),
// never ryno or another package of the public face: internal/layers_test.go holds
// the rule.
package store
