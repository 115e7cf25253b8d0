package batching

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// API is the part of the DynamoDB client the engine sends its requests to.
// ryno.DynamoDBAPI satisfies it.
type API interface {
	BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
	BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
}

// Reason says why a request or a write is sent again.
type Reason string

// The reasons for sending again.
const (
	ReasonThrottled   Reason = "throttled"   // DynamoDB refused it for capacity
	ReasonUnprocessed Reason = "unprocessed" // a batch left items unprocessed
	ReasonConflict    Reason = "conflict"    // another writer won a race
	ReasonUnknown     Reason = "unknown"     // the response was lost
)
