package ryno

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/exprtest"
)

// errInjected is the failure tests inject into requests.
var errInjected = errors.New("injected failure")

// nilAPI is a DynamoDBAPI whose nil pointer New must refuse.
type nilAPI struct{ DynamoDBAPI }

// stateKey is the key of the entity unit tests write.
var stateKey = Key{Scope: "s", Type: "t", ID: "i"}

// renderExpr returns expr with its placeholders replaced by the names and values
// they stand for (strings quoted) and without spaces, so that tests read
// `_version=3` whatever numbering the builder chose.
func renderExpr(t *testing.T, expr *string, names map[string]string, values map[string]types.AttributeValue) string {
	t.Helper()
	return exprtest.Render(t, expr, names, values)
}

// renderCondition builds c as the store does and renders it.
func renderCondition(t *testing.T, c expression.ConditionBuilder) string {
	t.Helper()
	return exprtest.Condition(t, c)
}
