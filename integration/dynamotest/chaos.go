package dynamotest

import (
	"context"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/rynodb/rynodb/ryno"
)

// ChaosOptions choose the faults a Chaos injects. The zero value injects none.
type ChaosOptions struct {
	// ThrottleRate is the fraction of requests, from 0 to 1, that fail with
	// throttling instead of being sent: a ProvisionedThroughputExceededException
	// wrapped as the SDK returns it once its retryer has given up.
	ThrottleRate float64

	// UnprocessedRate is the fraction, from 0 to 1 and rounded down, of the items of
	// each BatchGetItem and BatchWriteItem request that are not sent and are
	// returned as UnprocessedKeys or UnprocessedItems. The rest are sent. Rounding
	// down leaves a request of one item whole unless the rate is 1.
	UnprocessedRate float64

	// Ops names the operations ThrottleRate applies to ("BatchGetItem", "Query",
	// ...); every operation when empty.
	Ops []string

	// Seed seeds the random choices: requests sent one after another meet the same
	// faults for the same seed. Requests sent in parallel draw in the order they
	// arrive.
	Seed uint64
}

// Chaos wraps a ryno.DynamoDBAPI and injects what DynamoDB does under load and
// DynamoDB Local never does: requests throttled, and batch requests that leave some
// of their items unprocessed. It is safe for concurrent use.
type Chaos struct {
	*Wrapped // throttles every operation; Chaos's own batch methods then split

	api  ryno.DynamoDBAPI
	opts ChaosOptions

	mu          sync.Mutex
	rand        *rand.Rand
	throttled   int
	unprocessed int
}

// NewChaos returns a Chaos sending requests to api with the faults of opts.
func NewChaos(api ryno.DynamoDBAPI, opts ChaosOptions) *Chaos {
	c := &Chaos{api: api, opts: opts, rand: rand.New(rand.NewPCG(opts.Seed, opts.Seed))}
	c.Wrapped = Wrap(api, c.hook)
	return c
}

// Throttled returns how many requests failed with throttling.
func (c *Chaos) Throttled() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.throttled
}

// Unprocessed returns how many batch items were returned unprocessed without being
// sent.
func (c *Chaos) Unprocessed() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.unprocessed
}

func (c *Chaos) hook(ctx context.Context, op string, send func(context.Context) error) error {
	if c.throttles(op) {
		return throttlingError(op)
	}
	return send(ctx)
}

// throttles draws whether to throttle a request of op.
func (c *Chaos) throttles(op string) bool {
	if len(c.opts.Ops) > 0 && !slices.Contains(c.opts.Ops, op) {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rand.Float64() >= c.opts.ThrottleRate {
		return false
	}
	c.throttled++
	return true
}

// throttlingError returns the error the SDK gives for a request of op that DynamoDB
// throttled at every attempt.
func throttlingError(op string) error {
	return &smithy.OperationError{
		ServiceID:     "DynamoDB",
		OperationName: op,
		Err: &retry.MaxAttemptsError{Attempt: 3, Err: &awshttp.ResponseError{
			ResponseError: &smithyhttp.ResponseError{
				Response: &smithyhttp.Response{Response: &http.Response{StatusCode: http.StatusBadRequest}},
				Err: &types.ProvisionedThroughputExceededException{
					Message: aws.String("The level of configured provisioned throughput for the table was exceeded."),
				},
			},
			RequestID: "dynamotest-chaos",
		}},
	}
}

// BatchGetItem may throttle the request; otherwise it sends the request less the
// keys it chooses to leave unprocessed, and returns those with any DynamoDB left.
func (c *Chaos) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return call(c.Wrapped, "BatchGetItem", c.batchGetItem, ctx, in, opts)
}

func (c *Chaos) batchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	keys := make(map[string][]map[string]types.AttributeValue, len(in.RequestItems))
	for table, ka := range in.RequestItems {
		keys[table] = ka.Keys
	}
	sent, left := split(c, keys)
	out := &dynamodb.BatchGetItemOutput{}
	if len(sent) > 0 || len(left) == 0 { // DynamoDB rejects an empty request: send that as it is
		req := *in
		req.RequestItems = withKeys(in.RequestItems, sent)
		var err error
		if out, err = c.api.BatchGetItem(ctx, &req, opts...); err != nil {
			return nil, err
		}
	}
	if len(left) > 0 {
		unprocessed := withKeys(in.RequestItems, left)
		for table, ka := range out.UnprocessedKeys {
			if u, ok := unprocessed[table]; ok {
				ka.Keys = append(u.Keys, ka.Keys...)
			}
			unprocessed[table] = ka
		}
		out.UnprocessedKeys = unprocessed
	}
	return out, nil
}

// withKeys returns reqs with the keys of each table replaced by those of keys, and
// the tables not in keys left out.
func withKeys(reqs map[string]types.KeysAndAttributes, keys map[string][]map[string]types.AttributeValue) map[string]types.KeysAndAttributes {
	out := make(map[string]types.KeysAndAttributes, len(keys))
	for table, k := range keys {
		ka := reqs[table]
		ka.Keys = k
		out[table] = ka
	}
	return out
}

// BatchWriteItem may throttle the request; otherwise it sends the request less the
// writes it chooses to leave unprocessed, and returns those with any DynamoDB left.
func (c *Chaos) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return call(c.Wrapped, "BatchWriteItem", c.batchWriteItem, ctx, in, opts)
}

func (c *Chaos) batchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	sent, left := split(c, in.RequestItems)
	out := &dynamodb.BatchWriteItemOutput{}
	if len(sent) > 0 || len(left) == 0 { // DynamoDB rejects an empty request: send that as it is
		req := *in
		req.RequestItems = sent
		var err error
		if out, err = c.api.BatchWriteItem(ctx, &req, opts...); err != nil {
			return nil, err
		}
	}
	if len(left) > 0 {
		for table, reqs := range out.UnprocessedItems {
			left[table] = append(left[table], reqs...)
		}
		out.UnprocessedItems = left
	}
	return out, nil
}

// split chooses the items of a batch request, by table, to leave unprocessed and
// returns the others (to send) and those. Tables are taken in name order so that
// the choice depends on the seed only.
func split[T any](c *Chaos, items map[string][]T) (sent, left map[string][]T) {
	tables := slices.Sorted(maps.Keys(items))
	n := 0
	for _, table := range tables {
		n += len(items[table])
	}
	skip := c.chooseUnprocessed(n)
	sent, left = map[string][]T{}, map[string][]T{}
	i := 0
	for _, table := range tables {
		for _, it := range items[table] {
			if skip[i] {
				left[table] = append(left[table], it)
			} else {
				sent[table] = append(sent[table], it)
			}
			i++
		}
	}
	return sent, left
}

// chooseUnprocessed draws which of the n items of a batch request to leave
// unprocessed: UnprocessedRate of them, rounded down.
func (c *Chaos) chooseUnprocessed(n int) []bool {
	k := min(max(int(c.opts.UnprocessedRate*float64(n)), 0), n)
	skip := make([]bool, n)
	if k == 0 {
		return skip
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, i := range c.rand.Perm(n)[:k] {
		skip[i] = true
	}
	c.unprocessed += k
	return skip
}

var _ ryno.DynamoDBAPI = (*Chaos)(nil)
