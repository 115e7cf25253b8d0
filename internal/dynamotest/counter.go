package dynamotest

import (
	"context"
	"maps"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/rynodb/rynodb/ryno"
)

// Counter wraps a ryno.DynamoDBAPI and counts the requests sent through it, by
// operation name ("GetItem", "Query", ...). It is safe for concurrent use.
type Counter struct {
	api ryno.DynamoDBAPI

	mu          sync.Mutex
	counts      map[string]int
	inFlight    int
	maxInFlight int
	rounds      int
}

// NewCounter returns a Counter sending requests to api.
func NewCounter(api ryno.DynamoDBAPI) *Counter {
	return &Counter{api: api, counts: map[string]int{}}
}

// Count returns how many requests of operation op were sent.
func (c *Counter) Count(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[op]
}

// Counts returns a copy of the counts by operation.
func (c *Counter) Counts() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.counts)
}

// Total returns how many requests were sent.
func (c *Counter) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.counts {
		n += v
	}
	return n
}

// MaxInFlight returns the largest number of requests that were in flight at once.
func (c *Counter) MaxInFlight() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.maxInFlight
}

// Rounds returns the number of busy periods: a run of requests that overlap in time
// counts once, so requests sent in parallel make one round and requests sent one after
// another make one round each.
func (c *Counter) Rounds() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rounds
}

// Reset sets every count to zero.
func (c *Counter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.counts)
	c.maxInFlight, c.rounds = c.inFlight, 0
}

func (c *Counter) begin(op string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts[op]++
	if c.inFlight == 0 {
		c.rounds++
	}
	c.inFlight++
	c.maxInFlight = max(c.maxInFlight, c.inFlight)
}

func (c *Counter) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inFlight--
}

type opFunc[In, Out any] func(context.Context, In, ...func(*dynamodb.Options)) (Out, error)

func count[In, Out any](c *Counter, op string, f opFunc[In, Out], ctx context.Context, in In, opts []func(*dynamodb.Options)) (Out, error) {
	c.begin(op)
	defer c.end()
	return f(ctx, in, opts...)
}

func (c *Counter) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return count(c, "GetItem", c.api.GetItem, ctx, in, opts)
}

func (c *Counter) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return count(c, "PutItem", c.api.PutItem, ctx, in, opts)
}

func (c *Counter) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return count(c, "UpdateItem", c.api.UpdateItem, ctx, in, opts)
}

func (c *Counter) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return count(c, "DeleteItem", c.api.DeleteItem, ctx, in, opts)
}

func (c *Counter) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return count(c, "Query", c.api.Query, ctx, in, opts)
}

func (c *Counter) Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return count(c, "Scan", c.api.Scan, ctx, in, opts)
}

func (c *Counter) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return count(c, "BatchGetItem", c.api.BatchGetItem, ctx, in, opts)
}

func (c *Counter) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return count(c, "BatchWriteItem", c.api.BatchWriteItem, ctx, in, opts)
}

func (c *Counter) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return count(c, "TransactWriteItems", c.api.TransactWriteItems, ctx, in, opts)
}

var _ ryno.DynamoDBAPI = (*Counter)(nil)
