// Package sweep plans how a Delete deletes what refers to its entity: the parts
// of its transactions (plain deletes, a list's entries with the updates of its
// head and of the entity's marker in it, the claims of unique values to release),
// how they are packed into transactions of at most 100 actions with no list
// twice, and which set entries go alone, fenced by the token the sweep read.
//
// It sends nothing: the write protocol in package ryno reads what to sweep and
// sends the plans. It imports the SDK's types and the pure internal packages
// (batching's write operations, indexentries, relationships, schema) only.
package sweep
