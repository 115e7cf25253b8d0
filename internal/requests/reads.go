package requests

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/rynodb/rynodb/internal/batching"
)

// Reads is the client the store sends its requests through: it retries the single
// reads (GetItem, Query, Scan) that DynamoDB throttles, after the SDK's own retryer
// gave up, with backoff within Retry, as the batch engine retries its requests. A
// read changes nothing, so sending it again is always safe.
type Reads struct {
	API
	Retry batching.Policy
	Sleep func(context.Context, time.Duration) error
	// Retrying, when set, is told of each retry.
	Retrying func(ctx context.Context, why batching.Reason, wait time.Duration, cause error)
}

func (r Reads) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return retryRead(ctx, r, func() (*dynamodb.GetItemOutput, error) { return r.API.GetItem(ctx, in, opts...) })
}

func (r Reads) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return retryRead(ctx, r, func() (*dynamodb.QueryOutput, error) { return r.API.Query(ctx, in, opts...) })
}

func (r Reads) Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return retryRead(ctx, r, func() (*dynamodb.ScanOutput, error) { return r.API.Scan(ctx, in, opts...) })
}

// retryRead sends a read until it is not throttled, or the retry budget or the
// context ends.
func retryRead[Out any](ctx context.Context, r Reads, read func() (Out, error)) (Out, error) {
	state := batching.RetryState{Opts: r.Retry}
	for {
		out, err := read()
		if err == nil || !batching.IsThrottle(err) {
			return out, err
		}
		wait, again := state.Next(1, 1)
		if !again {
			return out, err
		}
		if r.Retrying != nil {
			r.Retrying(ctx, batching.ReasonThrottled, wait, err)
		}
		if err := r.Sleep(ctx, wait); err != nil {
			return out, err
		}
	}
}
