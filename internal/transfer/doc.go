// Package transfer moves a store's entities in bulk: Export writes them as the
// lines of package bulk from a parallel Scan, Import writes such lines through the
// store's write path, keeping each entity's timestamps, version and sequences.
// An exclusive import writes the entities not stored yet as the plain items their
// transaction would leave, with BatchWriteItem, the entity last.
//
// Its entry value is a Mover, which package ryno builds over the engine, the list
// engine and the writer of entities; ryno's Client.Export and Client.Import check
// the call and hand it down, with the function that checks a line and builds its
// write (the checks of an entity a user writes live in ryno).
package transfer
