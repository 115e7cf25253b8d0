// A transaction assembled from the parts its operations planned: one action an
// item, the subjects' checks shared, a claim handed over within the transaction.

package store

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/schema"
)

// assemble joins the parts into one transaction and checks DynamoDB's limits. owners
// says which part each action belongs to. An operation claiming a value of a unique
// index that an earlier one claims is refused, as a second writer would be.
func (t *Tx) assemble(parts []*txPart) (*actions.Transaction, []int, error) {
	all := &actions.Transaction{}
	var owners []int
	var refused []entity.OpError
	seen := map[string]int{} // item -> action
	for i, p := range parts {
		for j, act := range p.t.Actions {
			id := actionItem(act)
			role := p.t.Roles[j]
			k, dup := seen[id]
			switch {
			case !dup:
				seen[id] = len(all.Actions)
				all.Add(act, role, 0)
				owners = append(owners, i)
				continue
			case claiming(all.Roles[k]) && claiming(role):
				if len(refused) == 0 || refused[len(refused)-1].Index != p.op.index {
					refused = append(refused, p.op.refusal(UniqueTaken(role.Claim, all.Roles[k].Claim.Item())))
				}
				continue
			}
			merged, ok := handOver(all.Roles[k], role, all.Actions[k], act)
			if !ok {
				return nil, nil, &TransactionLimitError{Limit: "item", Detail: fmt.Sprintf("operation %d writes an item another operation writes", p.op.index)}
			}
			all.Actions[k], all.Roles[k], owners[k] = merged, role, i
		}
		all.Bytes += p.t.Bytes
	}
	for i, p := range parts {
		if p.needsSubject {
			t.checkSubject(all, &owners, seen, i, p.op.Key)
		}
	}
	switch {
	case len(refused) > 0:
		return nil, nil, &entity.TransactionError{Ops: refused}
	case len(all.Actions) > actions.MaxItems:
		return nil, nil, &TransactionLimitError{Limit: "actions", Detail: fmt.Sprintf("the operations take %d actions (entities, index entries, claims, list entries, markers and heads); at most %d", len(all.Actions), actions.MaxItems)}
	case all.Bytes > actions.MaxBytes:
		return nil, nil, &TransactionLimitError{Limit: "bytes", Detail: fmt.Sprintf("the operations write %d bytes; at most %d", all.Bytes, actions.MaxBytes)}
	}
	return all, owners, nil
}

// checkSubject adds to all the check of the subject k of part i, whose heads stand
// for it, unless an action on its item is there already: the check of another part
// of k, or the check of k as an object, which requires as much.
func (t *Tx) checkSubject(all *actions.Transaction, owners *[]int, seen map[string]int, i int, k Key) {
	id := batching.ItemID(t.c.Names.Entities, actions.EntityKey(k))
	if _, dup := seen[id]; dup {
		return
	}
	seen[id] = len(all.Actions)
	t.c.CheckEntity(all, k, actions.Role{Kind: actions.RoleEntity})
	*owners = append(*owners, i)
}

// claiming reports whether the action of role claims a value of a unique index.
func claiming(role actions.Role) bool { return role.Kind == actions.RoleClaim && !role.Release }

// handOver merges the release of a unique value by one operation (one of the
// roles a and b, whose actions are actA and actB) and its claim by another into one
// action: the claim as built, on the condition that the value is free or held by
// either entity.
func handOver(a, b actions.Role, actA, actB types.TransactWriteItem) (types.TransactWriteItem, bool) {
	if a.Kind != actions.RoleClaim || b.Kind != actions.RoleClaim || a.Release == b.Release {
		return types.TransactWriteItem{}, false
	}
	release, claim, put := a.Claim, b.Claim, actB.Put
	if b.Release {
		release, claim, put = b.Claim, a.Claim, actA.Put
	}
	cond := actions.OwnedByOrFree(claim.Type, claim.ID).Or(
		expression.Name(schema.AttrType).Equal(expression.Value(attrS(release.Type))).
			And(expression.Name(schema.AttrID).Equal(expression.Value(attrS(release.ID)))))
	bc := commit.Build(cond, nil)
	merged := *put
	merged.ConditionExpression, merged.ExpressionAttributeNames, merged.ExpressionAttributeValues = bc.Condition, bc.Names, bc.Values
	return types.TransactWriteItem{Put: &merged}, true
}

// actionItem identifies the item an action writes or checks.
func actionItem(act types.TransactWriteItem) string {
	switch {
	case act.Put != nil:
		return batching.ItemID(aws.ToString(act.Put.TableName), keyOf(aws.ToString(act.Put.TableName), act.Put.Item))
	case act.Update != nil:
		return batching.ItemID(aws.ToString(act.Update.TableName), act.Update.Key)
	case act.Delete != nil:
		return batching.ItemID(aws.ToString(act.Delete.TableName), act.Delete.Key)
	}
	return batching.ItemID(aws.ToString(act.ConditionCheck.TableName), act.ConditionCheck.Key)
}

// keyOf returns the key of an item of one of the store's tables.
func keyOf(table string, item map[string]types.AttributeValue) map[string]types.AttributeValue {
	for _, names := range [][]string{
		{schema.AttrID, schema.AttrScopeTypeKey},
		schema.RelationshipKeyAttrs(),
		schema.IndexEntryKeyAttrs(),
	} {
		if _, ok := item[names[1]]; ok {
			return batching.Project(item, names)
		}
	}
	return item
}
