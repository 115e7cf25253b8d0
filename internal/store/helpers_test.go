package store

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/requests"
	"github.com/rynodb/rynodb/internal/schema"
)

var stateKey = Key{Scope: "s", Type: "t", ID: "i"}

// testCore returns a core on api for tables of prefix "t", sending again within
// maxAttempts at once.
func testCore(t *testing.T, api requests.API, concurrency, maxAttempts int) *Core {
	t.Helper()
	names, err := schema.NewNames("t")
	require.NoError(t, err)
	retry := batching.Policy{MaxAttempts: maxAttempts, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}
	batch := batching.NewEngine(api, concurrency, retry)
	batch.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	return &Core{API: api, Names: names, Batch: batch, Config: Config{
		Now: time.Now, MaxConcurrency: concurrency, Retry: retry, Conflicts: retry,
	}}
}

// testKey and testItem are the key and item of item i of a table keyed by pk and sk.
func testKey(i int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": AttrS(fmt.Sprintf("k%04d", i)), "sk": AttrS("s")}
}

func testItem(i int, value string) map[string]types.AttributeValue {
	item := testKey(i)
	item["v"] = AttrS(value)
	return item
}

// storedItem returns an entity item with the given store attributes (S unless
// given as an AttributeValue) on top of the key.
func storedItem(attrs map[string]any) map[string]types.AttributeValue {
	item := actions.EntityKey(stateKey)
	for name, v := range attrs {
		switch v := v.(type) {
		case string:
			item[name] = AttrS(v)
		case types.AttributeValue:
			item[name] = v
		default:
			panic(fmt.Sprintf("storedItem: %T", v))
		}
	}
	return item
}

func httpError(status int) error {
	return &awshttp.ResponseError{ResponseError: &smithyhttp.ResponseError{
		Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status}},
		Err:      errors.New("x"),
	}}
}

func reasonsCanceled(reasons ...types.CancellationReason) error {
	return &types.TransactionCanceledException{Message: aws.String("canceled"), CancellationReasons: reasons}
}

func reason(code string) types.CancellationReason {
	return types.CancellationReason{Code: aws.String(code)}
}
