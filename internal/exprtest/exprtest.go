package exprtest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

var placeholder = regexp.MustCompile(`[#:][A-Za-z0-9_]+`)

// Render writes expr with its names and values in place, without spaces: a string
// value quoted, a number as it is, any other value as its type. A placeholder that
// names nothing fails t.
func Render(t testing.TB, expr *string, names map[string]string, values map[string]types.AttributeValue) string {
	t.Helper()
	if expr == nil {
		t.Fatal("exprtest: no expression")
	}
	out := placeholder.ReplaceAllStringFunc(*expr, func(p string) string {
		if p[0] == '#' {
			if name, ok := names[p]; ok {
				return name
			}
		} else if av, ok := values[p]; ok {
			return Value(av)
		}
		t.Errorf("placeholder %s of %q is not defined", p, *expr)
		return p
	})
	return strings.ReplaceAll(out, " ", "")
}

// Value renders one attribute value as Render does.
func Value(av types.AttributeValue) string {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return strconv.Quote(v.Value)
	case *types.AttributeValueMemberN:
		return v.Value
	}
	return fmt.Sprintf("%T", av)
}

// Condition renders the condition c.
func Condition(t testing.TB, c expression.ConditionBuilder) string {
	t.Helper()
	expr, err := expression.NewBuilder().WithCondition(c).Build()
	if err != nil {
		t.Fatal(err)
	}
	return Render(t, expr.Condition(), expr.Names(), expr.Values())
}
