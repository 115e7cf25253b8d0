package ryno

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// ErrHasRelationships is returned (wrapped) by a transaction deleting an entity that
// holds relationship entries, or that entries point at: deleting them could take
// more than one transaction. Delete such an entity with Delete.
var ErrHasRelationships = errors.New("ryno: the entity has relationship entries; delete it with Delete, outside a transaction")

// errRetryTx asks Transact to read and plan again, after a backoff: an entity is in
// the middle of a large write.
var errRetryTx = errors.New("ryno: an entity of the transaction is being written")

// txWrite plans a Create, Update or Set in a transaction: it reads the entity item
// (unless the entity carries what the write needs), its index entries and its lists
// in one round, as Set does, without its optimistic create.
func (c *Client) txWrite(ctx context.Context, op *txOp, w *write) (*txPart, error) {
	w.together = true
	x, getItem := w.first()
	if w.mode == modeSet && x.Absent {
		x, getItem = entitystate.Expectation{}, true // one transaction: learn what is stored first
	}
	snap, done, err := w.read(ctx, x, getItem)
	switch {
	case err != nil:
		return nil, err
	case done != nil:
		return nil, fmt.Errorf("%w: an earlier attempt of this transaction wrote it", errRetryTx)
	case snap.x.Pending:
		return nil, errRetryTx
	}
	p, err := w.plan(snap.x, snap.entries, snap.lists)
	if err != nil {
		return nil, err
	}
	part := &txPart{op: op, t: *w.transaction(p)}
	part.result.Entity, err = w.storedEntity(p.item)
	part.refused = w.refused(snap.x, op)
	return part, err
}

// refused explains a refused action of the write of x.
func (w *write) refused(x entitystate.Expectation, op *txOp) func(context.Context, actions.Role, map[string]types.AttributeValue) (bool, error) {
	return func(ctx context.Context, role actions.Role, item map[string]types.AttributeValue) (bool, error) {
		switch role.Kind {
		case actions.RoleEntity:
			if err := w.conditionFailed(x, item); err != nil {
				return false, err
			}
			s, err := w.c.core.ReadStored(relationships.Key(w.e.Key), item)
			if err != nil {
				return false, err
			}
			if s.Ending() {
				return true, &ConflictError{Key: w.e.Key, Reason: "being deleted"}
			}
			if _, err := w.decide(s); err != nil {
				return false, err
			}
			return true, &ConflictError{Key: w.e.Key, Expected: x.Version, Stored: s.Version, Reason: "written meanwhile"}
		case actions.RoleClaim:
			if role.Release {
				return true, &ConflictError{Key: w.e.Key, Reason: "a value it held was claimed meanwhile"}
			}
			switch freed, err := w.c.core.FreeHeld(ctx, role.Claim, item); {
			case err != nil:
				return false, err
			case freed:
				return true, &ConflictError{Key: w.e.Key, Reason: "a value it claims was held by an entity that has ended"}
			}
			return false, uniqueTaken(role.Claim, item)
		case actions.RoleObject:
			return false, fmt.Errorf("%w: %s, the object of an edge", ErrNotFound, role.Object)
		}
		return true, &ConflictError{Key: w.e.Key, Predicate: role.List, Reason: "its list changed meanwhile"}
	}
}

// txPatch plans a Patch in a transaction: one conditional update on a type without
// indexes; on an indexed type, the entity and its entries are read, the patch
// applied, and the entity written with its entries as Update does.
func (c *Client) txPatch(ctx context.Context, op *txOp) (*txPart, error) {
	if !c.indexes.Has(op.key.Type) {
		token := commit.NewToken()
		in := c.patchInput(op.key, op.ep, op.o, token)
		p := &txPart{op: op}
		p.t.Add(types.TransactWriteItem{Update: &types.Update{
			TableName: in.TableName, Key: in.Key, UpdateExpression: in.UpdateExpression,
			ConditionExpression: in.ConditionExpression, ExpressionAttributeNames: in.ExpressionAttributeNames,
			ExpressionAttributeValues:           in.ExpressionAttributeValues,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}}, actions.Role{Kind: actions.RoleEntity}, schema.ItemSize(in.Key)+op.ep.size())
		p.refused = func(ctx context.Context, _ actions.Role, item map[string]types.AttributeValue) (bool, error) {
			_, err := c.patchRefused(ctx, op.key, op.o, token, item)
			return false, err
		}
		return p, nil
	}
	item, entries, byRecord, err := c.readWithEntries(ctx, op.key)
	if err != nil {
		return nil, err
	}
	if item == nil || c.core.Hidden(item) {
		return nil, notFound(op.key)
	}
	e, err := decodeEntity(item)
	if err != nil {
		return nil, err
	}
	if op.o.version > 0 && e.Version != op.o.version {
		return nil, &ConflictError{Key: op.key, Expected: op.o.version, Stored: e.Version, Reason: fmt.Sprintf("expected version %d, stored is %d", op.o.version, e.Version)}
	}
	if err := op.ep.apply(e); err != nil {
		return nil, err
	}
	if op.o.version == 0 {
		// A blind patch: the write expects the version read (x below), and a
		// refusal for a newer one plans it again instead of ending it.
		e.Version = 0
	}
	w, err := c.newWrite(e, modeUpdate, writeOptions{cond: op.o.cond})
	if err != nil {
		return nil, err
	}
	w.byRecord = byRecord
	s, err := c.core.ReadStored(relationships.Key(op.key), item)
	if err != nil {
		return nil, err
	}
	x := entitystate.Expect(s)
	if s.Pending != "" {
		return nil, errRetryTx
	}
	p, err := w.plan(x, entries, nil)
	if err != nil {
		return nil, err
	}
	part := &txPart{op: op, t: *w.transaction(p)}
	part.result.Entity, err = w.storedEntity(p.item)
	refused := w.refused(x, op)
	part.refused = func(ctx context.Context, role actions.Role, item map[string]types.AttributeValue) (bool, error) {
		retry, err := refused(ctx, role, item)
		return retry && op.o.version == 0, err
	}
	return part, err
}

// readWithEntries reads the entity item k and its index entries in one round. When
// the item records the entries read, they are those of the version read (byRecord);
// otherwise they are read again, after the item.
func (c *Client) readWithEntries(ctx context.Context, k Key) (item map[string]types.AttributeValue, entries []map[string]types.AttributeValue, byRecord bool, err error) {
	if !c.indexes.HasEntries(k.Type) {
		item, err = c.core.GetItem(ctx, relationships.Key(k), true)
		return item, nil, item != nil, err
	}
	err = batching.Parallel(ctx, 2, 2, func(ctx context.Context, i int) error {
		var err error
		if i == 0 {
			item, err = c.core.GetItem(ctx, relationships.Key(k), true)
		} else {
			entries, err = c.core.ReadIndexEntries(ctx, relationships.Key(k))
		}
		return err
	})
	if err != nil || item == nil || store.RecordMatches(item, entries) {
		return item, entries, item != nil, err
	}
	entries, err = c.core.ReadIndexEntries(ctx, relationships.Key(k))
	return item, entries, false, err
}

// txDelete plans a Delete in a transaction: the entity, its index entries, the
// claims of its unique values and the heads of its empty lists, under the condition
// that it is still the version read, which must be the one IfVersion asks for. An
// entity with relationship entries is refused.
func (c *Client) txDelete(ctx context.Context, op *txOp) (*txPart, error) {
	var partition, incoming []map[string]types.AttributeValue
	var item map[string]types.AttributeValue
	var entries []map[string]types.AttributeValue
	err := batching.Parallel(ctx, 3, 3, func(ctx context.Context, i int) error {
		var err error
		switch i {
		case 0:
			item, entries, _, err = c.readWithEntries(ctx, op.key)
		case 1:
			partition, err = c.partitionItems(ctx, op.key)
		default:
			var out *dynamodb.QueryOutput
			in := c.core.IncomingQuery(relationships.Key(op.key))
			in.Limit = aws.Int32(1)
			if out, err = c.core.API.Query(ctx, in); err == nil {
				incoming = out.Items
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	p := &txPart{op: op}
	s, err := c.core.ReadStored(relationships.Key(op.key), item)
	switch {
	case err != nil:
		return nil, err
	case !s.Live() && op.o.version > 0:
		return nil, &ConflictError{Key: op.key, Expected: op.o.version, Missing: true, Reason: "the entity does not exist"}
	case !s.Live():
		return p, nil // nothing to delete: not an error
	case op.o.version > 0 && s.Version != op.o.version:
		return nil, &ConflictError{Key: op.key, Expected: op.o.version, Stored: s.Version, Reason: fmt.Sprintf("expected version %d, stored is %d", op.o.version, s.Version)}
	case len(incoming) > 0 || slices.ContainsFunc(partition, func(i map[string]types.AttributeValue) bool { return !store.Bookkeeping(i) }):
		return nil, ErrHasRelationships
	case s.Pending != "":
		return nil, errRetryTx
	}
	c.addEntityDelete(&p.t, op, s)
	for _, e := range store.ParseEntries(entries) {
		p.t.Add(actions.Items([]batching.WriteOp{batching.DeleteOp(c.core.Names.IndexEntries, e.PrimaryKey())})[0], actions.Role{Kind: actions.RoleIndex}, 0)
		if c.indexes.Unique(e.Type, e.IndexName) {
			p.t.Add(actions.Release(c.core.Names.IndexEntries, indexentries.ClaimOf(e)), actions.Role{Kind: actions.RoleClaim, Claim: indexentries.ClaimOf(e), Release: true}, 0)
		}
	}
	for _, b := range partition {
		p.t.Add(actions.Items([]batching.WriteOp{batching.DeleteOp(c.core.Names.Relationships, batching.Project(b, schema.RelationshipKeyAttrs()))})[0], actions.Role{Kind: actions.RoleHead}, 0)
	}
	p.refused = func(_ context.Context, role actions.Role, item map[string]types.AttributeValue) (bool, error) {
		now, _ := c.core.ReadStored(relationships.Key(op.key), item)
		switch {
		case role.Kind != actions.RoleEntity:
			return true, &ConflictError{Key: op.key, Reason: "its entries changed meanwhile"}
		case op.o.version > 0 && now.Version != op.o.version:
			return false, &ConflictError{Key: op.key, Expected: op.o.version, Stored: now.Version, Missing: !now.Live(), Reason: "another version"}
		case op.o.cond != nil && now.Version == s.Version:
			return false, &ConditionError{Key: op.key, Condition: op.o.cond.String()}
		}
		return true, &ConflictError{Key: op.key, Reason: "written meanwhile"}
	}
	return p, nil
}

// addEntityDelete adds the deletion of the entity stored as s, conditional on its
// version (which pins the entries read) and the caller's condition.
func (c *Client) addEntityDelete(t *actions.Transaction, op *txOp, s entitystate.State) {
	cond := expression.Name(schema.AttrVersion).Equal(expression.Value(number(s.Version))).
		And(expression.AttributeNotExists(expression.Name(schema.AttrDeleting)))
	if op.o.cond != nil {
		cond = cond.And(op.o.cond.build(c.opts.Now()))
	}
	b := commit.Build(cond, nil)
	t.Add(types.TransactWriteItem{Delete: &types.Delete{
		TableName: aws.String(c.core.Names.Entities), Key: op.key.item(),
		ConditionExpression: b.Condition, ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}, actions.Role{Kind: actions.RoleEntity}, schema.ItemSize(op.key.item()))
}

// partitionItems returns the keys of the items in k's partition of the relationship
// entries table: its entries, and its lists' heads and markers.
func (c *Client) partitionItems(ctx context.Context, k Key) ([]map[string]types.AttributeValue, error) {
	in := store.KeysOnly(store.KeyCondition(c.core.Names.Relationships, "", schema.AttrSubjectKey, k.String()), schema.AttrSubjectKey, schema.AttrPredicateKey)
	in.ConsistentRead = aws.Bool(true)
	return c.core.QueryAll(ctx, in)
}
