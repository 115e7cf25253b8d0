package ryno

import (
	"context"
	"errors"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/schema"
)

// putAction is the transaction action putting the entity item under the condition
// of x; a failed condition returns the stored item.
func (c *Client) putAction(item map[string]types.AttributeValue, x entitystate.Expectation) types.TransactWriteItem {
	b := commit.Build(x.Condition(), nil)
	return types.TransactWriteItem{Put: &types.Put{
		TableName:                           aws.String(c.names.Entities),
		Item:                                item,
		ConditionExpression:                 b.Condition,
		ExpressionAttributeNames:            b.Names,
		ExpressionAttributeValues:           b.Values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}
}

// guard is a condition on an entity item that every chunk of a multi-transaction
// change checks: the writer still owns the entity (its mark is still there).
type guard struct {
	key  Key
	attr string // schema.AttrPending or schema.AttrDeleting
	// absent guards a change for an entity that must stay missing instead.
	absent bool
	token  string
}

func (g guard) action(entities string) types.TransactWriteItem {
	cond := expression.Name(g.attr).Equal(expression.Value(str(g.token)))
	if g.absent {
		cond = expression.AttributeNotExists(expression.Name(schema.AttrID))
	}
	b := commit.Build(cond, nil)
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName:                 aws.String(entities),
		Key:                       g.key.item(),
		ConditionExpression:       b.Condition,
		ExpressionAttributeNames:  b.Names,
		ExpressionAttributeValues: b.Values,
	}}
}

// errGuardFailed stops the chunks of a guarded change: the guard no longer holds.
var errGuardFailed = errors.New("ryno: guard no longer holds")

// transactGuarded applies ops in transactions of up to 99 ops and the guard's check,
// in parallel within batch's bound. It returns errGuardFailed when a chunk found the
// guard gone: the entity changed hands, and its new owner reconciles.
func (c *Client) transactGuarded(ctx context.Context, batch *batching.Engine, g guard, ops []batching.WriteOp) error {
	return c.transactChecked(ctx, batch, []types.TransactWriteItem{g.action(c.names.Entities)}, schema.ItemSize(g.key.item()), ops)
}

// transactChecked applies ops in transactions that each hold checks first (of
// checkBytes in all), in parallel within batch's bound. It returns errGuardFailed
// when a chunk found one of the checks failing.
func (c *Client) transactChecked(ctx context.Context, batch *batching.Engine, checks []types.TransactWriteItem, checkBytes int, ops []batching.WriteOp) error {
	ops = batching.LastWriteWins(ops)
	chunks := batching.Chunk(ops, actions.MaxItems-len(checks), actions.MaxBytes-checkBytes, batching.WriteOp.Size)
	return batching.Parallel(ctx, len(chunks), c.opts.MaxConcurrency, func(ctx context.Context, i int) error {
		release, err := batch.Acquire(ctx)
		if err != nil {
			return err
		}
		defer release()
		actions := append(slices.Clone(checks), actions.Items(chunks[i])...)
		a := c.transact(ctx, actions, commit.NewToken())
		switch {
		case a.Outcome == commit.Committed:
			return nil
		case a.Outcome == commit.ConditionFailed && a.Action < len(checks):
			return errGuardFailed
		}
		return a.Err
	})
}
