package actions

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/schema"
)

// OwnedByOrFree is the condition that a claim's item is absent or owned by the
// entity typ/id.
func OwnedByOrFree(typ, id string) expression.ConditionBuilder {
	return expression.AttributeNotExists(expression.Name(schema.AttrSubjectKey)).Or(
		expression.Name(schema.AttrType).Equal(expression.Value(&types.AttributeValueMemberS{Value: typ})).
			And(expression.Name(schema.AttrID).Equal(expression.Value(&types.AttributeValueMemberS{Value: id}))))
}

// Claim puts cl in table, unless another entity owns it; a refusal returns the
// claim. The claim records its holder's expiry (Unix seconds; 0 for none), for
// readers of the value.
func Claim(table string, cl indexentries.Claim, expires int64) types.TransactWriteItem {
	b := commit.Build(OwnedByOrFree(cl.Type, cl.ID), nil)
	item := cl.Item()
	if expires > 0 {
		item[schema.AttrExpires] = number(expires)
	}
	return types.TransactWriteItem{Put: &types.Put{
		TableName: aws.String(table), Item: item,
		ConditionExpression: b.Condition, ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}
}

// Release deletes cl from table, unless another entity owns it by now.
func Release(table string, cl indexentries.Claim) types.TransactWriteItem {
	b := commit.Build(OwnedByOrFree(cl.Type, cl.ID), nil)
	return types.TransactWriteItem{Delete: &types.Delete{
		TableName: aws.String(table), Key: cl.PrimaryKey(),
		ConditionExpression: b.Condition, ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values,
	}}
}

// AddClaims adds to t the claims and releases, in table, of a write of an entity
// expiring at expires (Unix seconds; 0 for never).
func AddClaims(t *Transaction, table string, claims, releases []indexentries.Claim, expires int64) {
	for _, cl := range claims {
		act := Claim(table, cl, expires)
		t.Add(act, Role{Kind: RoleClaim, Claim: cl}, schema.ItemSize(act.Put.Item))
	}
	for _, cl := range releases {
		t.Add(Release(table, cl), Role{Kind: RoleClaim, Claim: cl, Release: true}, schema.ItemSize(cl.PrimaryKey()))
	}
}

// SetEntry deletes (when del) or checks the set entry with key in table, on the
// condition that it is there (there) or not.
func SetEntry(table string, key map[string]types.AttributeValue, there, del bool) types.TransactWriteItem {
	cond := expression.AttributeNotExists(expression.Name(schema.AttrSubjectKey))
	if there {
		cond = expression.AttributeExists(expression.Name(schema.AttrSubjectKey))
	}
	b := commit.Build(cond, nil)
	if del {
		return types.TransactWriteItem{Delete: &types.Delete{
			TableName: aws.String(table), Key: key,
			ConditionExpression: b.Condition, ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values,
		}}
	}
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName: aws.String(table), Key: key,
		ConditionExpression: b.Condition, ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values,
	}}
}
