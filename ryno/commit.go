package ryno

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/entitystate"
)

// pacing is how the client sends a conditional write again: within
// Options.Retry, reporting each retry to the call.
func (c *Client) pacing() commit.Pacing {
	return commit.Pacing{Retry: batching.Policy(c.opts.Retry), Sleep: c.batch.Sleep, Retrying: retrying}
}

// settle is commit.Settle with the client's pacing.
func (c *Client) settle(ctx context.Context, send, resolve func(context.Context) commit.Attempt) commit.Attempt {
	return commit.Settle(ctx, c.pacing(), send, resolve)
}

// transact commits a transaction (commit.Transact) with the client's pacing.
func (c *Client) transact(ctx context.Context, actions []types.TransactWriteItem, token string) commit.Attempt {
	return commit.Transact(ctx, c.api, c.pacing(), actions, token)
}

// entityUpdate is the UpdateItem of the entity item k by b. It returns the item as
// it leaves it, and the stored item when its condition fails.
func (c *Client) entityUpdate(k Key, b commit.Built) *dynamodb.UpdateItemInput {
	return &dynamodb.UpdateItemInput{
		TableName:                           aws.String(c.names.Entities),
		Key:                                 k.item(),
		UpdateExpression:                    b.Update,
		ConditionExpression:                 b.Condition,
		ExpressionAttributeNames:            b.Names,
		ExpressionAttributeValues:           b.Values,
		ReturnValues:                        types.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
}

// updateSend returns a send for settle of in, without the SDK's retries: committed
// attempts carry the item as the update left it.
func (c *Client) updateSend(in *dynamodb.UpdateItemInput) func(context.Context) commit.Attempt {
	return commit.UpdateSend(c.api, in)
}

// putItem puts the entity item under the condition of x with settle. An ambiguous
// attempt is resolved by reading the item: the write's token shows it landed, an
// item still meeting x shows it did not (and it is sent again).
func (c *Client) putItem(ctx context.Context, k Key, item map[string]types.AttributeValue, x entitystate.Expectation, token string) commit.Attempt {
	b := commit.Build(x.Condition(), nil)
	in := &dynamodb.PutItemInput{
		TableName:                           aws.String(c.names.Entities),
		Item:                                item,
		ConditionExpression:                 b.Condition,
		ExpressionAttributeNames:            b.Names,
		ExpressionAttributeValues:           b.Values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	send := func(ctx context.Context) commit.Attempt {
		_, err := c.api.PutItem(ctx, in, commit.NoSDKRetry)
		a := commit.Classify(err)
		if a.Outcome == commit.Committed {
			a.Item = item
		}
		return a
	}
	resolve := func(ctx context.Context) commit.Attempt {
		return c.resolve(ctx, k, token, x.Holds, send)
	}
	return c.settle(ctx, send, resolve)
}

// resolve finds out what became of an ambiguous write of k by reading the item: the
// write's token shows it landed; an item of which unapplied holds shows it did not,
// and the write is sent again. Otherwise another writer changed the item since, and
// the outcome is unknown.
func (c *Client) resolve(ctx context.Context, k Key, token string, unapplied func(entitystate.State) bool, send func(context.Context) commit.Attempt) commit.Attempt {
	item, err := c.getItem(ctx, k, true)
	if err != nil {
		return commit.Attempt{Outcome: commit.Ambiguous, Err: err}
	}
	s, err := c.readStored(k, item)
	switch {
	case err != nil:
		return commit.Attempt{Outcome: commit.Failed, Err: err}
	case s.Exists() && s.Token == token:
		return commit.Attempt{Outcome: commit.Committed, Item: item}
	case unapplied(s):
		return send(ctx)
	}
	return commit.Attempt{Outcome: commit.Failed, Err: fmt.Errorf("%w: %s was changed by another writer meanwhile", ErrOutcomeUnknown, k)}
}
