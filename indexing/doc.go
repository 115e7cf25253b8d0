// Package indexing computes the secondary index entries of a RynoDB store: values
// encoded so that their byte order is their natural order, the conditions that query
// them, the index entry items, and the difference between the entries an entity has
// and the entries it should have. It performs no I/O.
//
// # Values
//
// A map function emits Values for an entity; each becomes one item of the index
// entries table whose _index_key, a DynamoDB string, is the Value's encoding.
// DynamoDB compares strings as UTF-8 bytes, so every kind is encoded such that byte
// order equals value order (DataWave calls such encoders normalizers):
//
//	String("ada")                  'ada
//	Bool(true)                     b1
//	Float(1.5)                     fbff8000000000000
//	Int(-1)                        i7fffffffffffffff
//	Int(5)                         i8000000000000005
//	Time(2024-05-01 12:00:00 UTC)  t2024-05-01T12:00:00.000000000Z
//
// Every encoding starts with a tag for its kind, so values of different kinds never
// interleave, and equal encodings mean equal values of the same kind. An index should
// still hold one kind of value (Int and Float do not compare with each other), but a
// map function that emits a String where it usually emits an Int does not corrupt
// the answers of range queries on Ints.
//
// # Conditions
//
// A Condition selects entries of one index by value: Equal, BeginsWith (strings),
// Between, Less, LessOrEqual, Greater, GreaterOrEqual, or All. Condition.Expression
// turns it into the key condition of a Query on the index lookup GSI. A key condition
// allows one comparison on the sort key, so the ranges are bounded to the operand's
// kind by the choice of tags: strings have the lowest tag, and every other kind has a
// fixed width. See Condition.Expression for the translation.
//
// # Entries
//
// An Entry is one index entry item; Entry.Item builds it and FromItem reads it back.
// Diff compares the entries stored for an entity with those its map functions emit
// now and returns what to put and what to delete, never both for one key. Emit runs
// one map function, turning a panic or an invalid value into an *EmitError.
//
// Invalid input is reported as a *tables.ValidationError (errors.Is(err,
// tables.ErrInvalid)) before any request is built.
package indexing
