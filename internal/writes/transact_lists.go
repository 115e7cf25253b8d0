package writes

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/lists"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// txCheck is a condition check on an entity.
func (c *Writer) txCheck(op *txOp) *txPart {
	p := &txPart{op: op}
	p.t.Add(actions.EntityCheck(c.core.Names.Entities, op.Key, op.Cond.Expression(c.core.Now())),
		actions.Role{Kind: actions.RoleEntity}, schema.ItemSize(actions.EntityKey(op.Key)))
	p.refused = func(context.Context, actions.Role, map[string]types.AttributeValue) (bool, error) {
		return false, op.conditionError()
	}
	return p
}

// conditionError is the refusal of a TxCheck.
func (op *txOp) conditionError() error {
	return &entity.ConditionError{Key: op.Key, Condition: op.Cond.String()}
}

// txList plans an Add or Remove of a list. The subject's existence is checked, with
// the condition of joined (the TxCheck of the subject) when not nil, or written by
// another operation of the transaction; or, when the heads of the subject's lists
// stand for it (txOp.headsStand), read with the list and checked only if needed.
func (c *Writer) txList(ctx context.Context, op *txOp, written map[store.Key]TxKind, joined *txOp) (*txPart, error) {
	lop := lists.Op{Kind: [...]lists.Kind{TxAdd: lists.Add, TxRemove: lists.Remove}[op.Kind], Subject: op.Key,
		Predicate: op.Predicate, Objects: op.Objects, CheckObjects: c.core.CheckObjects}
	s, err := c.lists.ReadListReady(ctx, lop, op.headsStand)
	if err != nil {
		return nil, err
	}
	p, err := c.subjectPart(op, written, joined, "list")
	if err != nil {
		return nil, err
	}
	ch := lop.Plan(s)
	// The head stands for the subject only in a transaction that writes it: one
	// changing nothing (a Remove of an object the list does not hold) checks it.
	p.needsSubject = op.headsStand && (!s.SubjectStands || !ch.Expect.Exists || ch.Empty())
	actions.AddChange(&p.t, c.lists.ListTables(), ch, lop.CheckObjects, c.core.Now())
	p.result.Changed = append(ch.Added, ch.Removed...)
	p.refused = subjectRefusal(op, lists.Conflict(lop, errors.New("another writer changed it")))
	return p, nil
}

// txSet plans TxAddRelationships or TxRemoveRelationships on a set: it reads the
// entries of the objects, then writes those that change (a put of each object not
// there, a delete of each object there) and checks those that do not, so that
// what the operation reports changed is exact at the commit: an entry another
// writer added or removed since the read refuses the transaction, which reads
// again. The subject's existence is checked as for a list, and with CheckObjects
// each object added.
func (c *Writer) txSet(ctx context.Context, op *txOp, written map[store.Key]TxKind, joined *txOp) (*txPart, error) {
	objects := store.DistinctKeys(op.Objects)
	lop := lists.Op{Subject: op.Key, Predicate: op.Predicate}
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
		add := op.Kind == TxAdd
		switch {
		case add && !there:
			p.t.Add(c.setPut(lop, k, token), actions.Role{Kind: actions.RoleEntry}, 0)
			p.result.Changed = append(p.result.Changed, k)
		case !add && there:
			p.t.Add(actions.SetEntry(c.core.Names.Relationships, gets[i].Key, true, true), actions.Role{Kind: actions.RoleEntry}, 0)
			p.result.Changed = append(p.result.Changed, k)
		default: // unchanged: it must still be as read
			p.t.Add(actions.SetEntry(c.core.Names.Relationships, gets[i].Key, there, false), actions.Role{Kind: actions.RoleEntry}, 0)
		}
		if add && c.core.CheckObjects {
			c.lists.CheckEntity(&p.t, k, actions.Role{Kind: actions.RoleObject, Object: k})
		}
	}
	p.refused = subjectRefusal(op, &entity.ConflictError{Key: op.Key, Predicate: op.Predicate, Reason: "its set changed meanwhile"})
	return p, nil
}

// setPut is the put of object's entry in op's set, on the condition that it is not
// there.
func (c *Writer) setPut(op lists.Op, object store.Key, token string) types.TransactWriteItem {
	b := commit.Build(expression.AttributeNotExists(expression.Name(schema.AttrSubjectKey)), nil)
	return types.TransactWriteItem{Put: &types.Put{
		TableName: aws.String(c.core.Names.Relationships), Item: c.lists.SetItem(op, object, token),
		ConditionExpression: b.Condition, ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values,
	}}
}

// writtenLive returns the entities other operations of a transaction write and
// leave existing: their writes check them, so a list or set operation's check of
// its subject or objects would only name their item twice.
func writtenLive(written map[store.Key]TxKind) map[store.Key]bool {
	live := map[store.Key]bool{}
	for k, kind := range written {
		switch kind {
		case TxCreate, TxUpdate, TxSet, TxPatch:
			live[k] = true
		}
	}
	return live
}

// subjectPart starts the part of an operation on a list, set or sequence of
// op.key: the subject's existence checked, with the condition of joined (the
// TxCheck of the subject) when not nil, unless another operation of the
// transaction writes it (which checks it) or an earlier operation on the subject's
// lists and sequences checks it; a transaction deleting it is refused. what names
// what the operation writes.
func (c *Writer) subjectPart(op *txOp, written map[store.Key]TxKind, joined *txOp, what string) (*txPart, error) {
	if kind, ok := written[op.Key]; ok && kind == TxDelete {
		return nil, store.Invalid("Transact", op.Key.String(), "deletes the subject of a "+what+" it writes")
	}
	p := &txPart{op: op, joined: joined}
	for k := range writtenLive(written) {
		p.t.MarkChecked(k)
	}
	if op.subjectChecked || op.headsStand {
		p.t.MarkChecked(op.Key)
		p.joined = nil // the check, and so its refusal, is the first operation's, or assemble's
	}
	var also store.Condition
	if joined != nil {
		also = joined.Cond
	}
	c.checkEntityAlso(&p.t, op.Key, actions.Role{Kind: actions.RoleEntity}, also)
	return p, nil
}

// subjectRefusal explains a refused action of an operation on a list or set of
// op.key: the subject, an object, or else the entries it relied on (conflict).
func subjectRefusal(op *txOp, conflict error) func(context.Context, actions.Role, map[string]types.AttributeValue) (bool, error) {
	return func(_ context.Context, role actions.Role, _ map[string]types.AttributeValue) (bool, error) {
		switch role.Kind {
		case actions.RoleEntity:
			return false, store.NotFound(op.Key)
		case actions.RoleObject:
			return false, lists.ObjectMissing(role.Object)
		}
		return true, conflict
	}
}

// txSequence plans a draw from a sequence in a transaction: its item set from the
// number last read to the next, on the condition that it still holds the number
// read, and the owner's existence checked (by its write, when the transaction
// writes it).
func (c *Writer) txSequence(op *txOp, written map[store.Key]TxKind, joined *txOp) (*txPart, error) {
	p, err := c.subjectPart(op, written, joined, "sequence")
	if err != nil {
		return nil, err
	}
	value := expression.Name(schema.AttrValue)
	cond := value.Equal(expression.Value(store.AttrN(op.From)))
	if op.From == 0 {
		cond = expression.AttributeNotExists(value)
	}
	u := expression.Set(value, expression.Value(store.AttrN(op.From+1))).
		Set(expression.Name(schema.AttrSequence), expression.Value(store.AttrS(op.Predicate))).
		Set(expression.Name(schema.AttrSubjectScope), expression.Value(store.AttrS(op.Key.Scope))).
		Set(expression.Name(schema.AttrSubjectType), expression.Value(store.AttrS(op.Key.Type))).
		Set(expression.Name(schema.AttrSubjectID), expression.Value(store.AttrS(op.Key.ID)))
	b := commit.Build(cond, &u)
	key := SequenceKey(op.Key, op.Predicate)
	p.t.Add(types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(c.core.Names.Relationships), Key: key,
		UpdateExpression: b.Update, ConditionExpression: b.Condition,
		ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values,
	}}, actions.Role{Kind: actions.RoleSequence}, schema.ItemSize(key))
	p.refused = func(_ context.Context, role actions.Role, _ map[string]types.AttributeValue) (bool, error) {
		if role.Kind == actions.RoleEntity {
			return false, store.NotFound(op.Key)
		}
		return false, ErrSequenceMoved
	}
	return p, nil
}

// checkEntityAlso is checkEntity with the condition also, when not nil, in the same
// check.
func (c *Writer) checkEntityAlso(t *actions.Transaction, k store.Key, role actions.Role, also store.Condition) {
	if also == nil {
		c.lists.CheckEntity(t, k, role)
		return
	}
	now := c.core.Now()
	cond := also.Expression(now)
	actions.CheckEntity(t, c.core.Names.Entities, k, role, now, &cond)
}

// SequenceKey is the primary key of the item of owner's sequence name.
func SequenceKey(owner store.Key, name string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		schema.AttrSubjectKey:   store.AttrS(owner.String()),
		schema.AttrPredicateKey: store.AttrS(schema.SequenceKey(name)),
	}
}
