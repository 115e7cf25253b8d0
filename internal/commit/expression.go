package commit

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Built is a condition or update expression with its placeholders.
type Built struct {
	Condition, Update *string
	Names             map[string]string
	Values            map[string]types.AttributeValue
}

// Build builds a condition and, when not nil, an update. The builders only ever
// receive names and values the store made, so an error is a bug.
func Build(cond expression.ConditionBuilder, update *expression.UpdateBuilder) Built {
	b := expression.NewBuilder().WithCondition(cond)
	if update != nil {
		b = b.WithUpdate(*update)
	}
	expr, err := b.Build()
	if err != nil {
		panic(fmt.Sprintf("ryno: building an expression: %v", err))
	}
	return Built{Condition: expr.Condition(), Update: expr.Update(), Names: expr.Names(), Values: expr.Values()}
}
