// Package store is the engine under package ryno's public face and the packages
// of each use case (writes, deletes, maintenance).
//
// It owns:
//   - the core every part shares (Core): the tables and the requests that read
//     them, conditional writes settled within the retry policy, and the guards of
//     changes made in several transactions (guard.go);
//   - the shapes of each type that the writes' upserts may replace (shapes.go),
//     and the lookup of a unique value (unique.go);
//   - the list engine: the write of a relationship list in one transaction
//     planned from its head and markers (lists.go), and under a lease when it does
//     not fit in one (lease.go), the objects of its entries checked
//     (object_checks.go); concurrent calls on one list written together
//     (list_queue.go); sets and ordered sets, one item per object, and the
//     positions of ordered sets (sets*.go, ordered_sets.go);
//   - a deletion met unfinished (a tombstone, or an entity past its expiry) is
//     completed through Config.Deletes, a Completer handed down by the client
//     (package deletes), before the call goes on;
//   - reindexing: an entity's entries brought in line with the registered
//     indexes, under the condition that it is as read (reindex.go), which a
//     write that finds a pending mark and package maintenance both use;
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
// never ryno, the packages of the use cases above it (writes, deletes, maintenance), or another package of the public face: internal/layers_test.go holds
// the rule.
package store
