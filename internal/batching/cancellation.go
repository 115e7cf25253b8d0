package batching

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Cancellation is a cancelled transaction, read once: why DynamoDB refused each of
// its actions. Every caller that must know switches on it; none reads the
// exception's reasons itself.
type Cancellation struct {
	// Reasons are DynamoDB's, one per action of the transaction.
	Reasons []types.CancellationReason
	// Failed are the actions whose condition failed, in order.
	Failed []int
	// Fatal is the first action refused for a reason a retry does not mend (a
	// validation error, say); -1 for none.
	Fatal int
	// Retryable says an action lost a race with another transaction or was
	// throttled: sent again, the transaction may pass.
	Retryable bool
	// Throttled says an action was throttled.
	Throttled bool
}

// Cancelled reads err, however wrapped, as a cancelled transaction; ok is false for
// any other error.
func Cancelled(err error) (c Cancellation, ok bool) {
	var canceled *types.TransactionCanceledException
	if !errors.As(err, &canceled) {
		return c, false
	}
	c = Cancellation{Reasons: canceled.CancellationReasons, Fatal: -1}
	for i, reason := range canceled.CancellationReasons {
		switch code := aws.ToString(reason.Code); {
		case code == "" || code == "None":
		case code == "ConditionalCheckFailed":
			c.Failed = append(c.Failed, i)
		case RetryableCancellation(code):
			c.Retryable = true
			c.Throttled = c.Throttled || throttledCancellations[code]
		case c.Fatal < 0:
			c.Fatal = i
		}
	}
	return c, true
}

// FailedFirst reports whether an action's condition failed before any action was
// refused for good: the transaction's outcome is then that condition's.
func (c Cancellation) FailedFirst() bool {
	return len(c.Failed) > 0 && (c.Fatal < 0 || c.Failed[0] < c.Fatal)
}
