package migrations

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/rynodb/rynodb/internal/errs"
)

// ReadAPI is the part of API that Check uses: it only reads. A ryno.DynamoDBAPI
// satisfies it.
type ReadAPI interface {
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
}

// Check returns the Status of the store opts.TablePrefix names, as Provider.Status
// does, with a client that can only read. It sends one DescribeTable per table in
// parallel, then one GetItem of the recorded version (4 requests in 2 rounds): cheap
// enough for a health check or a cold start. It checks neither opts.PointInTimeRecovery nor the entities
// table's time to live, which a ReadAPI cannot read: a store lacking them works, and
// reads hide expired entities without time to live.
func Check(ctx context.Context, api ReadAPI, opts Options) (*Status, error) {
	if api == nil {
		return nil, errs.New("nil API")
	}
	opts.PointInTimeRecovery = false
	p, err := NewProvider(readOnly{api}, opts)
	if err != nil {
		return nil, err
	}
	p.timeToLive = false
	return p.Status(ctx)
}

// readOnly makes a ReadAPI an API whose other requests fail: Status, for a Provider
// that reads neither point-in-time recovery nor time to live, never sends them.
type readOnly struct{ ReadAPI }

var errReadOnly = errs.New("the client given to Check only reads")

func (readOnly) CreateTable(context.Context, *dynamodb.CreateTableInput, ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	return nil, errReadOnly
}

func (readOnly) UpdateTable(context.Context, *dynamodb.UpdateTableInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error) {
	return nil, errReadOnly
}

func (readOnly) DeleteTable(context.Context, *dynamodb.DeleteTableInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error) {
	return nil, errReadOnly
}

func (readOnly) DescribeContinuousBackups(context.Context, *dynamodb.DescribeContinuousBackupsInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeContinuousBackupsOutput, error) {
	return nil, errReadOnly
}

func (readOnly) UpdateContinuousBackups(context.Context, *dynamodb.UpdateContinuousBackupsInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateContinuousBackupsOutput, error) {
	return nil, errReadOnly
}

func (readOnly) DescribeTimeToLive(context.Context, *dynamodb.DescribeTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	return nil, errReadOnly
}

func (readOnly) UpdateTimeToLive(context.Context, *dynamodb.UpdateTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	return nil, errReadOnly
}

func (readOnly) PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return nil, errReadOnly
}

func (readOnly) Scan(context.Context, *dynamodb.ScanInput, ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return nil, errReadOnly
}

func (readOnly) BatchWriteItem(context.Context, *dynamodb.BatchWriteItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return nil, errReadOnly
}

func (readOnly) UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return nil, errReadOnly
}
