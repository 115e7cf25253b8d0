// Package actions builds the DynamoDB actions of the store's writes: the update of
// a list's head, the put, delete or check of a marker or a set entry, the puts and
// deletes of relationship entries, the claims and releases of unique values, the
// check that an entity exists, is not being deleted and has not expired; and it
// gathers them into a Transaction that remembers the Role
// of each action, so that the action a cancelled TransactWriteItems names says
// what was refused.
//
// It is pure: it builds requests from the plans of package relationships and
// sends none. The write protocol in package ryno decides what to send, when, and
// what a refusal means. It imports only the SDK's types and expression builder and
// the store's internal packages batching, commit, indexentries, relationships and
// schema.
package actions
