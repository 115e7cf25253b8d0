package writes

import (
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/commit"
)

// TestAPatchConditionOnAnAttributeNamedLikeAnAliasTestsThatAttribute: the names a
// patch writes stand in the builder as aliases; a condition naming a user
// attribute that looks like one still names that attribute.
func TestAPatchConditionOnAnAttributeNamedLikeAnAliasTestsThatAttribute(t *testing.T) {
	for _, name := range []string{"alias0", "alias00", "alias"} {
		t.Run(name, func(t *testing.T) {
			var a aliases
			u := expression.Set(a.name("balance"), expression.Value(&types.AttributeValueMemberN{Value: "5"}))
			cond := expression.NameNoDotSplit(name).Equal(expression.Value(&types.AttributeValueMemberS{Value: "x"}))
			b := commit.Build(cond, &u)
			a.resolve(b.Names)
			got := slices.Sorted(func(yield func(string) bool) {
				for _, n := range b.Names {
					if !yield(n) {
						return
					}
				}
			})
			require.Equal(t, slices.Sorted(slices.Values([]string{"balance", name})), got)
		})
	}
}
