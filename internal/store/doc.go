// Package store is the engine under package ryno's public face and the packages
// of each use case (lists, writes, deletes, maintenance).
//
// It owns:
//   - the core every part shares (Core): the tables and the requests that read
//     them, conditional writes settled within the retry policy, and the guards of
//     changes made in several transactions (guard.go);
//   - the shapes of each type that the writes' upserts may replace (shapes.go),
//     and the lookup of a unique value (unique.go);
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
// call, decodes the items returned, and hands the store the index registry
// through the Indexes interface, which runs the user's map functions on its
// Entity.
//
// It may import the SDK, package indexing (index values, a leaf with no I/O) and
// the internal packages below it (actions, batching, commit, entitystate, errs,
// indexentries, indexes, paging, relationships, requests, schema), never ryno,
// the packages of the use cases above it (lists, writes, deletes, maintenance),
// or another package of the public face: internal/layers_test.go holds the rule. What the engine needs of those above it
// is handed to it as values when the client is built: the index registry
// (Config.Indexes), the completion of deletions (Config.Deletes), the observer of
// retries (Config.Retrying).
package store
