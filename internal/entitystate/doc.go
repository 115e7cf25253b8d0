// Package entitystate is what a write knows of a stored entity item and what it
// requires of it: the State decoded from the item (its version, creation time,
// index set, and the marks concurrency control leaves on it: the token of the last
// write, a pending large write, a Delete's tombstone, an expiry), and the
// Expectation a write commits under, as the condition DynamoDB checks and as the
// same test evaluated on a read (Holds).
//
// It is pure: it decodes items and builds conditions, and sends no request. It
// imports only the SDK's types and expression builder and the store's internal
// packages actions, indexentries and schema.
package entitystate
