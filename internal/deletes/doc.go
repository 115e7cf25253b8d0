// Package deletes deletes entities. A Delete writes a tombstone on the entity,
// marks then deletes what the entity owns (the ownership cascade), sweeps what
// refers to it (index entries, unique claims, its lists, the entries of other
// lists that name it) in transactions that each check the tombstone, and deletes
// the item last. A Delete cut off leaves its tombstone: the next call that meets
// it completes the deletion first, through the core's Completer, which a Deleter
// is. An entity past its expiry is deleted the same way.
//
// The plan of a sweep is pure logic, apart in sweep_plan.go: the parts of its
// transactions (plain deletes, a list's entries with the updates of its head and
// of the entity's marker in it, the claims of unique values to release), how they
// are packed into transactions of at most 100 actions with no list twice, and
// which set entries go alone, fenced by the token the sweep read.
package deletes
