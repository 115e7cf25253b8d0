package batching

import (
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

func TestCancelledReadsEachActionsReason(t *testing.T) {
	reasons := func(codes ...string) []types.CancellationReason {
		out := make([]types.CancellationReason, len(codes))
		for i, c := range codes {
			out[i] = types.CancellationReason{Code: aws.String(c)}
		}
		return out
	}
	tests := []struct {
		name        string
		codes       []string
		failed      []int
		fatal       int
		retryable   bool
		throttled   bool
		failedFirst bool
	}{
		{"nothing refused", []string{"None", "None"}, nil, -1, false, false, false},
		{"a condition", []string{"None", "ConditionalCheckFailed", "None"}, []int{1}, -1, false, false, true},
		{"two conditions", []string{"ConditionalCheckFailed", "None", "ConditionalCheckFailed"}, []int{0, 2}, -1, false, false, true},
		{"a conflict", []string{"TransactionConflict", "None"}, nil, -1, true, false, false},
		{"throttled", []string{"None", "ThrottlingError"}, nil, -1, true, true, false},
		{"a condition beside a conflict", []string{"TransactionConflict", "ConditionalCheckFailed"}, []int{1}, -1, true, false, true},
		{"a validation error first", []string{"ValidationError", "ConditionalCheckFailed"}, []int{1}, 0, false, false, false},
		{"a condition before a validation error", []string{"ConditionalCheckFailed", "ValidationError"}, []int{0}, 1, false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := fmt.Errorf("sending: %w", &types.TransactionCanceledException{CancellationReasons: reasons(tt.codes...)})
			c, ok := Cancelled(err)
			require.True(t, ok)
			require.Equal(t, tt.failed, c.Failed)
			require.Equal(t, tt.fatal, c.Fatal)
			require.Equal(t, tt.retryable, c.Retryable)
			require.Equal(t, tt.throttled, c.Throttled)
			require.Equal(t, tt.failedFirst, c.FailedFirst())
			require.Equal(t, tt.throttled, IsThrottle(err))
		})
	}
	_, ok := Cancelled(errors.New("not a transaction"))
	require.False(t, ok)
}
