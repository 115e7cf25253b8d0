// Package groupcommit writes concurrent calls on one key in batches: the call at
// the head of a key's queue writes every call of the same kind queued behind it,
// in one write, and each call returns its own result, as if the calls had run one
// after another, in queue order, at that write. A call whose turn comes leads the
// next batch once the one before it is done. Callers on one key then stop racing
// one another: the store uses it for the Adds and Removes of one list by one
// client.
//
// It knows nothing of DynamoDB or of lists: the batch's write is the caller's. Of
// the module it imports only internal/errs.
package groupcommit
