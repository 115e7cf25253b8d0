// Package indexing defines the values a map function emits into a secondary index of
// a RynoDB store (see ryno.Index), encoded so that their byte order is their natural
// order, and the conditions that query them (ryno.Client.QueryIndex). It performs
// no I/O.
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
//	Tuple(String("a"), Int(5))     c'a␂i8000000000000005␂
//
// A Tuple is a value of several parts, ordered part by part, a tuple before its
// extensions: each part's encoding is followed by the byte 0x02 (␂ above), which no
// part holds.
//
// Every encoding starts with a tag for its kind, so values of different kinds never
// interleave, and equal encodings mean equal values of the same kind. An index should
// still hold one kind of value (Int and Float do not compare with each other), but a
// map function that emits a String where it usually emits an Int does not corrupt
// the answers of range queries on Ints.
//
// # Conditions
//
// A Condition selects entries of one index by value: Equal, BeginsWith (strings, and
// tuples by whole leading parts),
// Between, Less, LessOrEqual, Greater, GreaterOrEqual, or All. Condition.Expression
// turns it into the key condition of a Query on the index lookup GSI. A key condition
// allows one comparison on the sort key, so the ranges are bounded to the operand's
// kind by the choice of tags: strings have the lowest tag, and every other kind has a
// fixed width. See Condition.Expression for the translation.
//
// # Errors
//
// A map function that panics or emits an invalid value fails the write with an
// *EmitError, before any request. ParseValue reads a stored _index_key back, for
// readers of the raw tables.
//
// Invalid input is reported as a *tables.ValidationError (errors.Is(err,
// tables.ErrInvalid)) before any request is built.
package indexing
