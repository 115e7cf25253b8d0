// Package relationships describes how a RynoDB store keeps relationship lists, for
// readers of the raw tables (DynamoDB Streams consumers, exports, analytics), and
// checks predicates before they reach a call of package ryno.
//
// A subject has, for each predicate, an ordered list of objects. Each entry
// subject -predicate-> object is one item of the relationship entries table:
//
//	_subject_key           subject scope:type:id                     partition key
//	_predicate_key         predicate:index:type:id                   sort key
//	_object_key            object scope:type:id                      reverse index partition key
//	_reverse_key           predicate:subject scope:type:id:index     reverse index sort key
//	_predicate_object_key  predicate:scope:type:id                   by-object index sort key
//	_index                 the position, as a number
//
// beside the raw components (_subject_scope, _predicate, _object_id, ...), so
// nothing needs parsing back from a key. Key components are escaped: '%' becomes
// "%25" and ':' becomes "%3A". The position is zero-padded in _predicate_key, so key
// order is list order; removals leave gaps. Each list also has a head item (its next
// position, count and a digest of its entries) and one marker item per object,
// whose sort keys start with bytes 0x01 and 0x02 and so sort before every entry.
// The store writes a list's entries, head and markers in one transaction; a change
// too large for one is written under a lease on the head, after the writer recorded
// its intent in items whose sort keys start with byte 0x03.
//
// A predicate a client declares a set (ryno.Options.Sets) keeps one entry per
// object and no head or marker: its _predicate_key is predicate:scope:type:id, its
// _index is 0, and it has no _predicate_object_key. An ordered set
// (ryno.Options.OrderedSets) is a set whose entries also have a
// _predicate_object_key, predicate:\x05position:scope:type:id with the position
// written as 19 digits, so that the by-object index holds them in the order added.
package relationships
