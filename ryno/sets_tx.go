package ryno

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// txSet plans TxAddRelationships or TxRemoveRelationships on a set: it reads the
// entries of the objects, then writes those that change (a put of each object not
// there, a delete of each object there) and checks those that do not, so that
// what the operation reports changed is exact at the commit: an entry another
// writer added or removed since the read refuses the transaction, which reads
// again. The subject's existence is checked as for a list, and with CheckObjects
// each object added.
func (c *Client) txSet(ctx context.Context, op *txOp, written map[Key]opKind, joined *txOp) (*txPart, error) {
	objects := store.DistinctKeys(relKeys(op.objects))
	lop := store.ListOp{Subject: relationships.Key(op.key), Predicate: op.predicate}
	gets := make([]batching.GetOp, len(objects))
	for i, k := range objects {
		gets[i] = batching.NewGetOp(c.core.Names.Relationships, lop.SetEntry(k).PrimaryKey())
	}
	found, err := c.core.Batch.Get(ctx, gets, batching.ReadOptions{Consistent: true})
	if err != nil {
		return nil, err
	}
	p, err := c.subjectPart(op, written, joined, "set")
	if err != nil {
		return nil, err
	}
	token := commit.NewToken()
	for i, k := range objects {
		_, there := found[gets[i].ID]
		add := op.kind == opAdd
		switch {
		case add && !there:
			p.t.Add(c.setPut(lop, k, token), actions.Role{Kind: actions.RoleEntry}, 0)
			p.result.Changed = append(p.result.Changed, Key(k))
		case !add && there:
			p.t.Add(actions.SetEntry(c.core.Names.Relationships, gets[i].Key, true, true), actions.Role{Kind: actions.RoleEntry}, 0)
			p.result.Changed = append(p.result.Changed, Key(k))
		default: // unchanged: it must still be as read
			p.t.Add(actions.SetEntry(c.core.Names.Relationships, gets[i].Key, there, false), actions.Role{Kind: actions.RoleEntry}, 0)
		}
		if add && c.opts.CheckObjects {
			c.core.CheckEntity(&p.t, k, actions.Role{Kind: actions.RoleObject, Object: k})
		}
	}
	p.refused = subjectRefusal(op, &ConflictError{Key: op.key, Predicate: op.predicate, Reason: "its set changed meanwhile"})
	return p, nil
}

// setPut is the put of object's entry in op's set, on the condition that it is not
// there.
func (c *Client) setPut(op store.ListOp, object store.Key, token string) types.TransactWriteItem {
	b := commit.Build(expression.AttributeNotExists(expression.Name(schema.AttrSubjectKey)), nil)
	return types.TransactWriteItem{Put: &types.Put{
		TableName: aws.String(c.core.Names.Relationships), Item: c.core.SetItem(op, object, token),
		ConditionExpression: b.Condition, ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values,
	}}
}

// writtenLive returns the entities other operations of a transaction write and
// leave existing: their writes check them, so a list or set operation's check of
// its subject or objects would only name their item twice.
func writtenLive(written map[Key]opKind) map[Key]bool {
	live := map[Key]bool{}
	for k, kind := range written {
		switch kind {
		case opCreate, opUpdate, opSet, opPatch:
			live[k] = true
		}
	}
	return live
}

// subjectPart starts the part of an operation on a list, set or sequence of
// op.key: the subject's existence checked, with the condition of joined (the
// TxCheck of the subject) when not nil, unless another operation of the
// transaction writes it (which checks it); a transaction deleting it is refused.
// what names what the operation writes.
func (c *Client) subjectPart(op *txOp, written map[Key]opKind, joined *txOp, what string) (*txPart, error) {
	if kind, ok := written[op.key]; ok && kind == opDelete {
		return nil, invalid("Transact", op.key.String(), "deletes the subject of a "+what+" it writes")
	}
	p := &txPart{op: op, joined: joined}
	for k := range writtenLive(written) {
		p.t.MarkChecked(relationships.Key(k))
	}
	var also *Condition
	if joined != nil {
		also = &joined.cond
	}
	c.checkEntityAlso(&p.t, op.key, actions.Role{Kind: actions.RoleEntity}, also)
	return p, nil
}

// subjectRefusal explains a refused action of an operation on a list or set of
// op.key: the subject, an object, or else the entries it relied on (conflict).
func subjectRefusal(op *txOp, conflict error) func(context.Context, actions.Role, map[string]types.AttributeValue) (bool, error) {
	return func(_ context.Context, role actions.Role, _ map[string]types.AttributeValue) (bool, error) {
		switch role.Kind {
		case actions.RoleEntity:
			return false, notFound(op.key)
		case actions.RoleObject:
			return false, &store.ObjectMissingError{Object: role.Object}
		}
		return true, conflict
	}
}
