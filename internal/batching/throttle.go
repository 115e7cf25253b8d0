package batching

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// throttleCodes are the error codes with which DynamoDB refuses a request for going
// over a table's capacity or the account's request rate: the request did nothing and
// may pass when sent again later.
var throttleCodes = map[string]bool{
	"ProvisionedThroughputExceededException": true,
	"ThrottlingException":                    true,
	"RequestLimitExceeded":                   true,
}

// throttledCancellations are the reasons with which DynamoDB cancels a
// transaction, item by item, for going over capacity or the request rate.
var throttledCancellations = map[string]bool{
	"ThrottlingError":               true,
	"ProvisionedThroughputExceeded": true,
	"RequestLimitExceeded":          true,
}

// RetryableCancellation reports whether a transaction cancelled with reason code
// may pass when sent again: it lost a race with another transaction, or was
// throttled.
func RetryableCancellation(code string) bool {
	return code == "TransactionConflict" || throttledCancellations[code]
}

// IsThrottle reports whether err, however wrapped (in a *smithy.OperationError, say,
// as the SDK returns it once its retryer has given up), is DynamoDB throttling: a
// throttled request, or a transaction cancelled because an item was throttled.
func IsThrottle(err error) bool {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) && throttleCodes[apiErr.ErrorCode()] {
		return true
	}
	if c, ok := Cancelled(err); ok && c.Throttled {
		return true
	}
	// The typed errors are throttling whatever code a response gave them.
	var (
		provisioned *types.ProvisionedThroughputExceededException
		throttling  *types.ThrottlingException
		limit       *types.RequestLimitExceeded
	)
	return errors.As(err, &provisioned) || errors.As(err, &throttling) || errors.As(err, &limit)
}

// retryThrottled returns err as a *RetryLater when it is throttling, so that
// UntilDone retries the request's items with backoff, within the retry budget, as
// if DynamoDB had left them all unprocessed. Other errors are returned as they are.
func retryThrottled(err error) error {
	if IsThrottle(err) {
		return &RetryLater{err}
	}
	return err
}
