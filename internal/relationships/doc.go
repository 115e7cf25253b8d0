// Package relationships computes the relationship entries of a RynoDB store: the
// items of the relationship entries table, and the writes that change a subject's
// ordered lists. It performs no I/O: the client reads the current entries, asks for
// a Plan, and executes it however it batches requests.
//
// # Entries
//
// An Entry is one edge subject -> predicate -> object, at a position (its Index) in
// the subject's list for that predicate. Its item (Entry.Item) holds the raw
// components in their own attributes, so nothing is ever parsed back from a key,
// and the compound keys built from them:
//
//	_subject_key           subject scope:type:id     partition key
//	_predicate_key         predicate:index:type:id   sort key
//	_object_key            object scope:type:id      reverse index partition key
//	_index                 the index, as a number    reverse index sort key
//	_predicate_object_key  predicate:scope:type:id   by-object index sort key
//
// The index is zero-padded in _predicate_key, so key order is list order, and
// Query with begins_with(_predicate_key, schema.PredicatePrefix(p)) reads a list
// in order. An object may appear several times in a list, each time at its own
// index. Indexes need not be contiguous: removals leave gaps, and replacements
// fill them. Note that _predicate_key holds the object's type and id but not its
// scope: two objects differing only in scope cannot share an index.
//
// The by-object index (keys only) finds a subject's entries for one predicate and
// object in a single Query; the primary key it returns (PrimaryKeyFromItem) is
// enough to delete an entry.
//
// # Plans
//
// PlanReplace, PlanAdd and PlanRemove compute the writes of the three list
// operations as a Plan of puts and deletes. A plan never holds two writes of one
// primary key, so its writes can run in any order and any batches: a delete that
// lands after a put of the same key would otherwise erase the new item. PlanReplace
// writes only the difference between the current list and the new one, keeping as
// many current entries as any numbering allows.
//
// # Validation
//
// Validate checks a subject, a predicate and objects before any request: valid
// components, and keys within DynamoDB's limits after escaping. Errors are
// *tables.ValidationError, matched with errors.As or errors.Is(err,
// tables.ErrInvalid).
package relationships
