package numbers

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/schema"
)

// DynamoDB's limits on numbers: 38 significant digits, magnitudes from 1e-130 up to
// below 1e126.
const (
	MaxDigits = 38
	minExp    = -130
	maxExp    = 126
)

// ValidateAll rejects numbers in v, at any depth, that DynamoDB would refuse:
// NaN and infinities (which the encoder writes as text), and numbers out of its range
// or precision.
func ValidateAll(field string, v types.AttributeValue) error {
	switch v := v.(type) {
	case *types.AttributeValueMemberN:
		return Validate(field, v.Value)
	case *types.AttributeValueMemberNS:
		for _, n := range v.Value {
			if err := Validate(field, n); err != nil {
				return err
			}
		}
	case *types.AttributeValueMemberL:
		for i, e := range v.Value {
			if err := ValidateAll(fmt.Sprintf("%s[%d]", field, i), e); err != nil {
				return err
			}
		}
	case *types.AttributeValueMemberM:
		for name, e := range v.Value {
			if err := ValidateAll(field+"."+name, e); err != nil {
				return err
			}
		}
	}
	return nil
}

// syntax matches the decimal numbers DynamoDB accepts, such as -1.5e10.
var syntax = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)(?:[eE]([+-]?\d+))?$`)

func Validate(field, n string) error {
	m := syntax.FindStringSubmatch(n)
	if m == nil {
		return invalid(field, n, "is not a number DynamoDB can store")
	}
	exp := 0
	if m[2] != "" {
		var err error
		if exp, err = strconv.Atoi(m[2]); err != nil {
			return invalid(field, n, "is out of DynamoDB's number range")
		}
	}
	whole, fraction, _ := strings.Cut(m[1], ".")
	digits := whole + fraction
	nonZero := func(r rune) bool { return r != '0' }
	first := strings.IndexFunc(digits, nonZero)
	if first < 0 {
		return nil // zero
	}
	significant := strings.LastIndexFunc(digits, nonZero) - first + 1
	magnitude := len(whole) - 1 - first + exp // the power of ten of the first significant digit
	switch {
	case significant > MaxDigits:
		return invalid(field, n, fmt.Sprintf("has %d significant digits; DynamoDB keeps at most %d", significant, MaxDigits))
	case magnitude < minExp || magnitude >= maxExp:
		return invalid(field, n, "is out of DynamoDB's number range (magnitudes from 1e-130 to below 1e126)")
	}
	return nil
}

// invalid returns the *schema.ValidationError of a value refused before any
// request.
func invalid(field, value, reason string) error {
	return &schema.ValidationError{Field: field, Value: value, Reason: reason}
}
