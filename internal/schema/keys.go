package schema

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Delimiter separates the escaped components of a compound key.
const Delimiter = ':'

// Escape returns s with '%' replaced by "%25" and ':' by "%3A", so that an escaped
// component never contains the delimiter and distinct components stay distinct.
// Every other byte is kept as is, so keys remain readable and keep the sort order of
// their components.
func Escape(s string) string {
	n := strings.Count(s, "%") + strings.Count(s, ":")
	if n == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2*n)
	writeEscaped(&b, s)
	return b.String()
}

// writeEscaped writes Escape(s) to b without an intermediate string.
func writeEscaped(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '%':
			b.WriteString("%25")
		case ':':
			b.WriteString("%3A")
		default:
			b.WriteByte(c)
		}
	}
}

// escapedLen returns len(Escape(s)) without building it.
func escapedLen(s string) int {
	return len(s) + 2*(strings.Count(s, "%")+strings.Count(s, ":"))
}

// Unescape is the inverse of Escape. It accepts exactly the strings Escape returns:
// a raw ':', a '%' not followed by "25" or "3A" (upper case), or a truncated escape is
// an error. The store never parses keys (raw values have their own attributes); this
// is for tests and tools.
func Unescape(s string) (string, error) {
	if !strings.ContainsAny(s, "%:") {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ':':
			return "", unescapeError(s, fmt.Sprintf("has an unescaped ':' at byte %d", i))
		case '%':
			switch {
			case strings.HasPrefix(s[i+1:], "25"):
				b.WriteByte('%')
			case strings.HasPrefix(s[i+1:], "3A"):
				b.WriteByte(':')
			default:
				return "", unescapeError(s, fmt.Sprintf("has a malformed escape at byte %d; only %%25 and %%3A are valid", i))
			}
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func unescapeError(s, reason string) error {
	return &ValidationError{Field: "escaped component", Value: s, Reason: reason}
}

// Join escapes each component and joins them with ':'. For a given number of
// components the result is injective: distinct tuples give distinct keys, whatever
// ':' or '%' the components contain. (Join() and Join("") are both "".)
func Join(components ...string) string {
	if len(components) == 0 {
		return ""
	}
	n := len(components) - 1
	for _, c := range components {
		n += escapedLen(c)
	}
	var b strings.Builder
	b.Grow(n)
	for i, c := range components {
		if i > 0 {
			b.WriteByte(Delimiter)
		}
		writeEscaped(&b, c)
	}
	return b.String()
}

// Split is the inverse of Join for n components: the unescaped components of s, and
// false unless s is exactly what Join writes for n components. The store never
// needs it to read its own items (raw values have their own attributes); it reads
// keys where DynamoDB returns nothing else: cursors, and the keys a KEYS_ONLY index
// projects.
func Split(s string, n int) ([]string, bool) {
	parts := strings.Split(s, string(Delimiter))
	if len(parts) != n {
		return nil, false
	}
	for i, p := range parts {
		var err error
		if parts[i], err = Unescape(p); err != nil {
			return nil, false
		}
	}
	return parts, true
}

// ScopeTypeKey returns the _scope_type_key of an entity: scope:type. It is the sort
// key of the entities table and the partition key of its by-type index.
func ScopeTypeKey(scope, typ string) string { return Join(scope, typ) }

// SubjectKey returns scope:type:id, the _subject_key of the relationship and index
// entries of an entity, and the _object_key of relationship entries pointing at it.
func SubjectKey(scope, typ, id string) string { return Join(scope, typ, id) }

// PredicateKey returns the _predicate_key of a relationship entry:
// predicate:index:object_type:object_id, with the index written by FormatIndex so that
// a subject's entries for one predicate sort in list order. The index must satisfy
// ValidateIndex.
func PredicateKey(predicate string, index int, objectType, objectID string) string {
	// FormatIndex writes digits only, which Join leaves unchanged.
	return Join(predicate, FormatIndex(index), objectType, objectID)
}

// PredicatePrefix returns the begins_with prefix that selects the _predicate_key
// values of one predicate. It ends with the delimiter, so the prefix of "friend" does
// not also match "friends".
func PredicatePrefix(predicate string) string { return Escape(predicate) + string(Delimiter) }

// PredicateObjectKey returns the _predicate_object_key of a relationship entry:
// predicate:object_scope:object_type:object_id, the sort key of the local secondary
// index that finds a subject's edges to one object in a single Query.
func PredicateObjectKey(predicate, objectScope, objectType, objectID string) string {
	return Join(predicate, objectScope, objectType, objectID)
}

// ReverseKey returns the _reverse_key of a relationship entry, the sort key of the
// reverse index: predicate:subject_scope:subject_type:subject_id:index. The entries
// pointing at one object are thus ordered by predicate, then subject, then position,
// a total order that depends on nothing but the entries; and PredicatePrefix
// selects those of one predicate by key, with no filter.
//
// A key that would exceed MaxSortKeyBytes (a subject id of about a kilobyte) keeps
// its predicate and as much of the subject as fits, then a hash of the whole
// subject key and the index: still one key per entry, in an order that depends on
// the entries alone.
func ReverseKey(predicate, subjectScope, subjectType, subjectID string, index int) string {
	k := Join(predicate, subjectScope, subjectType, subjectID, FormatIndex(index))
	if len(k) <= MaxSortKeyBytes {
		return k
	}
	sum := sha256.Sum256([]byte(SubjectKey(subjectScope, subjectType, subjectID)))
	tail := string(Delimiter) + hex.EncodeToString(sum[:reverseHashBytes]) + string(Delimiter) + FormatIndex(index)
	head := k[:MaxSortKeyBytes-len(tail)]
	for !utf8.ValidString(head) { // never cut a character in two
		head = head[:len(head)-1]
	}
	return head + tail
}

// reverseHashBytes is how much of the subject key's SHA-256 a shortened ReverseKey
// keeps: 128 bits, beyond any collision.
const reverseHashBytes = 16

// ReverseKeyRoom is what ReverseKey needs after the prefix of a predicate: the
// hash and index of a shortened key. A predicate whose PredicatePrefix leaves less
// room than this is too long.
const ReverseKeyRoom = 2*reverseHashBytes + 2 + IndexWidth

// PredicateObjectPrefix returns the begins_with prefix that selects the
// _predicate_object_key values of one predicate in the local secondary index. It
// equals PredicatePrefix; both names exist so that each query says which key it reads.
func PredicateObjectPrefix(predicate string) string { return PredicatePrefix(predicate) }

// The relationship entries table also holds the store's bookkeeping of each list, in
// the subject's partition: a head per predicate (version, next free position, a
// digest of the entries), a marker per object (the positions of its entries) and,
// while a writer holds the list for a large change, the parts of its intent.
// Their _predicate_key starts with a byte below 0x20, which no escaped predicate
// starts with (components hold no control characters): they never match a
// predicate's prefix, and a key condition "greater than EntriesStart" skips them.
// They carry no _object_key, _index or _predicate_object_key, so neither the
// reverse index nor the by-object index sees them.
const (
	ListHeadPrefix   = "\x01"
	ListMarkerPrefix = "\x02"
	ListIntentPrefix = "\x03"
	SequencePrefix   = "\x04"
	EntriesStart     = "\x1f" // every entry's _predicate_key sorts after it
)

// SequenceKey returns the _predicate_key of the item holding the last number drawn
// from an entity's sequence name, in the entity's partition.
func SequenceKey(name string) string { return SequencePrefix + Escape(name) }

// ListHeadKey returns the _predicate_key of the head of a subject's list for
// predicate.
func ListHeadKey(predicate string) string { return ListHeadPrefix + Escape(predicate) }

// ListMarkerKey returns the _predicate_key of the marker of an object in a
// subject's list for predicate: ListMarkerPrefix, then the entry's
// _predicate_object_key.
func ListMarkerKey(predicate, objectScope, objectType, objectID string) string {
	return ListMarkerPrefix + PredicateObjectKey(predicate, objectScope, objectType, objectID)
}

// ListMarkersPrefix returns the begins_with prefix that selects the markers of one
// predicate's list.
func ListMarkersPrefix(predicate string) string { return ListMarkerPrefix + PredicatePrefix(predicate) }

// ListIntentKey returns the _predicate_key of part of the intent a writer holding
// a subject's list for predicate under a lease records before it changes the
// entries: the writes it is about to make, for whoever must finish them. token
// names the writer; parts are numbered from 0.
func ListIntentKey(predicate, token string, part int) string {
	return ListIntentsPrefix(predicate) + Join(token, FormatIndex(part))
}

// ListIntentsPrefix returns the begins_with prefix that selects the intent parts of
// one predicate's list, whatever their writer.
func ListIntentsPrefix(predicate string) string { return ListIntentPrefix + PredicatePrefix(predicate) }

// A unique index's values are claimed by the entities holding them, one claim item
// per (scope, index, value) in the index entries table. Its _subject_key starts
// with ClaimPrefix, a byte below any an entity key starts with, and it carries no
// _scope_index_name, so the lookup index never sees it.
const (
	ClaimPrefix  = "\x01"
	ClaimSortKey = "\x01claim" // the _unique_key of every claim
)

// ClaimKey returns the _subject_key of the claim on value (an encoded index value)
// of the index named index in scope.
func ClaimKey(scope, index, value string) string { return ClaimPrefix + Join(scope, index, value) }

// UniqueKey returns the _unique_key of an index entry: index_name:index_key. It is
// the sort key of the index entries table.
func UniqueKey(indexName, indexKey string) string { return Join(indexName, indexKey) }

// ScopeIndexName returns the _scope_index_name of an index entry: scope:index_name,
// the partition key of the index lookup GSI.
func ScopeIndexName(scope, indexName string) string { return Join(scope, indexName) }

// MaxShards bounds the shards of a sharded index: a page of it queries each.
const MaxShards = 64

// ShardedScopeIndexName returns the _scope_index_name of the entries in shard
// (from 0) of the index indexName of scope, sharded over n partition keys: with
// n of 1 (or 0), ScopeIndexName; otherwise a third component, the shard, which no
// unsharded name has.
func ShardedScopeIndexName(scope, indexName string, shard, n int) string {
	if n <= 1 {
		return ScopeIndexName(scope, indexName)
	}
	return Join(scope, indexName, strconv.Itoa(shard))
}

// ShardedScopeTypeKey returns the _type_shard of the entities of typ in scope
// that hash to shard (from 0): scope:type:shard.
func ShardedScopeTypeKey(scope, typ string, shard int) string {
	return Join(scope, typ, strconv.Itoa(shard))
}

// ShardedObjectKey returns the _object_shard of the entries pointing at the
// entity whose _subject_key is objectKey, from subjects that hash to shard (from
// 0): scope:type:id:shard.
func ShardedObjectKey(objectKey string, shard int) string {
	return objectKey + ":" + strconv.Itoa(shard) // digits: nothing to escape
}

// Shard returns the shard, from 0 to n-1, of the entity whose _subject_key is
// subjectKey: a hash, so that an entity's entries stay in one shard and the
// entities spread evenly.
func Shard(subjectKey string, n int) int {
	if n <= 1 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(subjectKey))
	return int(h.Sum32() % uint32(n))
}

// ValidScopeIndexName validates scope and indexName and returns their
// _scope_index_name.
func ValidScopeIndexName(scope, indexName string) (string, error) {
	if err := ValidateComponent("scope", scope); err != nil {
		return "", err
	}
	if err := ValidateIndexName(indexName); err != nil {
		return "", err
	}
	key := ScopeIndexName(scope, indexName)
	if err := ValidateKeyLength("scope and index name", key, MaxPartitionKeyBytes); err != nil {
		return "", err
	}
	return key, nil
}

// Relationship list positions are written with a fixed number of digits.
const (
	// IndexWidth is the number of digits FormatIndex writes.
	IndexWidth = 10
	// MaxIndex is the largest position FormatIndex can write in IndexWidth digits.
	MaxIndex = 9_999_999_999
)

const indexZeros = "0000000000" // IndexWidth zeros

// FormatIndex writes a relationship list position as IndexWidth decimal digits,
// zero-padded so that string order equals numeric order ("0000000002" sorts before
// "0000000010"; unpadded, "10" would sort before "2"). It assumes ValidateIndex(i)
// succeeds: a negative or too large i yields a string of the wrong form.
func FormatIndex(i int) string {
	s := strconv.Itoa(i)
	if len(s) >= IndexWidth {
		return s
	}
	return indexZeros[:IndexWidth-len(s)] + s
}

// ValidateIndex reports whether i is a relationship list position FormatIndex can
// write: 0 to MaxIndex.
func ValidateIndex(i int) error {
	// int64 keeps the comparison compiling where int has 32 bits.
	if i < 0 || int64(i) > MaxIndex {
		return &ValidationError{Field: "index", Value: strconv.Itoa(i),
			Reason: fmt.Sprintf("must be between 0 and %d", int64(MaxIndex))}
	}
	return nil
}
