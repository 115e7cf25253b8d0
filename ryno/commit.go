package ryno

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/rynodb/rynodb/internal/batching"
)

// outcome is how one attempt at a conditional write ended.
type outcome int

const (
	committed       outcome = iota // applied
	conditionFailed                // refused by a condition; nothing applied
	retryable                      // not applied, and may pass when sent again: throttled, conflicting
	ambiguous                      // maybe applied: the response was lost or the server failed
	failed                         // not applied, and would fail again
)

// attempt is the result of one attempt at a conditional write.
type attempt struct {
	outcome outcome
	// item is the item as the write left it (UpdateItem's ALL_NEW) when committed,
	// or as it is stored when the entity's condition failed (nil: no item).
	item map[string]types.AttributeValue
	// action is the index of the transaction action whose condition failed.
	action int
	// reasons are a cancelled transaction's reasons, one per action.
	reasons []types.CancellationReason
	err     error
}

// noSDKRetry turns the SDK's retries off for one request. A conditional write that
// the SDK sends again after a lost response fails its own condition, or (for an
// update that adds) applies twice; the store retries such writes itself, knowing
// which attempt may have landed.
func noSDKRetry(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }

// classify sorts the error of a conditional write.
func classify(err error) attempt {
	var (
		ccf      *types.ConditionalCheckFailedException
		canceled *types.TransactionCanceledException
		inFlight *types.TransactionInProgressException
	)
	switch {
	case err == nil:
		return attempt{outcome: committed}
	case errors.As(err, &ccf):
		return attempt{outcome: conditionFailed, item: ccf.Item, err: err}
	case errors.As(err, &canceled):
		return cancellation(canceled, err)
	case batching.IsThrottle(err), errors.As(err, &inFlight):
		return attempt{outcome: retryable, err: err}
	case rejected(err):
		return attempt{outcome: failed, err: err}
	}
	return attempt{outcome: ambiguous, err: err}
}

// rejected reports whether DynamoDB answered err with a client error: the request
// was refused as a whole and changed nothing. Server errors, lost responses and
// cancelled requests may have been applied.
func rejected(err error) bool {
	var api smithy.APIError
	if errors.As(err, &api) && api.ErrorFault() == smithy.FaultClient {
		return true
	}
	var resp *awshttp.ResponseError
	return errors.As(err, &resp) && resp.HTTPStatusCode() >= 400 && resp.HTTPStatusCode() < 500
}

// cancellation sorts a cancelled transaction by its reasons: a failed condition
// wins over a conflict, which may pass on a retry.
func cancellation(canceled *types.TransactionCanceledException, err error) attempt {
	result := attempt{outcome: failed, err: err}
	for i, reason := range canceled.CancellationReasons {
		switch code := aws.ToString(reason.Code); {
		case code == "" || code == "None":
		case code == "ConditionalCheckFailed":
			return attempt{outcome: conditionFailed, item: reason.Item, action: i, reasons: canceled.CancellationReasons, err: err}
		case batching.RetryableCancellation(code):
			result.outcome = retryable
		default:
			return attempt{outcome: failed, err: err}
		}
	}
	return result
}

// reason says why an attempt that did not settle is sent again.
func (a attempt) reason() retryReason {
	switch {
	case a.outcome == ambiguous:
		return reasonUnknown
	case batching.IsThrottle(a.err):
		return reasonThrottled
	}
	return reasonConflict
}

// settle sends a write until it commits, fails its condition or fails for good.
// Throttled and conflicting attempts are sent again after a backoff; after an
// ambiguous one, resolve says what happened (it may send the write again when that
// is safe). Both count against Options.Retry. A write whose outcome stays unknown
// fails with ErrOutcomeUnknown.
func (c *Client) settle(ctx context.Context, send, resolve func(context.Context) attempt) attempt {
	state := batching.RetryState{Opts: batching.Policy(c.opts.Retry)}
	a := send(ctx)
	for a.outcome == retryable || a.outcome == ambiguous {
		wait, again := state.Next(1, 1)
		cause := a.err
		if again {
			retrying(ctx, a.reason(), wait, a.err)
			if err := c.batch.Sleep(ctx, wait); err != nil {
				again, cause = false, fmt.Errorf("%w, after %w", err, a.err)
			}
		}
		switch {
		case !again && a.outcome == ambiguous:
			return attempt{outcome: failed, err: fmt.Errorf("%w: %w", ErrOutcomeUnknown, cause)}
		case !again:
			return attempt{outcome: failed, err: cause}
		case a.outcome == ambiguous:
			a = resolve(ctx)
		default:
			a = send(ctx)
		}
	}
	return a
}

// transactSend returns a send for settle of one transaction. Its client request
// token makes it idempotent: DynamoDB applies a transaction sent again with the same
// token and input at most once within ten minutes, so an ambiguous attempt is
// resolved by sending it again.
func (c *Client) transactSend(actions []types.TransactWriteItem, token string) func(context.Context) attempt {
	in := &dynamodb.TransactWriteItemsInput{TransactItems: actions, ClientRequestToken: aws.String(token)}
	return func(ctx context.Context) attempt {
		_, err := c.api.TransactWriteItems(ctx, in)
		return classify(err)
	}
}

// transact commits a transaction with settle.
func (c *Client) transact(ctx context.Context, actions []types.TransactWriteItem, token string) attempt {
	send := c.transactSend(actions, token)
	return c.settle(ctx, send, send)
}

// entityUpdate is the UpdateItem of the entity item k by b. It returns the item as
// it leaves it, and the stored item when its condition fails.
func (c *Client) entityUpdate(k Key, b built) *dynamodb.UpdateItemInput {
	return &dynamodb.UpdateItemInput{
		TableName:                           aws.String(c.names.Entities),
		Key:                                 k.item(),
		UpdateExpression:                    b.update,
		ConditionExpression:                 b.condition,
		ExpressionAttributeNames:            b.names,
		ExpressionAttributeValues:           b.values,
		ReturnValues:                        types.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
}

// updateSend returns a send for settle of in, without the SDK's retries: committed
// attempts carry the item as the update left it.
func (c *Client) updateSend(in *dynamodb.UpdateItemInput) func(context.Context) attempt {
	return func(ctx context.Context) attempt {
		out, err := c.api.UpdateItem(ctx, in, noSDKRetry)
		a := classify(err)
		if a.outcome == committed {
			a.item = out.Attributes
		}
		return a
	}
}

// putItem puts the entity item under the condition of x with settle. An ambiguous
// attempt is resolved by reading the item: the write's token shows it landed, an
// item still meeting x shows it did not (and it is sent again).
func (c *Client) putItem(ctx context.Context, k Key, item map[string]types.AttributeValue, x expectation, token string) attempt {
	b := build(x.condition(), nil)
	in := &dynamodb.PutItemInput{
		TableName:                           aws.String(c.names.Entities),
		Item:                                item,
		ConditionExpression:                 b.condition,
		ExpressionAttributeNames:            b.names,
		ExpressionAttributeValues:           b.values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	send := func(ctx context.Context) attempt {
		_, err := c.api.PutItem(ctx, in, noSDKRetry)
		a := classify(err)
		if a.outcome == committed {
			a.item = item
		}
		return a
	}
	resolve := func(ctx context.Context) attempt {
		return c.resolve(ctx, k, token, x.holds, send)
	}
	return c.settle(ctx, send, resolve)
}

// resolve finds out what became of an ambiguous write of k by reading the item: the
// write's token shows it landed; an item of which unapplied holds shows it did not,
// and the write is sent again. Otherwise another writer changed the item since, and
// the outcome is unknown.
func (c *Client) resolve(ctx context.Context, k Key, token string, unapplied func(stored) bool, send func(context.Context) attempt) attempt {
	item, err := c.getItem(ctx, k, true)
	if err != nil {
		return attempt{outcome: ambiguous, err: err}
	}
	s, err := c.readStored(k, item)
	switch {
	case err != nil:
		return attempt{outcome: failed, err: err}
	case s.exists() && s.token == token:
		return attempt{outcome: committed, item: item}
	case unapplied(s):
		return send(ctx)
	}
	return attempt{outcome: failed, err: fmt.Errorf("%w: %s was changed by another writer meanwhile", ErrOutcomeUnknown, k)}
}
