package exprtest

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

func TestCondition(t *testing.T) {
	c := expression.Name("_version").Equal(expression.Value(3)).
		And(expression.Name("name").Equal(expression.Value("Ada")), expression.AttributeNotExists(expression.Name("_lease")))
	require.Equal(t, `(_version=3)AND(name="Ada")AND(attribute_not_exists(_lease))`, Condition(t, c))
	require.Equal(t, "*types.AttributeValueMemberBOOL", Value(&types.AttributeValueMemberBOOL{Value: true}))
}
