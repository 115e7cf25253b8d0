package indexing

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rynodb/rynodb/internal/schema"
)

// Kind is the kind of a Value, named by the constructor that built it.
type Kind uint8

// The kinds of Value. KindInvalid is the kind of the zero Value.
const (
	KindInvalid Kind = iota
	KindString
	KindBool
	KindFloat
	KindInt
	KindTime
	KindTuple
)

var kindNames = [...]string{"invalid", "string", "bool", "float", "int", "time", "tuple"}

// String returns the kind's name, such as "int".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// The tag of each kind is the first byte of its encodings. Strings must keep the
// lowest tag: Less and LessOrEqual on strings rely on no other kind sorting below
// them (see Condition.Expression). Every other kind but tuples has a fixed-width
// encoding; a tuple's ends in a byte Less can decrement (see Tuple).
const (
	tagString = '\''
	tagBool   = 'b'
	tagFloat  = 'f'
	tagInt    = 'i'
	tagTime   = 't'
)

var kindTags = [...]byte{KindString: tagString, KindBool: tagBool, KindFloat: tagFloat, KindInt: tagInt, KindTime: tagTime, KindTuple: tagTuple}

// tag returns the first byte of the encodings of kind k (a valid kind).
func (k Kind) tag() byte { return kindTags[k] }

// kindOfTag returns the kind whose encodings start with b, or KindInvalid.
func kindOfTag(b byte) Kind {
	for k := KindString; k <= KindTuple; k++ {
		if k.tag() == b {
			return k
		}
	}
	return KindInvalid
}

// maxEncodedBytes bounds an encoding after escaping, so that it fits the 1024-byte
// _unique_key (index_name:value) with the shortest index name. The store checks
// the exact limit for each index name.
const maxEncodedBytes = schema.MaxSortKeyBytes - 2

// Value is one value emitted into an index, held in its sortable encoding. Build it
// with String, Bool, Int, Float or Time, or read it back with ParseValue. Values are
// comparable with ==: equal values have equal encodings.
//
// A constructor never fails; a Value built from input that cannot be indexed (a NaN,
// an empty string, a time outside the supported years) reports why from Validate.
type Value struct {
	kind    Kind
	enc     string // the encoding, tag first; "" when the input could not be encoded
	invalid string // why the input cannot be indexed; "" when it can
}

// Kind returns the kind of v; KindInvalid for the zero Value.
func (v Value) Kind() Kind { return v.kind }

// Encoding returns the sortable encoding of v, stored in the entry's _index_key: the
// kind's tag followed by the encoded value. It is empty for the zero Value and for
// values that could not be encoded (a NaN, a time out of range).
func (v Value) Encoding() string { return v.enc }

// String returns v as it was written in Go: a quoted string, true or false, a
// number, or a time in RFC 3339. An invalid Value shows its kind and why.
func (v Value) String() string {
	switch {
	case v.kind == KindInvalid:
		return "Value{}"
	case v.enc == "" || v.invalid != "":
		return "invalid " + v.kind.String()
	}
	switch x := v.Interface().(type) {
	case string:
		return strconv.Quote(x)
	case []any:
		return tupleString(v.Parts())
	case time.Time:
		return x.Format(time.RFC3339Nano)
	case float64:
		return formatFloat(x)
	case nil:
		return "invalid " + v.kind.String()
	default:
		return fmt.Sprint(x)
	}
}

// Validate reports whether v can be indexed: a *tables.ValidationError saying why
// otherwise.
func (v Value) Validate() error {
	switch {
	case v.kind == KindInvalid:
		return invalid("Value", "", "is the zero Value; build values with String, Bool, Int, Float or Time")
	case v.invalid != "":
		return invalid(v.kind.String()+" value", "", v.invalid)
	case v.kind == KindString:
		return validateString(v.enc)
	case v.kind == KindTuple:
		return validateTuple(v.enc)
	}
	return nil
}

// validateString checks the encoding of a string Value. Strings follow the rules of
// key components: non-empty UTF-8 without control characters. Conditions rely on the
// absence of control characters (see Greater).
func validateString(enc string) error {
	if err := schema.ValidateComponent("string value", enc[1:]); err != nil {
		return err
	}
	return validateLength("string value", enc)
}

// validateLength checks that an encoding fits a key once escaped.
func validateLength(field, enc string) error {
	if n := len(schema.Escape(enc)); n > maxEncodedBytes {
		return invalid(field, enc[1:], fmt.Sprintf(
			"is %d bytes encoded and escaped; an index value can have at most %d", n, maxEncodedBytes))
	}
	return nil
}

// ParseValue returns the Value whose encoding is s, such as an _index_key read from
// the store. It accepts exactly the encodings the constructors produce:
// ParseValue(v.String()) returns v for every valid v.
func ParseValue(s string) (Value, error) {
	if s == "" {
		return Value{}, invalid("encoded value", "", "must not be empty")
	}
	var v Value
	switch kindOfTag(s[0]) {
	case KindString:
		v = String(s[1:])
	case KindBool:
		v = parseBool(s[1:])
	case KindInt:
		v = parseInt(s[1:])
	case KindFloat:
		v = parseFloat(s[1:])
	case KindTime:
		v = parseTime(s[1:])
	case KindTuple:
		v = parseTuple(s[1:])
	default:
		return Value{}, invalid("encoded value", s, fmt.Sprintf("starts with %q, which is not the tag of a kind", s[0]))
	}
	if err := v.Validate(); err != nil {
		return Value{}, err
	}
	// Decoders are lenient (upper-case hex, other time layouts); the round trip is not.
	if v.enc != s {
		return Value{}, invalid("encoded value", s, fmt.Sprintf("is not a canonical %s encoding", v.kind))
	}
	return v, nil
}

// Interface returns the value v was built from, as a string, bool, int64, float64 or
// time.Time (in UTC, without a monotonic clock reading); nil when v is not valid.
// A Float built from -0 returns 0.
func (v Value) Interface() any {
	if v.Validate() != nil {
		return nil
	}
	payload := v.enc[1:]
	switch v.kind {
	case KindString:
		return payload
	case KindBool:
		return payload == "1"
	case KindInt:
		i, _ := decodeInt(payload)
		return i
	case KindFloat:
		f, _ := decodeFloat(payload)
		return f
	case KindTime:
		t, _ := decodeTime(payload)
		return t
	case KindTuple:
		parts := v.Parts()
		out := make([]any, len(parts))
		for i, p := range parts {
			out[i] = p.Interface()
		}
		return out
	}
	return nil
}

func invalid(field, value, reason string) error {
	return &schema.ValidationError{Field: field, Value: value, Reason: reason}
}

// formatFloat writes f so that it reads as a float, 1.0 rather than 1, keeping it
// apart from the int 1 in messages.
func formatFloat(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eIN") {
		s += ".0"
	}
	return s
}
