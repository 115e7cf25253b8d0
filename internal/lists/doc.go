// Package lists writes and reads relationship lists, sets and ordered sets: the
// list engine.
//
// A list write is planned from the list's head and the markers of its objects
// and committed in one transaction with the subject's check (lists.go), or under
// a lease on the head when it does not fit in one (lease.go); with CheckObjects
// the objects of its entries are checked too (object_checks.go). A set keeps one
// item per object and no head (sets.go, sets_confirm.go); an ordered set adds a
// position to each (ordered_sets.go).
//
// Concurrent Adds and Removes of one list by one client are written together
// (list_queue.go, over the queue of group_commit.go): the call at the head of a
// list's queue writes every call of the same kind queued behind it in one write,
// and each call returns its own result, as if the calls had run one after another
// in queue order. The queue itself knows nothing of DynamoDB or of lists. Adds and
// Removes of one list by different clients (processes) that race for it combine on
// the list's head instead (combine.go): each posts itself there, and the writer of
// the oldest request commits every request waiting in one transaction; another
// stands in for it only in turn (combine_turns.go).
//
// It works through the store's engine (package store); the writes of entities,
// the deletes and the maintenance use it for the lists they touch.
package lists
