package ryno

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/rynodb/rynodb/internal/batching"
)

// throttledReads is the client the store sends its requests through: it retries the
// single reads (GetItem, Query, Scan) that DynamoDB throttles, after the SDK's own
// retryer gave up, with backoff within Options.Retry, as the batch engine retries
// its requests and settle its writes. A read changes nothing, so sending it again is
// always safe.
type throttledReads struct {
	DynamoDBAPI
	retry RetryOptions
	sleep func(context.Context, time.Duration) error
}

func (r throttledReads) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return retryRead(ctx, r, func() (*dynamodb.GetItemOutput, error) { return r.DynamoDBAPI.GetItem(ctx, in, opts...) })
}

func (r throttledReads) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return retryRead(ctx, r, func() (*dynamodb.QueryOutput, error) { return r.DynamoDBAPI.Query(ctx, in, opts...) })
}

func (r throttledReads) Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return retryRead(ctx, r, func() (*dynamodb.ScanOutput, error) { return r.DynamoDBAPI.Scan(ctx, in, opts...) })
}

// retryRead sends a read until it is not throttled, or the retry budget or the
// context ends.
func retryRead[Out any](ctx context.Context, r throttledReads, read func() (Out, error)) (Out, error) {
	state := batching.RetryState{Opts: batching.Policy(r.retry)}
	for {
		out, err := read()
		if err == nil || !batching.IsThrottle(err) {
			return out, err
		}
		wait, again := state.Next(1, 1)
		if !again {
			return out, err
		}
		retrying(ctx, reasonThrottled, wait, err)
		if err := r.sleep(ctx, wait); err != nil {
			return out, err
		}
	}
}
