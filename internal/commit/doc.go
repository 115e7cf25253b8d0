// Package commit sends the store's conditional writes and says how each ended:
// applied, refused by a condition, worth sending again (throttled, conflicting),
// maybe applied (a lost response), or failed for good. Settle sends a write again
// within a retry policy and hands an ambiguous attempt to the caller's resolver;
// Transact commits a TransactWriteItems under a client request token, which makes
// it idempotent. It also holds the write tokens that name each write on the items
// it stores, and the expression builder of every condition.
//
// It owns no item format and knows no entity: it imports the SDK and
// internal/batching (retry policy, throttling) only, and may import nothing of
// package ryno or of the write protocol built on it.
package commit
