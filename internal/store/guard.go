package store

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

// PutAction is the transaction action putting the entity item under the condition
// of x; a failed condition returns the stored item.
func (c *Core) PutAction(item map[string]types.AttributeValue, x entitystate.Expectation) types.TransactWriteItem {
	b := commit.Build(x.Condition(), nil)
	return types.TransactWriteItem{Put: &types.Put{
		TableName:                           aws.String(c.Names.Entities),
		Item:                                item,
		ConditionExpression:                 b.Condition,
		ExpressionAttributeNames:            b.Names,
		ExpressionAttributeValues:           b.Values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}
}

// Guard is a condition on an entity item that every chunk of a multi-transaction
// change checks: the writer still owns the entity (its mark is still there).
type Guard struct {
	Key  Key
	Attr string // schema.AttrPending or schema.AttrDeleting
	// Absent guards a change for an entity that must stay missing instead.
	Absent bool
	Token  string
}

// Action is the check of g on the entities table, which every transaction of a
// guarded change holds first.
func (g Guard) Action(entities string) types.TransactWriteItem {
	cond := expression.Name(g.Attr).Equal(expression.Value(AttrS(g.Token)))
	if g.Absent {
		cond = expression.AttributeNotExists(expression.Name(schema.AttrID))
	}
	return actions.EntityCheck(entities, g.Key, cond)
}

// Holds reports whether g holds on item, the entity item as read (nil for none).
func (g Guard) Holds(item map[string]types.AttributeValue) bool {
	if g.Absent {
		_, exists := item[schema.AttrID]
		return !exists
	}
	v, ok := item[g.Attr].(*types.AttributeValueMemberS)
	return ok && v.Value == g.Token
}

// GuardHolds reads g's entity consistently and reports whether g holds now.
func (c *Core) GuardHolds(ctx context.Context, g Guard) (bool, error) {
	item, err := c.GetItem(ctx, g.Key, true)
	if err != nil {
		return false, err
	}
	return g.Holds(item), nil
}

// ErrGuardFailed stops the chunks of a guarded change: the guard no longer holds.
var ErrGuardFailed = errors.New("ryno: guard no longer holds")

// TransactGuarded applies ops in transactions of up to 99 ops and the guard's check,
// in parallel within batch's bound. It returns ErrGuardFailed when a chunk found the
// guard gone: the entity changed hands, and its new owner reconciles.
func (c *Core) TransactGuarded(ctx context.Context, batch *batching.Engine, g Guard, ops []batching.WriteOp) error {
	return c.TransactChecked(ctx, batch, []types.TransactWriteItem{g.Action(c.Names.Entities)}, schema.ItemSize(actions.EntityKey(g.Key)), ops)
}

// TransactChecked applies ops in transactions that each hold checks first (of
// checkBytes in all), in parallel within batch's bound. It returns ErrGuardFailed
// when a chunk found one of the checks failing.
func (c *Core) TransactChecked(ctx context.Context, batch *batching.Engine, checks []types.TransactWriteItem, checkBytes int, ops []batching.WriteOp) error {
	ops = batching.LastWriteWins(ops)
	chunks := batching.Chunk(ops, actions.MaxItems-len(checks), actions.MaxBytes-checkBytes, batching.WriteOp.Size)
	return batching.Parallel(ctx, len(chunks), c.MaxConcurrency, func(ctx context.Context, i int) error {
		release, err := batch.Acquire(ctx)
		if err != nil {
			return err
		}
		defer release()
		actions := append(slices.Clone(checks), actions.Items(chunks[i])...)
		a := c.Transact(ctx, actions, commit.NewToken())
		switch {
		case a.Outcome == commit.Committed:
			return nil
		case a.Outcome == commit.ConditionFailed && a.Action < len(checks):
			return ErrGuardFailed
		}
		return a.Err
	})
}
