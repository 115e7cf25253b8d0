package batching

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/require"
)

// sdkError wraps err as the SDK returns a request's error once its retryer has
// given up on it.
func sdkError(op string, err error) error {
	return &smithy.OperationError{ServiceID: "DynamoDB", OperationName: op, Err: &retry.MaxAttemptsError{Attempt: 3, Err: err}}
}

func TestIsThrottle(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"plain error", errors.New("ProvisionedThroughputExceededException"), false},
		{"context error", context.DeadlineExceeded, false},
		{"provisioned throughput exceeded", &types.ProvisionedThroughputExceededException{}, true},
		{"throttling exception", &types.ThrottlingException{}, true},
		{"request limit exceeded", &types.RequestLimitExceeded{}, true},
		{"typed error whatever its code", &types.ThrottlingException{ErrorCodeOverride: aws.String("Throttled")}, true},
		{"generic API error with a throttling code", &smithy.GenericAPIError{Code: "ThrottlingException", Fault: smithy.FaultClient}, true},
		{"generic API error with another code", &smithy.GenericAPIError{Code: "ValidationException", Fault: smithy.FaultClient}, false},
		{"other typed API error", &types.ConditionalCheckFailedException{}, false},
		{"wrapped by the SDK", sdkError("BatchGetItem", &types.ProvisionedThroughputExceededException{}), true},
		{"wrapped with a dry retry quota", sdkError("BatchWriteItem", errors.Join(&types.RequestLimitExceeded{}, errors.New("retry quota exceeded"))), true},
		{"wrapped twice", fmt.Errorf("read: %w", sdkError("Query", &types.ThrottlingException{})), true},
		{"other API error wrapped by the SDK", sdkError("BatchWriteItem", &types.ResourceNotFoundException{}), false},
		{"transaction cancelled for an item throttled", sdkError("TransactWriteItems", &types.TransactionCanceledException{
			CancellationReasons: []types.CancellationReason{{Code: aws.String("None")}, {Code: aws.String("ThrottlingError")}}}), true},
		{"transaction cancelled for a conflict", sdkError("TransactWriteItems", &types.TransactionCanceledException{
			CancellationReasons: []types.CancellationReason{{Code: aws.String("TransactionConflict")}}}), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, IsThrottle(tt.err))
		})
	}
}

func TestRetryThrottledMarksOnlyThrottlingForRetry(t *testing.T) {
	throttle := sdkError("BatchGetItem", &types.ProvisionedThroughputExceededException{})
	var later *RetryLater
	require.ErrorAs(t, retryThrottled(throttle), &later)
	require.Same(t, throttle, later.Err)

	require.Same(t, errInjected, retryThrottled(errInjected))
}
