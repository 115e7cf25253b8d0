package schema

import (
	"fmt"
	"strconv"
	"strings"
)

// An ordered set (a set listed in the order its objects were added) keeps the
// entry of each object under the set's key, as every set does, and its position in
// _predicate_object_key, the sort key of the by-object LSI:
// predicate:\x05position:object_scope:object_type:object_id. The control byte after
// the predicate's prefix is one no escaped component starts with, so the prefix of
// a predicate's ordered set selects no entry of a list, whose LSI key continues
// with the object's scope, and a list's lookup of an object never meets an entry
// of an ordered set.
const OrderedSetMark = "\x05"

// PositionWidth is the number of digits FormatPosition writes: every non-negative
// int64.
const PositionWidth = 19

// OrderedSetPrefix returns the begins_with prefix that selects the
// _predicate_object_key values of the entries of predicate's ordered set.
func OrderedSetPrefix(predicate string) string { return PredicatePrefix(predicate) + OrderedSetMark }

// OrderedSetKey returns the _predicate_object_key of the entry of an object at
// position in an ordered set. The position must not be negative.
func OrderedSetKey(predicate string, position int64, objectScope, objectType, objectID string) string {
	return OrderedSetPrefix(predicate) + FormatPosition(position) + string(Delimiter) + Join(objectScope, objectType, objectID)
}

// FormatPosition writes a position of an ordered set as PositionWidth digits,
// zero-padded so that string order is numeric order.
func FormatPosition(p int64) string {
	s := strconv.FormatInt(p, 10)
	return strings.Repeat("0", max(0, PositionWidth-len(s))) + s
}

// IsOrderedSetKey reports whether k, a _predicate_object_key, is that of an entry of
// an ordered set: the only keys holding a control byte after a delimiter.
func IsOrderedSetKey(k string) bool {
	return strings.Contains(k, string(Delimiter)+OrderedSetMark)
}

// ParseOrderedSetKey returns the position in k, the _predicate_object_key of an
// entry of predicate's ordered set.
func ParseOrderedSetKey(predicate, k string) (int64, error) {
	rest, ok := strings.CutPrefix(k, OrderedSetPrefix(predicate))
	if !ok || len(rest) <= PositionWidth || rest[PositionWidth] != Delimiter {
		return 0, orderedKeyError(k, "is not the key of an entry of the ordered set "+predicate)
	}
	p, err := strconv.ParseInt(rest[:PositionWidth], 10, 64)
	if err != nil || p < 0 {
		return 0, orderedKeyError(k, fmt.Sprintf("has the position %q", rest[:PositionWidth]))
	}
	return p, nil
}

func orderedKeyError(k, reason string) error {
	return &ValidationError{Field: AttrPredicateObjectKey, Value: k, Reason: reason}
}
