// Package store is the machinery under package ryno's public face: the core that
// every kind of write and read shares (the tables and their requests, conditional
// writes settled within the retry policy, the guards of multi-transaction
// changes), and the write protocol built on it.
//
// It works on items, internal keys (relationships.Key) and internal errors; package
// ryno converts its own Key, Entity and typed errors at its edge. It may import the
// SDK and the internal packages below it (actions, batching, commit, entitystate,
// relationships, requests, schema), never a public package of the module.
package store
