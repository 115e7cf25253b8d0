package indexentries

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// attributesEqual reports whether two sets of attributes would be stored as the same
// values. It compares as DynamoDB does rather than as Go does: numbers by value (the
// store may return "1e+20" as "100000000000000000000"), sets in any order, nil and
// empty maps alike. An unknown value type is never equal, which costs one more put.
func attributesEqual(a, b map[string]types.AttributeValue) bool {
	if len(a) != len(b) {
		return false
	}
	for name, av := range a {
		bv, ok := b[name]
		if !ok || !valueEqual(av, bv) {
			return false
		}
	}
	return true
}

func valueEqual(a, b types.AttributeValue) bool {
	switch a := a.(type) {
	case *types.AttributeValueMemberS:
		b, ok := b.(*types.AttributeValueMemberS)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberN:
		b, ok := b.(*types.AttributeValueMemberN)
		return ok && numberKey(a.Value) == numberKey(b.Value)
	case *types.AttributeValueMemberB:
		b, ok := b.(*types.AttributeValueMemberB)
		return ok && bytes.Equal(a.Value, b.Value)
	case *types.AttributeValueMemberBOOL:
		b, ok := b.(*types.AttributeValueMemberBOOL)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberNULL:
		b, ok := b.(*types.AttributeValueMemberNULL)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberSS:
		b, ok := b.(*types.AttributeValueMemberSS)
		return ok && sameElements(a.Value, b.Value, func(s string) string { return s })
	case *types.AttributeValueMemberNS:
		b, ok := b.(*types.AttributeValueMemberNS)
		return ok && sameElements(a.Value, b.Value, numberKey)
	case *types.AttributeValueMemberBS:
		b, ok := b.(*types.AttributeValueMemberBS)
		return ok && sameElements(a.Value, b.Value, func(p []byte) string { return string(p) })
	case *types.AttributeValueMemberL:
		b, ok := b.(*types.AttributeValueMemberL)
		return ok && listEqual(a.Value, b.Value)
	case *types.AttributeValueMemberM:
		b, ok := b.(*types.AttributeValueMemberM)
		return ok && attributesEqual(a.Value, b.Value)
	}
	return false
}

func listEqual(a, b []types.AttributeValue) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !valueEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// sameElements reports whether a and b hold the same elements, in any order, with
// key mapping equal elements (and only those) to equal strings.
func sameElements[T any](a, b []T, key func(T) string) bool {
	if len(a) != len(b) {
		return false
	}
	count := make(map[string]int, len(a))
	for _, x := range a {
		count[key(x)]++
	}
	for _, y := range b {
		k := key(y)
		if count[k] == 0 {
			return false
		}
		count[k]--
	}
	return true
}

// numberKey returns a canonical form of the decimal number s, its significant digits
// and exponent: equal numbers, however written ("1.50", "15e-1", "+1.5"), have equal
// keys. A string that is not a decimal number keys as itself, marked so that it
// equals no number.
func numberKey(s string) string {
	sign, mantissa, exp, ok := splitNumber(s)
	if !ok {
		return "!" + s
	}
	digits := strings.Replace(mantissa, ".", "", 1)
	if point := strings.IndexByte(mantissa, '.'); point >= 0 {
		exp -= len(mantissa) - point - 1
	}
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return "0"
	}
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	return sign + trimmed + "e" + strconv.Itoa(exp)
}

// splitNumber splits a decimal number into its sign ("" or "-"), its mantissa (digits
// with at most one '.') and its exponent.
func splitNumber(s string) (sign, mantissa string, exp int, ok bool) {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		if s[0] == '-' {
			sign = "-"
		}
		s = s[1:]
	}
	mantissa = s
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > maxExponent || e < -maxExponent {
			return "", "", 0, false
		}
		mantissa, exp = s[:i], e
	}
	digits := 0
	for i := range len(mantissa) {
		switch c := mantissa[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && strings.IndexByte(mantissa[i+1:], '.') < 0:
		default:
			return "", "", 0, false
		}
	}
	return sign, mantissa, exp, digits > 0
}

// maxExponent bounds the exponents numberKey computes with, far beyond DynamoDB's
// range (1E-130 to 1E+126), so that the arithmetic cannot overflow.
const maxExponent = 1 << 20
