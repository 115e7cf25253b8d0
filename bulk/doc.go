// Package bulk defines the form in which a RynoDB store's entities move in bulk:
// one Line of JSON per entity, with its lists and sequences, and the options and
// reports of ryno.Client.Export and ryno.Client.Import (`ryno export`, `ryno
// import`).
//
// A line holds what the calls of the store write and nothing of its bookkeeping
// (list heads and markers, claims, index entries, tombstones, pending marks):
//
//	{"key":{"scope":"acme","type":"user","id":"ada"},"version":3,
//	 "created":"2026-01-02T03:04:05.006Z","updated":"2026-03-04T05:06:07.008Z",
//	 "attributes":{"name":{"S":"Ada"},"born":{"N":"1815"}},
//	 "lists":{"follows":[{"scope":"acme","type":"user","id":"grace"}]},
//	 "sequences":{"issue":42}}
//
// (on one line). Attributes and Meta are in DynamoDB's JSON (as AWS's exports to
// S3 write it), so every value comes back with its type and every digit: a number
// is a string of its digits, a binary value base64, a set stays a set. Lists hold
// their objects in order, whatever their kind (list, set, ordered set: the
// importing client's options say which). Index entries and unique values are not
// exported: the import writes them as any write does, with the indexes the
// importing client registers.
//
// The package performs no I/O.
package bulk
