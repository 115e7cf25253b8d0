package requests

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/rynodb/rynodb/internal/batching"
)

// Recorder records the requests of one call of the store: package ryno's call
// implements it, and puts it in the context of the call's requests.
type Recorder interface {
	// Sent records that a request of API api is sent.
	Sent(api string)
	// Answered records its answer: attempts DynamoDB throttled, SDK retries, items
	// left unprocessed, the capacity consumed, and whether the API writes.
	Answered(throttles, retries, unprocessed int, consumed []types.ConsumedCapacity, write bool)
	// WantsCapacity reports whether requests should ask for the capacity they use.
	WantsCapacity() bool
	// Throttled is told of each attempt DynamoDB throttled.
	Throttled(ctx context.Context, api string, attempt int)
}

type recorderKey struct{}

// WithRecorder returns ctx carrying r: the requests sent with it are recorded.
func WithRecorder(ctx context.Context, r Recorder) context.Context {
	return context.WithValue(ctx, recorderKey{}, r)
}

// RecorderOf returns the Recorder ctx carries, or nil.
func RecorderOf(ctx context.Context) Recorder {
	r, _ := ctx.Value(recorderKey{}).(Recorder)
	return r
}

// Observed is the innermost client of an observed store: it sees every request
// the store sends, retries included, and records it with the Recorder its context
// carries. Requests outside a call pass through untouched.
type Observed struct {
	API API
}

// request is one request being recorded.
type request struct {
	k         Recorder
	api       string
	attempts  int // HTTP attempts, counted by the SDK middleware when there is one
	throttled int // attempts DynamoDB throttled
}

// startRequest records that a request of API op is sent, and returns the options that
// count its attempts.
func startRequest(ctx context.Context, op string, opts []func(*dynamodb.Options)) (*request, []func(*dynamodb.Options)) {
	k := RecorderOf(ctx)
	if k == nil {
		return nil, opts
	}
	k.Sent(op)
	r := &request{k: k, api: op}
	return r, append(opts[:len(opts):len(opts)], r.countAttempts)
}

// done records the end of the request.
func (r *request) done(err error, unprocessed int, consumed []types.ConsumedCapacity) {
	if r == nil {
		return
	}
	throttles, retries := r.throttled, r.attempts-1
	if r.attempts == 0 && batching.IsThrottle(err) { // a client without the SDK's middleware
		throttles = 1
	}
	r.k.Answered(throttles, max(retries, 0), unprocessed, consumed, writeAPIs[r.api])
}

// countAttempts adds a middleware after the SDK's retryer, so that it runs once
// per attempt: the SDK retries throttled requests itself before the store sees
// them.
func (r *request) countAttempts(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
		mw := middleware.FinalizeMiddlewareFunc("ryno.CountAttempts", r.attempt)
		if _, ok := s.Finalize.Get("Retry"); ok {
			return s.Finalize.Insert(mw, "Retry", middleware.After)
		}
		return s.Finalize.Add(mw, middleware.After)
	})
}

func (r *request) attempt(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
	out, md, err := next.HandleFinalize(ctx, in)
	r.attempts++
	if batching.IsThrottle(err) {
		r.throttled++
		r.k.Throttled(ctx, r.api, r.attempts)
	}
	return out, md, err
}

// send sends in with call as a request of API api, recorded in the call ctx
// belongs to: returned capacity, as rcc points it out, is asked for when wanted,
// on a copy of in; result reads the capacity and the unprocessed items of out.
func send[In, Out any](ctx context.Context, api string, in *In, opts []func(*dynamodb.Options),
	call func(context.Context, *In, ...func(*dynamodb.Options)) (*Out, error),
	rcc func(*In) *types.ReturnConsumedCapacity, result func(*Out) ([]types.ConsumedCapacity, int),
) (*Out, error) {
	r, opts := startRequest(ctx, api, opts)
	if r == nil {
		return call(ctx, in, opts...)
	}
	if rcc != nil && r.k.WantsCapacity() && *rcc(in) == "" {
		cp := *in
		*rcc(&cp) = types.ReturnConsumedCapacityIndexes
		in = &cp
	}
	out, err := call(ctx, in, opts...)
	var (
		consumed []types.ConsumedCapacity
		left     int
	)
	if out != nil {
		consumed, left = result(out)
	}
	r.done(err, left, consumed)
	return out, err
}

// writeAPIs are the APIs whose capacity, when DynamoDB gives only its total, is
// write capacity.
var writeAPIs = map[string]bool{"PutItem": true, "UpdateItem": true, "DeleteItem": true, "BatchWriteItem": true, "TransactWriteItems": true}

func (o Observed) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return send(ctx, "GetItem", in, opts, o.API.GetItem,
		func(in *dynamodb.GetItemInput) *types.ReturnConsumedCapacity { return &in.ReturnConsumedCapacity },
		func(out *dynamodb.GetItemOutput) ([]types.ConsumedCapacity, int) { return one(out.ConsumedCapacity), 0 })
}

func (o Observed) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return send(ctx, "PutItem", in, opts, o.API.PutItem,
		func(in *dynamodb.PutItemInput) *types.ReturnConsumedCapacity { return &in.ReturnConsumedCapacity },
		func(out *dynamodb.PutItemOutput) ([]types.ConsumedCapacity, int) { return one(out.ConsumedCapacity), 0 })
}

func (o Observed) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return send(ctx, "UpdateItem", in, opts, o.API.UpdateItem,
		func(in *dynamodb.UpdateItemInput) *types.ReturnConsumedCapacity { return &in.ReturnConsumedCapacity },
		func(out *dynamodb.UpdateItemOutput) ([]types.ConsumedCapacity, int) {
			return one(out.ConsumedCapacity), 0
		})
}

func (o Observed) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return send(ctx, "DeleteItem", in, opts, o.API.DeleteItem,
		func(in *dynamodb.DeleteItemInput) *types.ReturnConsumedCapacity { return &in.ReturnConsumedCapacity },
		func(out *dynamodb.DeleteItemOutput) ([]types.ConsumedCapacity, int) {
			return one(out.ConsumedCapacity), 0
		})
}

func (o Observed) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return send(ctx, "Query", in, opts, o.API.Query,
		func(in *dynamodb.QueryInput) *types.ReturnConsumedCapacity { return &in.ReturnConsumedCapacity },
		func(out *dynamodb.QueryOutput) ([]types.ConsumedCapacity, int) { return one(out.ConsumedCapacity), 0 })
}

func (o Observed) Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return send(ctx, "Scan", in, opts, o.API.Scan,
		func(in *dynamodb.ScanInput) *types.ReturnConsumedCapacity { return &in.ReturnConsumedCapacity },
		func(out *dynamodb.ScanOutput) ([]types.ConsumedCapacity, int) { return one(out.ConsumedCapacity), 0 })
}

func (o Observed) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return send(ctx, "BatchGetItem", in, opts, o.API.BatchGetItem,
		func(in *dynamodb.BatchGetItemInput) *types.ReturnConsumedCapacity { return &in.ReturnConsumedCapacity },
		func(out *dynamodb.BatchGetItemOutput) ([]types.ConsumedCapacity, int) {
			left := 0
			for _, ka := range out.UnprocessedKeys {
				left += len(ka.Keys)
			}
			return out.ConsumedCapacity, left
		})
}

func (o Observed) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return send(ctx, "BatchWriteItem", in, opts, o.API.BatchWriteItem,
		func(in *dynamodb.BatchWriteItemInput) *types.ReturnConsumedCapacity {
			return &in.ReturnConsumedCapacity
		},
		func(out *dynamodb.BatchWriteItemOutput) ([]types.ConsumedCapacity, int) {
			left := 0
			for _, ws := range out.UnprocessedItems {
				left += len(ws)
			}
			return out.ConsumedCapacity, left
		})
}

func (o Observed) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return send(ctx, "TransactWriteItems", in, opts, o.API.TransactWriteItems,
		func(in *dynamodb.TransactWriteItemsInput) *types.ReturnConsumedCapacity {
			return &in.ReturnConsumedCapacity
		},
		func(out *dynamodb.TransactWriteItemsOutput) ([]types.ConsumedCapacity, int) {
			return out.ConsumedCapacity, 0
		})
}

func (o Observed) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return send(ctx, "DescribeTable", in, opts, o.API.DescribeTable, nil,
		func(*dynamodb.DescribeTableOutput) ([]types.ConsumedCapacity, int) { return nil, 0 })
}

// one returns cc as a slice: empty when nil.
func one(cc *types.ConsumedCapacity) []types.ConsumedCapacity {
	if cc == nil {
		return nil
	}
	return []types.ConsumedCapacity{*cc}
}
