package commit

import (
	"errors"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/rynodb/rynodb/internal/batching"
)

// Outcome is how one attempt at a conditional write ended.
type Outcome int

const (
	Committed       Outcome = iota // applied
	ConditionFailed                // refused by a condition; nothing applied
	Retryable                      // not applied, and may pass when sent again: throttled, conflicting
	Ambiguous                      // maybe applied: the response was lost or the server failed
	Failed                         // not applied, and would fail again
)

// Attempt is the result of one attempt at a conditional write.
type Attempt struct {
	Outcome Outcome
	// Item is the item as the write left it (UpdateItem's ALL_NEW) when committed,
	// or as it is stored when the entity's condition failed (nil: no item).
	Item map[string]types.AttributeValue
	// Action is the index of the transaction action whose condition failed.
	Action int
	// Reasons are a cancelled transaction's reasons, one per action.
	Reasons []types.CancellationReason
	Err     error
}

// NoSDKRetry turns the SDK's retries off for one request. A conditional write that
// the SDK sends again after a lost response fails its own condition, or (for an
// update that adds) applies twice; the store retries such writes itself, knowing
// which attempt may have landed.
func NoSDKRetry(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }

// Classify sorts the error of a conditional write.
func Classify(err error) Attempt {
	var (
		ccf      *types.ConditionalCheckFailedException
		inFlight *types.TransactionInProgressException
	)
	canceled, isCanceled := batching.Cancelled(err)
	switch {
	case err == nil:
		return Attempt{Outcome: Committed}
	case errors.As(err, &ccf):
		return Attempt{Outcome: ConditionFailed, Item: ccf.Item, Err: err}
	case isCanceled:
		return cancellation(canceled, err)
	case batching.IsThrottle(err), errors.As(err, &inFlight):
		return Attempt{Outcome: Retryable, Err: err}
	case rejected(err):
		return Attempt{Outcome: Failed, Err: err}
	}
	return Attempt{Outcome: Ambiguous, Err: err}
}

// rejected reports whether DynamoDB answered err with a client error, or the SDK
// refused the request before sending it: the request changed nothing. Server
// errors, lost responses and cancelled requests may have been applied.
func rejected(err error) bool {
	var api smithy.APIError
	if errors.As(err, &api) && api.ErrorFault() == smithy.FaultClient {
		return true
	}
	var invalid *smithy.InvalidParamsError
	if errors.As(err, &invalid) {
		return true
	}
	var resp *awshttp.ResponseError
	return errors.As(err, &resp) && resp.HTTPStatusCode() >= 400 && resp.HTTPStatusCode() < 500
}

// cancellation sorts a cancelled transaction by its reasons: a failed condition
// wins over a conflict, which may pass on a retry; an action refused for good before
// any condition failed fails it.
func cancellation(c batching.Cancellation, err error) Attempt {
	switch {
	case c.FailedFirst():
		i := c.Failed[0]
		return Attempt{Outcome: ConditionFailed, Item: c.Reasons[i].Item, Action: i, Reasons: c.Reasons, Err: err}
	case c.Fatal < 0 && c.Retryable:
		return Attempt{Outcome: Retryable, Err: err}
	}
	return Attempt{Outcome: Failed, Err: err}
}

// reason says why an attempt that did not settle is sent again.
func (a Attempt) reason() batching.Reason {
	switch {
	case a.Outcome == Ambiguous:
		return batching.ReasonUnknown
	case batching.IsThrottle(a.Err):
		return batching.ReasonThrottled
	}
	return batching.ReasonConflict
}
