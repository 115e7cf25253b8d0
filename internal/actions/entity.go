package actions

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/schema"
)

// EntityKey returns the primary key of the entity k's item in the entities table.
func EntityKey(k entity.Key) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		schema.AttrID:           &types.AttributeValueMemberS{Value: k.ID},
		schema.AttrScopeTypeKey: &types.AttributeValueMemberS{Value: schema.ScopeTypeKey(k.Scope, k.Type)},
	}
}

// NotExpired is the condition that the stored entity has not expired at now: what
// a write that does not read the item first checks, so it cannot bring an expired
// entity back. It is the negation of Expired, so that an entity with no expiry
// meets it, and one whose expiry is held as a string (a time a hand edit left),
// which DynamoDB does not compare with a number: readers take that time, and a
// writer that read it decides.
func NotExpired(now time.Time) expression.ConditionBuilder {
	return expression.Not(Expired(now))
}

// Expired is the condition that the stored entity has expired by now.
func Expired(now time.Time) expression.ConditionBuilder {
	return expression.Name(schema.AttrExpires).LessThanEqual(expression.Value(number(now.Unix())))
}

// CreatedInLayout is the condition that the stored _created, if any, is in the
// store's layout (schema.TimeLayout), as far as a condition tells a time DynamoDB
// does not parse: of its width, with its 'T', '.' and 'Z', which no other RFC 3339
// time of that width has together. A write that keeps _created as stored requires
// it, so that a time another program wrote in another layout is read, and written
// anew, first.
func CreatedInLayout() expression.ConditionBuilder {
	created := expression.Name(schema.AttrCreated)
	return expression.AttributeNotExists(created).Or(expression.And(
		created.Size().Equal(expression.Value(number(int64(len(schema.TimeLayout))))),
		expression.Contains(created, "T"), expression.Contains(created, "."), expression.Contains(created, "Z")))
}

// Live is the condition that an entity exists, is not being deleted and has not
// expired at now.
func Live(now time.Time) expression.ConditionBuilder {
	return expression.AttributeExists(expression.Name(schema.AttrID)).
		And(expression.AttributeNotExists(expression.Name(schema.AttrDeleting)), NotExpired(now))
}

// Gone is the condition that no live entity is stored: none, one being deleted,
// or one expired at now.
func Gone(now time.Time) expression.ConditionBuilder {
	return expression.AttributeNotExists(expression.Name(schema.AttrID)).
		Or(expression.AttributeExists(expression.Name(schema.AttrDeleting)), Expired(now))
}

// EntityCheck is the check of cond on the item of the entity k in table.
func EntityCheck(table string, k entity.Key, cond expression.ConditionBuilder) types.TransactWriteItem {
	b := commit.Build(cond, nil)
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName: aws.String(table), Key: EntityKey(k),
		ConditionExpression: b.Condition, ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values,
	}}
}

// CheckEntity adds to t the check that the entity k of table is Live at now, once
// per entity; with also, when not nil, in the same check, which then returns the
// stored item when it fails.
func CheckEntity(t *Transaction, table string, k entity.Key, role Role, now time.Time, also *expression.ConditionBuilder) {
	if t.checked[k] {
		return
	}
	t.MarkChecked(k)
	cond := Live(now)
	key := EntityKey(k)
	check := &types.ConditionCheck{TableName: aws.String(table), Key: key}
	if also != nil {
		cond = cond.And(*also)
		check.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	b := commit.Build(cond, nil)
	check.ConditionExpression, check.ExpressionAttributeNames, check.ExpressionAttributeValues = b.Condition, b.Names, b.Values
	t.Add(types.TransactWriteItem{ConditionCheck: check}, role, schema.ItemSize(key))
}
