// Package maintenance keeps a store's tables whole: Check scans them for entries
// that refer to missing entities and for the traces of writes cut off (tombstones,
// pending marks, list leases and intents, entries missing from the reverse index,
// entities past their expiry), and with Repair deletes the first and finishes the
// second; Reindex rewrites the index entries of every entity of a type.
//
// It works through the store's engine (package store) and finishes what it finds
// with the same calls a writer of the entity or list would use, so a repair
// cannot leave the tables in a state no writer would.
package maintenance
