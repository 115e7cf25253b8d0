// Package indexes is the registry of the indexes a client declares: which a type
// has, the entries an entity emits, how the values of inline indexes split from
// the entries of the index entries table, the claims of unique values a write
// makes and releases, and the record of an entity's entries on its item. Pure: no
// I/O.
//
// It is generic over the entity the map functions see (package ryno's Entity),
// which the caller decodes from the item once per write; each map function gets
// its own copy. It may import the SDK, package indexing and the internal packages
// batching, entitystate, indexentries, relationships and schema.
package indexes
