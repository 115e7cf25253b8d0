// Package storetest holds what the tests of the packages over the store share: a
// core over a fake DynamoDB API, the key and item of one entity, and the errors
// DynamoDB returns. Only tests import it.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/requests"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// StateKey is the key of the entity the tests read and write.
var StateKey = store.Key{Scope: "s", Type: "t", ID: "i"}

// Core returns a core on api for tables of prefix "t", sending again within
// maxAttempts at once, whose retries do not sleep.
func Core(t testing.TB, api requests.API, concurrency, maxAttempts int) *store.Core {
	t.Helper()
	names, err := schema.NewNames("t")
	require.NoError(t, err)
	retry := batching.Policy{MaxAttempts: maxAttempts, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}
	batch := batching.NewEngine(api, concurrency, retry)
	batch.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	return &store.Core{API: api, Names: names, Batch: batch, Config: store.Config{
		Now: time.Now, MaxConcurrency: concurrency, Retry: retry, Conflicts: retry,
	}}
}

// TestKey is the key of item i of a table keyed by pk and sk.
func TestKey(i int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": store.AttrS(fmt.Sprintf("k%04d", i)), "sk": store.AttrS("s")}
}

// StoredItem returns an entity item of StateKey with the given store attributes (S
// unless given as an AttributeValue).
func StoredItem(attrs map[string]any) map[string]types.AttributeValue {
	item := actions.EntityKey(StateKey)
	for name, v := range attrs {
		switch v := v.(type) {
		case string:
			item[name] = store.AttrS(v)
		case types.AttributeValue:
			item[name] = v
		default:
			panic(fmt.Sprintf("StoredItem: %T", v))
		}
	}
	return item
}

// HTTPError is an error of a response with status.
func HTTPError(status int) error {
	return &awshttp.ResponseError{ResponseError: &smithyhttp.ResponseError{
		Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status}},
		Err:      errors.New("x"),
	}}
}

// Canceled is a TransactionCanceledException with reasons.
func Canceled(reasons ...types.CancellationReason) error {
	return &types.TransactionCanceledException{Message: aws.String("canceled"), CancellationReasons: reasons}
}

// Reason is a cancellation reason of code.
func Reason(code string) types.CancellationReason {
	return types.CancellationReason{Code: aws.String(code)}
}

// Exists is a condition that the stored entity exists, named "exists".
type Exists struct{}

// Expression is attribute_exists(_id).
func (Exists) Expression(time.Time) expression.ConditionBuilder {
	return expression.AttributeExists(expression.Name(schema.AttrID))
}

func (Exists) String() string { return "exists" }
