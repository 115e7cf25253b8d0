package ryno

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// validateLists checks every list a write replaces; sets are not written there.
func (c *Client) validateLists(subject Key, lists map[string][]Key) error {
	for _, predicate := range slices.Sorted(maps.Keys(lists)) {
		if err := validateList(subject, predicate, lists[predicate]); err != nil {
			return wrap(err, "ReplaceLists[%q]", predicate)
		}
		if err := c.listsOnly("ReplaceLists", predicate); err != nil {
			return err
		}
	}
	return nil
}

// DynamoDB's limits on numbers: 38 significant digits, magnitudes from 1e-130 up to
// below 1e126.
const (
	maxNumberDigits = 38
	minNumberExp    = -130
	maxNumberExp    = 126
)

// validateNumbers rejects numbers in v, at any depth, that DynamoDB would refuse:
// NaN and infinities (which the encoder writes as text), and numbers out of its range
// or precision.
func validateNumbers(field string, v types.AttributeValue) error {
	switch v := v.(type) {
	case *types.AttributeValueMemberN:
		return validateNumber(field, v.Value)
	case *types.AttributeValueMemberNS:
		for _, n := range v.Value {
			if err := validateNumber(field, n); err != nil {
				return err
			}
		}
	case *types.AttributeValueMemberL:
		for i, e := range v.Value {
			if err := validateNumbers(fmt.Sprintf("%s[%d]", field, i), e); err != nil {
				return err
			}
		}
	case *types.AttributeValueMemberM:
		for name, e := range v.Value {
			if err := validateNumbers(field+"."+name, e); err != nil {
				return err
			}
		}
	}
	return nil
}

// numberSyntax matches the decimal numbers DynamoDB accepts, such as -1.5e10.
var numberSyntax = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)(?:[eE]([+-]?\d+))?$`)

func validateNumber(field, n string) error {
	m := numberSyntax.FindStringSubmatch(n)
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
	case significant > maxNumberDigits:
		return invalid(field, n, fmt.Sprintf("has %d significant digits; DynamoDB keeps at most %d", significant, maxNumberDigits))
	case magnitude < minNumberExp || magnitude >= maxNumberExp:
		return invalid(field, n, "is out of DynamoDB's number range (magnitudes from 1e-130 to below 1e126)")
	}
	return nil
}
