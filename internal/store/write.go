package store

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/entitystate"
)

// EntityUpdate is the UpdateItem of the entity item k by b. It returns the item as
// it leaves it, and the stored item when its condition fails.
func (c *Core) EntityUpdate(k Key, b commit.Built) *dynamodb.UpdateItemInput {
	return &dynamodb.UpdateItemInput{
		TableName:                           aws.String(c.Names.Entities),
		Key:                                 actions.EntityKey(k),
		UpdateExpression:                    b.Update,
		ConditionExpression:                 b.Condition,
		ExpressionAttributeNames:            b.Names,
		ExpressionAttributeValues:           b.Values,
		ReturnValues:                        types.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
}

// UpdateSend returns a send for settle of in, without the SDK's retries: committed
// attempts carry the item as the update left it.
func (c *Core) UpdateSend(in *dynamodb.UpdateItemInput) func(context.Context) commit.Attempt {
	return commit.UpdateSend(c.API, in)
}

// PutItem puts the entity item under the condition of x with settle. An ambiguous
// attempt is resolved by reading the item: the write's token shows it landed, an
// item still meeting x shows it did not (and it is sent again).
func (c *Core) PutItem(ctx context.Context, k Key, item map[string]types.AttributeValue, x entitystate.Expectation, token string) commit.Attempt {
	put := c.PutAction(item, x).Put // one source for the put alone and in a transaction
	in := &dynamodb.PutItemInput{
		TableName:                           put.TableName,
		Item:                                put.Item,
		ConditionExpression:                 put.ConditionExpression,
		ExpressionAttributeNames:            put.ExpressionAttributeNames,
		ExpressionAttributeValues:           put.ExpressionAttributeValues,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	send := func(ctx context.Context) commit.Attempt {
		_, err := c.API.PutItem(ctx, in, commit.NoSDKRetry)
		a := commit.Classify(err)
		if a.Outcome == commit.Committed {
			a.Item = item
		}
		return a
	}
	resolve := func(ctx context.Context) commit.Attempt {
		return c.Resolve(ctx, k, token, x.Holds, send)
	}
	return c.Settle(ctx, send, resolve)
}

// Resolve finds out what became of an ambiguous write of k by reading the item: the
// write's token shows it landed; an item of which unapplied holds shows it did not,
// and the write is sent again. Otherwise another writer changed the item since, and
// the outcome is unknown.
func (c *Core) Resolve(ctx context.Context, k Key, token string, unapplied func(entitystate.State) bool, send func(context.Context) commit.Attempt) commit.Attempt {
	item, err := c.GetItem(ctx, k, true)
	if err != nil {
		return commit.Attempt{Outcome: commit.Ambiguous, Err: err}
	}
	s, err := c.ReadStored(k, item)
	switch {
	case err != nil:
		return commit.Attempt{Outcome: commit.Failed, Err: err}
	case s.Exists() && s.Token == token:
		return commit.Attempt{Outcome: commit.Committed, Item: item}
	case unapplied(s):
		return send(ctx)
	}
	return commit.Attempt{Outcome: commit.Failed, Err: fmt.Errorf("%w: %s was changed by another writer meanwhile", commit.ErrOutcomeUnknown, k)}
}

// Condition is a condition a write requires of the stored entity, as the caller
// wrote it: ryno.Condition is one. A nil Condition requires nothing.
type Condition interface {
	// Expression is the condition as a write sent at now checks it.
	Expression(now time.Time) expression.ConditionBuilder
	// String describes the condition, for the error that refuses a write.
	String() string
}
