package writes

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// RestoreSequence sets the last number drawn from owner's sequence name to last,
// unless it is there already or beyond (an import): a number is never drawn twice.
// One conditional UpdateItem; a refusal means the sequence is at last or beyond.
func (c *Writer) RestoreSequence(ctx context.Context, owner store.Key, name string, last int64) error {
	value := expression.Name(schema.AttrValue)
	cond := expression.AttributeNotExists(value).Or(value.LessThan(expression.Value(store.AttrN(last))))
	u := expression.Set(value, expression.Value(store.AttrN(last))).
		Set(expression.Name(schema.AttrSequence), expression.Value(store.AttrS(name))).
		Set(expression.Name(schema.AttrSubjectScope), expression.Value(store.AttrS(owner.Scope))).
		Set(expression.Name(schema.AttrSubjectType), expression.Value(store.AttrS(owner.Type))).
		Set(expression.Name(schema.AttrSubjectID), expression.Value(store.AttrS(owner.ID)))
	b := commit.Build(cond, &u)
	_, err := c.core.API.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(c.core.Names.Relationships), Key: SequenceKey(owner, name),
		UpdateExpression: b.Update, ConditionExpression: b.Condition,
		ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values,
	})
	var refused *types.ConditionalCheckFailedException
	if errors.As(err, &refused) {
		return nil
	}
	return errs.Wrap(err, "restore sequence %s of %s", name, owner)
}
