// Package deletes deletes entities. A Delete writes a tombstone on the entity,
// marks then deletes what the entity owns (the ownership cascade), sweeps what
// refers to it (index entries, unique claims, its lists, the entries of other
// lists that name it) in transactions that each check the tombstone, and deletes
// the item last. A Delete cut off leaves its tombstone: the next call that meets
// it completes the deletion first, through the core's Completer, which a Deleter
// is. An entity past its expiry is deleted the same way.
//
// The plan of a sweep (its parts and their packing into transactions) is pure
// logic in package sweep; this package reads and writes what the plan names.
package deletes
