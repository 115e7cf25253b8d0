package indexing

import (
	"fmt"
	"strings"
)

// A tuple is a value made of parts, such as a project, a status and a time, ordered
// by its first part, then its second, and so on, a tuple before its extensions. Its
// encoding is the tag, then each part's own encoding followed by partEnd. Part
// encodings hold no byte below ' ' (strings reject control characters, the other
// kinds are ASCII letters and digits), so partEnd, below every byte a part can
// continue with, makes a part sort before its extensions: ("ab", 1) < ("abc", 0).
// Every part, the last included, ends with partEnd, so the encoding of a tuple's
// first parts is a prefix of its encoding exactly when they are its first parts:
// BeginsWith(Tuple(a, b)) selects the tuples beginning with a and b, and never one
// whose second part merely starts with b.

// tagTuple is the tag of tuple encodings, above the tag of strings (see the tags).
const tagTuple = 'c'

// partEnd ends each part of a tuple's encoding. It is not the lowest byte, so that
// Less can decrement it (see Condition.Expression).
const partEnd = '\x02'

// maxParts bounds the parts of a tuple.
const maxParts = 8

// Tuple returns the Value of parts, in order: c, then each part's encoding followed
// by the byte 0x02. Parts may be of any kind but a tuple, and of different kinds;
// each must be valid, and there must be 1 to 8 of them. Validate reports what is
// wrong.
//
//	Tuple(String("acme"), String("open"), Int(12))  c'acme␂'open␂i800000000000000c␂
//
// Conditions compare tuples part by part: Between(Tuple(p, s, Time(t1)),
// Tuple(p, s, Time(t2))) selects the tuples of p and s whose third part is between
// t1 and t2, and BeginsWith(Tuple(p, s)) every tuple whose first two parts are p
// and s.
func Tuple(parts ...Value) Value {
	if len(parts) == 0 || len(parts) > maxParts {
		return Value{kind: KindTuple, invalid: fmt.Sprintf("has %d parts; a tuple has 1 to %d", len(parts), maxParts)}
	}
	var b strings.Builder
	b.WriteByte(tagTuple)
	for i, p := range parts {
		switch err := p.Validate(); {
		case p.kind == KindTuple:
			return Value{kind: KindTuple, invalid: fmt.Sprintf("part %d is a tuple; tuples do not nest", i)}
		case err != nil:
			return Value{kind: KindTuple, invalid: fmt.Sprintf("part %d: %v", i, err)}
		}
		b.WriteString(p.enc)
		b.WriteByte(partEnd)
	}
	return Value{kind: KindTuple, enc: b.String()}
}

// Parts returns the parts of a tuple, nil for any other Value or an invalid one.
func (v Value) Parts() []Value {
	if v.kind != KindTuple || v.Validate() != nil {
		return nil
	}
	parts, _ := splitParts(v.enc[1:])
	return parts
}

// splitParts reads the parts of a tuple's encoding after its tag.
func splitParts(payload string) ([]Value, error) {
	if !strings.HasSuffix(payload, string(partEnd)) {
		return nil, fmt.Errorf("does not end a part with %q", partEnd)
	}
	encs := strings.Split(strings.TrimSuffix(payload, string(partEnd)), string(partEnd))
	parts := make([]Value, len(encs))
	for i, enc := range encs {
		p, err := ParseValue(enc)
		switch {
		case err != nil:
			return nil, fmt.Errorf("part %d: %w", i, err)
		case p.kind == KindTuple:
			return nil, fmt.Errorf("part %d is a tuple", i)
		}
		parts[i] = p
	}
	return parts, nil
}

// parseTuple returns the tuple whose encoding after the tag is payload.
func parseTuple(payload string) Value {
	parts, err := splitParts(payload)
	if err != nil {
		return Value{kind: KindTuple, invalid: err.Error()}
	}
	return Tuple(parts...)
}

// validateTuple checks the length of a tuple's encoding, as validateString does.
func validateTuple(enc string) error {
	return validateLength("tuple value", enc)
}

// tupleString writes a tuple as its parts in parentheses.
func tupleString(parts []Value) string {
	s := make([]string, len(parts))
	for i, p := range parts {
		s[i] = p.String()
	}
	return "(" + strings.Join(s, ", ") + ")"
}
