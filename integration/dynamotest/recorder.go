package dynamotest

import (
	"context"
	"errors"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/integration/costmodel"
	"github.com/rynodb/rynodb/ryno"
)

// RecorderOptions configures a Recorder.
type RecorderOptions struct {
	// Images makes the recorder read what costmodel.Bill needs to bill each request
	// exactly, through the wrapped client but unrecorded: just before a request, the
	// items it writes or reads by key (a consistent BatchGetItem) and, for a Query or
	// Scan, the items it evaluates (the same query without filter or projection);
	// just after an update, the items it updated. The reads run while the request
	// counts as in flight, so they merge into its round and never split one. The
	// images are exact when no other writer changes the items meanwhile.
	Images bool
	// Capacity asks DynamoDB for the capacity of each request
	// (ReturnConsumedCapacity INDEXES), to compare with costmodel.Bill through
	// costmodel.Reported.
	Capacity bool
}

// Recorder wraps a ryno.DynamoDBAPI and keeps every request sent through it, with
// its response, for costmodel.Bill. Like Counter, it counts requests by operation
// and rounds. It is safe for concurrent use.
type Recorder struct {
	api  ryno.DynamoDBAPI
	opts RecorderOptions

	mu       sync.Mutex
	schema   costmodel.Schema
	requests []costmodel.Request
	spans    []span // of requests, in the order they returned
	counts   map[string]int
	inFlight int
	rounds   int
	err      error
}

// span is when a request was in flight.
type span struct{ start, end time.Time }

// depth returns the number of sequential waves of requests: the longest chain of
// requests each sent after the previous one returned. Requests sent together make
// one wave; a request waits on every request that returned before it was sent.
// Unlike busy periods (Counter.Rounds), it counts chains that run side by side
// once: a query and the write that depends on it make two waves, whatever else is
// in flight meanwhile.
func depth(spans []span) int {
	order := slices.Clone(spans)
	slices.SortFunc(order, func(a, b span) int { return a.start.Compare(b.start) })
	waves := make([]int, len(order))
	deepest := 0
	for i, s := range order {
		waves[i] = 1
		for j := range i {
			if !order[j].end.After(s.start) {
				waves[i] = max(waves[i], waves[j]+1)
			}
		}
		deepest = max(deepest, waves[i])
	}
	return deepest
}

// NewRecorder returns a Recorder sending requests to api.
func NewRecorder(api ryno.DynamoDBAPI, opts RecorderOptions) *Recorder {
	return &Recorder{api: api, opts: opts, schema: costmodel.Schema{}, counts: map[string]int{}}
}

// Reset forgets the requests recorded and sets the counts to zero.
func (r *Recorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests, r.spans = nil, nil
	clear(r.counts)
	r.rounds = 0
}

// Requests returns the requests recorded since the last Reset, in the order they
// returned.
func (r *Recorder) Requests() []costmodel.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.requests)
}

// Counts returns the requests recorded by operation.
func (r *Recorder) Counts() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.counts)
}

// Total returns how many requests were recorded.
func (r *Recorder) Total() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.requests)
}

// Rounds returns the number of busy periods, as Counter.Rounds does.
func (r *Recorder) Rounds() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rounds
}

// Depth returns the number of sequential waves of requests, as depth defines them.
func (r *Recorder) Depth() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return depth(r.spans)
}

// Schema returns the schemas of the tables the requests named.
func (r *Recorder) Schema() costmodel.Schema {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.schema)
}

// Err returns the first error met reading a table's schema or a request's images.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Bill returns what the requests recorded cost, by costmodel.Bill.
func (r *Recorder) Bill() (costmodel.Cost, error) {
	if err := r.Err(); err != nil {
		return costmodel.Cost{}, err
	}
	s := r.Schema()
	var total costmodel.Cost
	for _, req := range r.Requests() {
		c, err := costmodel.Bill(s, req)
		if err != nil {
			return costmodel.Cost{}, err
		}
		total = total.Add(c)
	}
	return total, nil
}

// Reported returns the capacity DynamoDB reported for the requests recorded (with
// RecorderOptions.Capacity).
func (r *Recorder) Reported() costmodel.Cost {
	var total costmodel.Cost
	for _, req := range r.Requests() {
		if c, ok := costmodel.Reported(req.Output); ok {
			total = total.Add(c)
		}
	}
	return total
}

func (r *Recorder) begin(op string) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counts[op]++
	if r.inFlight == 0 {
		r.rounds++
	}
	r.inFlight++
	return time.Now()
}

func (r *Recorder) end(req costmodel.Request, start time.Time) {
	end := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inFlight--
	r.requests = append(r.requests, req)
	r.spans = append(r.spans, span{start, end})
}

func (r *Recorder) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = err
	}
}

// record sends one request, with the images costmodel.Bill needs around it.
func record[Out any](r *Recorder, ctx context.Context, op string, in any, send func(context.Context) (Out, error)) (Out, error) {
	start := r.begin(op)
	req := costmodel.Request{Op: op, Input: in}
	defer func() { r.end(req, start) }()
	r.describe(ctx, tablesOf(in))
	if r.opts.Images {
		req.Before, req.Evaluated = r.imagesBefore(ctx, in)
	}
	out, err := send(ctx)
	req.Output, req.Err = out, err
	if err != nil {
		req.Output = nil
	}
	if r.opts.Images {
		req.After = r.imagesAfter(ctx, in)
	}
	return out, err
}

func (r *Recorder) capacity() types.ReturnConsumedCapacity {
	if r.opts.Capacity {
		return types.ReturnConsumedCapacityIndexes
	}
	return ""
}

func (r *Recorder) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	if c := r.capacity(); c != "" {
		cp := *in
		cp.ReturnConsumedCapacity, in = c, &cp
	}
	return record(r, ctx, "GetItem", in, func(ctx context.Context) (*dynamodb.GetItemOutput, error) { return r.api.GetItem(ctx, in, opts...) })
}

func (r *Recorder) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if c := r.capacity(); c != "" {
		cp := *in
		cp.ReturnConsumedCapacity, in = c, &cp
	}
	return record(r, ctx, "PutItem", in, func(ctx context.Context) (*dynamodb.PutItemOutput, error) { return r.api.PutItem(ctx, in, opts...) })
}

func (r *Recorder) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if c := r.capacity(); c != "" {
		cp := *in
		cp.ReturnConsumedCapacity, in = c, &cp
	}
	return record(r, ctx, "UpdateItem", in, func(ctx context.Context) (*dynamodb.UpdateItemOutput, error) {
		return r.api.UpdateItem(ctx, in, opts...)
	})
}

func (r *Recorder) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	if c := r.capacity(); c != "" {
		cp := *in
		cp.ReturnConsumedCapacity, in = c, &cp
	}
	return record(r, ctx, "DeleteItem", in, func(ctx context.Context) (*dynamodb.DeleteItemOutput, error) {
		return r.api.DeleteItem(ctx, in, opts...)
	})
}

func (r *Recorder) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if c := r.capacity(); c != "" {
		cp := *in
		cp.ReturnConsumedCapacity, in = c, &cp
	}
	return record(r, ctx, "Query", in, func(ctx context.Context) (*dynamodb.QueryOutput, error) { return r.api.Query(ctx, in, opts...) })
}

func (r *Recorder) Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	if c := r.capacity(); c != "" {
		cp := *in
		cp.ReturnConsumedCapacity, in = c, &cp
	}
	return record(r, ctx, "Scan", in, func(ctx context.Context) (*dynamodb.ScanOutput, error) { return r.api.Scan(ctx, in, opts...) })
}

func (r *Recorder) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	if c := r.capacity(); c != "" {
		cp := *in
		cp.ReturnConsumedCapacity, in = c, &cp
	}
	return record(r, ctx, "BatchGetItem", in, func(ctx context.Context) (*dynamodb.BatchGetItemOutput, error) {
		return r.api.BatchGetItem(ctx, in, opts...)
	})
}

func (r *Recorder) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	if c := r.capacity(); c != "" {
		cp := *in
		cp.ReturnConsumedCapacity, in = c, &cp
	}
	return record(r, ctx, "BatchWriteItem", in, func(ctx context.Context) (*dynamodb.BatchWriteItemOutput, error) {
		return r.api.BatchWriteItem(ctx, in, opts...)
	})
}

func (r *Recorder) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if c := r.capacity(); c != "" {
		cp := *in
		cp.ReturnConsumedCapacity, in = c, &cp
	}
	return record(r, ctx, "TransactWriteItems", in, func(ctx context.Context) (*dynamodb.TransactWriteItemsOutput, error) {
		return r.api.TransactWriteItems(ctx, in, opts...)
	})
}

func (r *Recorder) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return record(r, ctx, "DescribeTable", in, func(ctx context.Context) (*dynamodb.DescribeTableOutput, error) {
		return r.api.DescribeTable(ctx, in, opts...)
	})
}

var _ ryno.DynamoDBAPI = (*Recorder)(nil)

// tablesOf returns the tables request in names.
func tablesOf(in any) []string {
	switch in := in.(type) {
	case *dynamodb.GetItemInput:
		return []string{aws.ToString(in.TableName)}
	case *dynamodb.PutItemInput:
		return []string{aws.ToString(in.TableName)}
	case *dynamodb.UpdateItemInput:
		return []string{aws.ToString(in.TableName)}
	case *dynamodb.DeleteItemInput:
		return []string{aws.ToString(in.TableName)}
	case *dynamodb.QueryInput:
		return []string{aws.ToString(in.TableName)}
	case *dynamodb.ScanInput:
		return []string{aws.ToString(in.TableName)}
	case *dynamodb.BatchGetItemInput:
		return slices.Collect(maps.Keys(in.RequestItems))
	case *dynamodb.BatchWriteItemInput:
		return slices.Collect(maps.Keys(in.RequestItems))
	case *dynamodb.TransactWriteItemsInput:
		var names []string
		for _, a := range in.TransactItems {
			names = append(names, aws.ToString(transactTable(a)))
		}
		return names
	}
	return nil
}

// ActionTable is the table an action of a transaction writes or checks.
func ActionTable(a types.TransactWriteItem) string { return aws.ToString(transactTable(a)) }

func transactTable(a types.TransactWriteItem) *string {
	switch {
	case a.Put != nil:
		return a.Put.TableName
	case a.Update != nil:
		return a.Update.TableName
	case a.Delete != nil:
		return a.Delete.TableName
	case a.ConditionCheck != nil:
		return a.ConditionCheck.TableName
	}
	return nil
}

var (
	nameToken  = regexp.MustCompile(`#[A-Za-z0-9_]+`)
	valueToken = regexp.MustCompile(`:[A-Za-z0-9_]+`)
)

// isClientError reports whether err is DynamoDB refusing the request itself, which
// the request proper meets too.
func isClientError(err error) bool {
	var notFound *types.ResourceNotFoundException
	return errors.As(err, &notFound) || strings.Contains(err.Error(), "ValidationException")
}
