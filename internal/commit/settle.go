package commit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
)

// ErrOutcomeUnknown is returned (wrapped) when a write's request failed in a way
// that leaves open whether it was applied, and nothing could tell.
var ErrOutcomeUnknown = errors.New("ryno: outcome of the write is unknown")

// Pacing is how Settle sends a write again: within Retry, sleeping with Sleep, and
// telling Retrying (when not nil) why and for how long.
type Pacing struct {
	Retry    batching.Policy
	Sleep    func(context.Context, time.Duration) error
	Retrying func(ctx context.Context, why batching.Reason, wait time.Duration, cause error)
}

// Settle sends a write until it commits, fails its condition or fails for good.
// Throttled and conflicting attempts are sent again after a backoff; after an
// ambiguous one, resolve says what happened (it may send the write again when that
// is safe). Both count against the retry policy. A write whose outcome stays
// unknown fails with ErrOutcomeUnknown: so does one whose retries run out after an
// ambiguous attempt, since that attempt may have been applied.
func Settle(ctx context.Context, p Pacing, send, resolve func(context.Context) Attempt) Attempt {
	state := batching.RetryState{Opts: p.Retry}
	a := send(ctx)
	unsure := false
	for a.Outcome == Retryable || a.Outcome == Ambiguous {
		unsure = unsure || a.Outcome == Ambiguous
		wait, again := state.Next(1, 1)
		cause := a.Err
		if again {
			if p.Retrying != nil {
				p.Retrying(ctx, a.reason(), wait, a.Err)
			}
			if err := p.Sleep(ctx, wait); err != nil {
				again, cause = false, fmt.Errorf("%w, after %w", err, a.Err)
			}
		}
		switch {
		case !again && unsure:
			return Attempt{Outcome: Failed, Err: fmt.Errorf("%w: %w", ErrOutcomeUnknown, cause)}
		case !again:
			return Attempt{Outcome: Failed, Err: cause}
		case a.Outcome == Ambiguous:
			a = resolve(ctx)
		default:
			a = send(ctx)
		}
	}
	return a
}

// TransactWriter sends transactions.
type TransactWriter interface {
	TransactWriteItems(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
}

// Transact commits a transaction with Settle. Its client request token makes it
// idempotent: DynamoDB applies a transaction sent again with the same token and
// input at most once within ten minutes, so an ambiguous attempt is resolved by
// sending it again.
func Transact(ctx context.Context, api TransactWriter, p Pacing, actions []types.TransactWriteItem, token string) Attempt {
	in := &dynamodb.TransactWriteItemsInput{TransactItems: actions, ClientRequestToken: aws.String(token)}
	send := func(ctx context.Context) Attempt {
		_, err := api.TransactWriteItems(ctx, in)
		return Classify(err)
	}
	return Settle(ctx, p, send, send)
}

// Updater sends single-item updates.
type Updater interface {
	UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
}

// UpdateSend returns a send for Settle of in, without the SDK's retries: committed
// attempts carry the item as the update left it.
func UpdateSend(api Updater, in *dynamodb.UpdateItemInput) func(context.Context) Attempt {
	return func(ctx context.Context) Attempt {
		out, err := api.UpdateItem(ctx, in, NoSDKRetry)
		a := Classify(err)
		if a.Outcome == Committed {
			a.Item = out.Attributes
		}
		return a
	}
}
