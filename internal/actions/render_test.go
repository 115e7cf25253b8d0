package actions

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

var placeholder = regexp.MustCompile(`[#:][A-Za-z0-9_]+`)

// render writes an expression with its names and values in place, without spaces.
func render(t *testing.T, expr *string, names map[string]string, values map[string]types.AttributeValue) string {
	t.Helper()
	require.NotNil(t, expr)
	out := placeholder.ReplaceAllStringFunc(*expr, func(p string) string {
		if p[0] == '#' {
			if name, ok := names[p]; ok {
				return name
			}
		} else if av, ok := values[p]; ok {
			switch v := av.(type) {
			case *types.AttributeValueMemberS:
				return strconv.Quote(v.Value)
			case *types.AttributeValueMemberN:
				return v.Value
			}
			return fmt.Sprintf("%T", av)
		}
		t.Errorf("placeholder %s of %q is not defined", p, *expr)
		return p
	})
	return strings.ReplaceAll(out, " ", "")
}

func renderCondition(t *testing.T, c expression.ConditionBuilder) string {
	t.Helper()
	expr, err := expression.NewBuilder().WithCondition(c).Build()
	require.NoError(t, err)
	return render(t, expr.Condition(), expr.Names(), expr.Values())
}
