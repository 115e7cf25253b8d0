package dynamotest

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/rynodb/rynodb/ryno"
)

// Hook runs around every request sent through a Wrapped client: op names the
// operation ("GetItem", "Query", ...) and send sends the request, returning its error.
// A hook may count, delay, or fail the request instead of sending it.
type Hook func(ctx context.Context, op string, send func(context.Context) error) error

// Wrapped is a ryno.DynamoDBAPI that passes every request through a Hook.
type Wrapped struct {
	api  ryno.DynamoDBAPI
	hook Hook
}

// Wrap returns api with hook around every request.
func Wrap(api ryno.DynamoDBAPI, hook Hook) *Wrapped { return &Wrapped{api: api, hook: hook} }

type opFunc[In, Out any] func(context.Context, In, ...func(*dynamodb.Options)) (Out, error)

func call[In, Out any](w *Wrapped, op string, f opFunc[In, Out], ctx context.Context, in In, opts []func(*dynamodb.Options)) (Out, error) {
	var out Out
	err := w.hook(ctx, op, func(ctx context.Context) error {
		var err error
		out, err = f(ctx, in, opts...)
		return err
	})
	return out, err
}

func (w *Wrapped) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return call(w, "GetItem", w.api.GetItem, ctx, in, opts)
}

func (w *Wrapped) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return call(w, "PutItem", w.api.PutItem, ctx, in, opts)
}

func (w *Wrapped) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return call(w, "UpdateItem", w.api.UpdateItem, ctx, in, opts)
}

func (w *Wrapped) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return call(w, "DeleteItem", w.api.DeleteItem, ctx, in, opts)
}

func (w *Wrapped) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return call(w, "Query", w.api.Query, ctx, in, opts)
}

func (w *Wrapped) Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return call(w, "Scan", w.api.Scan, ctx, in, opts)
}

func (w *Wrapped) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return call(w, "BatchGetItem", w.api.BatchGetItem, ctx, in, opts)
}

func (w *Wrapped) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return call(w, "BatchWriteItem", w.api.BatchWriteItem, ctx, in, opts)
}

func (w *Wrapped) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return call(w, "TransactWriteItems", w.api.TransactWriteItems, ctx, in, opts)
}

func (w *Wrapped) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return call(w, "DescribeTable", w.api.DescribeTable, ctx, in, opts)
}

var _ ryno.DynamoDBAPI = (*Wrapped)(nil)
