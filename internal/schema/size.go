package schema

import (
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// MaxItemBytes is DynamoDB's limit on the size of one item: 400 KB.
const MaxItemBytes = 400 * 1024

// Sizes DynamoDB counts for the parts of an item.
const (
	scalarFlagBytes  = 1  // a BOOL or NULL value
	documentBytes    = 3  // an L or M value, even when empty
	nestedValueBytes = 1  // each element of an L or entry of an M
	maxNumberBytes   = 22 // 38 significant digits span at most 20 base-100 digits, plus exponent and sign
)

// maxNumberExponent bounds the exponents numberSize computes with, far beyond
// DynamoDB's range (1E-130 to 1E+126), so that place arithmetic cannot overflow.
const maxNumberExponent = 1 << 20

// ItemSize returns the size DynamoDB counts for item, following AWS's documented
// rules: each attribute costs the UTF-8 length of its name plus the size of its value.
// Numbers are counted so as never to underestimate (see numberSize); other types
// follow the documented rules exactly. Compare the result with MaxItemBytes before a write to fail early rather
// than have DynamoDB reject the request.
func ItemSize(item map[string]types.AttributeValue) int {
	n := 0
	for name, v := range item {
		n += len(name) + valueSize(v)
	}
	return n
}

// valueSize returns the size of one attribute value. A nil value counts zero bytes;
// DynamoDB would reject it anyway.
func valueSize(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return numberSize(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return scalarFlagBytes
	case *types.AttributeValueMemberSS:
		return sumSizes(v.Value, func(s string) int { return len(s) })
	case *types.AttributeValueMemberNS:
		return sumSizes(v.Value, numberSize)
	case *types.AttributeValueMemberBS:
		return sumSizes(v.Value, func(b []byte) int { return len(b) })
	case *types.AttributeValueMemberL:
		return documentBytes + sumSizes(v.Value, func(e types.AttributeValue) int {
			return valueSize(e) + nestedValueBytes
		})
	case *types.AttributeValueMemberM:
		n := documentBytes
		for k, e := range v.Value {
			n += len(k) + valueSize(e) + nestedValueBytes
		}
		return n
	case *types.UnknownUnionMember:
		return len(v.Value)
	}
	return 0
}

func sumSizes[T any](values []T, size func(T) int) int {
	n := 0
	for _, v := range values {
		n += size(v)
	}
	return n
}

// numberSize returns the size of a number in its decimal string form.
//
// AWS documents "1 byte per two significant digits, plus 1", approximately. Measured
// sizes show that DynamoDB stores numbers in base 100, aligned on the decimal point,
// so digits that straddle a pair boundary (1.1 is 01.10) take a byte more, and a
// negative number takes one more. Counting the base-100 digits plus the exponent and
// sign bytes is never below the documented figure. A string that is not a number counts maxNumberBytes: DynamoDB
// rejects it anyway.
func numberSize(s string) int {
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	mantissa, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > maxNumberExponent || e < -maxNumberExponent {
			return maxNumberBytes
		}
		mantissa, exp = s[:i], e
	}
	top, bottom, ok := significantPlaces(mantissa)
	switch {
	case !ok:
		return maxNumberBytes
	case top < bottom: // no nonzero digit: zero
		return 1
	}
	n := floorHalf(top+exp) - floorHalf(bottom+exp) + 1 // base-100 digits
	n++                                                 // exponent byte
	if neg {
		n++
	}
	return n
}

// significantPlaces returns the decimal places (0 for units, -1 for tenths) of the
// first and last nonzero digits of a decimal mantissa such as "012.340". For zero,
// top < bottom. ok is false when s is not digits with at most one '.'.
func significantPlaces(s string) (top, bottom int, ok bool) {
	point := strings.IndexByte(s, '.')
	if point < 0 {
		point = len(s)
	}
	top, bottom = -1, 0
	digits, found := 0, false
	for k := 0; k < len(s); k++ {
		c := s[k]
		if k == point {
			continue
		}
		if c < '0' || c > '9' {
			return 0, 0, false
		}
		digits++
		if c == '0' {
			continue
		}
		place := point - 1 - k
		if k > point {
			place = point - k
		}
		if !found {
			top, found = place, true
		}
		bottom = place
	}
	return top, bottom, digits > 0
}

// floorHalf returns floor(x/2), the index of the base-100 digit holding decimal place x.
func floorHalf(x int) int { return x >> 1 }
