// Package writes writes entities. Create, Update and Set (Write) read what their
// plan needs, then commit the entity with its index entries, unique claims and
// lists in one transaction, or under a pending mark when they do not fit in one
// (put*.go); the upsert needs no read (upsert.go), over any shape of the type the
// core remembers. Patch is one UpdateItem (patch.go). A transaction (Tx) plans
// each of its operations as these writes and the list engine would, assembles
// them within DynamoDB's limits and reads its refusals (transact*.go).
//
// It works through the store's engine (package store): its requests, its lists
// and sets, its guards, and the completion of a deletion a write meets
// unfinished.
package writes
