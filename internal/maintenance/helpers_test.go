package maintenance

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/deletes"
	"github.com/rynodb/rynodb/internal/requests"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// testMaintainer returns a Maintainer over api for tables of prefix "t", whose
// retries do not sleep.
func testMaintainer(t *testing.T, api requests.API, concurrency, maxAttempts int) *Maintainer {
	t.Helper()
	names, err := schema.NewNames("t")
	require.NoError(t, err)
	retry := batching.Policy{MaxAttempts: maxAttempts, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}
	batch := batching.NewEngine(api, concurrency, retry)
	batch.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	core := &store.Core{API: api, Names: names, Batch: batch, Config: store.Config{
		Now: time.Now, MaxConcurrency: concurrency, Retry: retry, Conflicts: retry,
	}}
	dels := deletes.New(core)
	core.Deletes = dels
	return New(core, dels)
}

// testKey is the key of item i of a table keyed by pk and sk.
func testKey(i int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": store.AttrS(fmt.Sprintf("k%04d", i)), "sk": store.AttrS("s")}
}
