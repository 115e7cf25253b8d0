package writes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// txWrite plans a Create, Update or Set in a transaction: it reads the entity item
// (unless the entity carries what the write needs), its index entries and its lists
// in one round, as Set does, without its optimistic create.
func (c *Writer) txWrite(ctx context.Context, op *txOp, w *write) (*txPart, error) {
	w.together = true
	x, getItem := w.first()
	if w.Mode == PutSet && x.Absent {
		x, getItem = entitystate.Expectation{}, true // one transaction: learn what is stored first
	}
	snap, done, err := w.read(ctx, x, getItem)
	switch {
	case err != nil:
		return nil, err
	case done != nil:
		return nil, fmt.Errorf("%w: an earlier attempt of this transaction wrote it", errRetryTx)
	case snap.x.Pending:
		return nil, &pendingError{Key: op.Key}
	}
	p, err := w.plan(snap.x, snap.entries, snap.lists)
	if err != nil {
		return nil, err
	}
	part := &txPart{op: op, t: *w.transaction(p), result: TxResult{Item: p.item}}
	part.refused = w.refused(snap.x)
	return part, nil
}

// refused explains a refused action of the write of x.
func (w *write) refused(x entitystate.Expectation) func(context.Context, actions.Role, map[string]types.AttributeValue) (bool, error) {
	return func(ctx context.Context, role actions.Role, item map[string]types.AttributeValue) (bool, error) {
		switch role.Kind {
		case actions.RoleEntity:
			if err := w.conditionFailed(x, item); err != nil {
				return false, err
			}
			s, err := w.c.core.ReadStored(w.Key, item)
			if err != nil {
				return false, err
			}
			if s.Ending() { // a Delete cut off, or an expired entity: completed first, as every writer does
				if err := w.c.core.Deletes.CompleteDelete(ctx, w.Key, s); err != nil {
					return false, errs.Wrap(err, "completing the delete of %s", w.Key)
				}
				return true, &entity.ConflictError{Key: w.Key, Reason: "being deleted"}
			}
			if _, err := w.decide(s); err != nil {
				return false, err
			}
			return true, &entity.ConflictError{Key: w.Key, Expected: x.Version, Stored: s.Version, Reason: "written meanwhile"}
		case actions.RoleClaim:
			if role.Release {
				return true, &entity.ConflictError{Key: w.Key, Reason: "a value it held was claimed meanwhile"}
			}
			switch freed, err := w.c.freeHeld(ctx, role.Claim, item); {
			case err != nil:
				return false, err
			case freed:
				return true, &entity.ConflictError{Key: w.Key, Reason: "a value it claims was held by an entity that has ended"}
			}
			return false, uniqueTaken(role.Claim, item)
		case actions.RoleObject:
			return false, fmt.Errorf("%w: %s, the object of an edge", errs.ErrNotFound, role.Object)
		}
		return true, &entity.ConflictError{Key: w.Key, Predicate: role.List, Reason: "its list changed meanwhile"}
	}
}

// txPatch plans a Patch in a transaction: one conditional update on a type without
// indexes; on an indexed type, the entity and its entries are read, the patch
// applied, and the entity written with its entries as Update does.
func (c *Writer) txPatch(ctx context.Context, op *txOp) (*txPart, error) {
	if !c.core.Indexes.Has(op.Key.Type) {
		token := commit.NewToken()
		o := op.patchOptions()
		in := c.PatchInput(op.Key, op.Patch, o, token)
		p := &txPart{op: op}
		p.t.Add(types.TransactWriteItem{Update: &types.Update{
			TableName: in.TableName, Key: in.Key, UpdateExpression: in.UpdateExpression,
			ConditionExpression: in.ConditionExpression, ExpressionAttributeNames: in.ExpressionAttributeNames,
			ExpressionAttributeValues:           in.ExpressionAttributeValues,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}}, actions.Role{Kind: actions.RoleEntity}, schema.ItemSize(in.Key)+op.Patch.Size())
		p.refused = func(ctx context.Context, _ actions.Role, item map[string]types.AttributeValue) (bool, error) {
			if created, ok := c.createdRefused(op.Key, o, token, item); ok {
				op.created = created // the next attempt requires it, and writes it anew
				return true, &entity.ConflictError{Key: op.Key, Reason: "its Created is stored in another layout"}
			}
			_, err := c.patchRefused(ctx, op.Key, o, token, item)
			return false, err
		}
		return p, nil
	}
	item, entries, byRecord, err := c.readWithEntries(ctx, op.Key)
	if err != nil {
		return nil, err
	}
	if item == nil || c.core.Hidden(item) {
		if err := store.OtherLife(op.Key, op.Version, op.Created, time.Time{}); err != nil {
			return nil, err
		}
		return nil, store.NotFound(op.Key)
	}
	s, err := c.core.ReadStored(op.Key, item)
	if err == nil {
		err = store.OtherLife(op.Key, op.Version, op.Created, s.Life())
	}
	switch {
	case err != nil:
		return nil, err
	case s.Unreadable != nil: // the put would have to invent its Created
		return nil, store.Unreadable(op.Key, s.Unreadable)
	case op.Version > 0 && s.Version != op.Version:
		return nil, &entity.ConflictError{Key: op.Key, Expected: op.Version, Stored: s.Version, Reason: fmt.Sprintf("expected version %d, stored is %d", op.Version, s.Version)}
	}
	base, err := op.Patched(item)
	if err != nil {
		return nil, err
	}
	// A blind patch (no Version) expects the version read (x below), and a refusal
	// for a newer one plans it again instead of ending it.
	w, err := c.newWrite(Put{Mode: PutUpdate, Key: op.Key, Version: op.Version, Created: s.Created, IfCreated: !op.Created.IsZero(), Base: base, Cond: op.Cond})
	if err != nil {
		return nil, err
	}
	w.byRecord = byRecord
	x := entitystate.Expect(s)
	if s.Pending != "" {
		return nil, &pendingError{Key: op.Key}
	}
	p, err := w.plan(x, entries, nil)
	if err != nil {
		return nil, err
	}
	part := &txPart{op: op, t: *w.transaction(p), result: TxResult{Item: p.item}}
	refused := w.refused(x)
	part.refused = func(ctx context.Context, role actions.Role, item map[string]types.AttributeValue) (bool, error) {
		retry, err := refused(ctx, role, item)
		return retry && op.Version == 0, err
	}
	return part, nil
}

// readWithEntries reads the entity item k and its index entries in one round. When
// the item records the entries read, they are those of the version read (byRecord);
// otherwise they are read again, after the item.
func (c *Writer) readWithEntries(ctx context.Context, k store.Key) (item map[string]types.AttributeValue, entries []map[string]types.AttributeValue, byRecord bool, err error) {
	if !c.core.Indexes.HasEntries(k.Type) {
		item, err = c.core.GetItem(ctx, k, true)
		return item, nil, item != nil, err
	}
	err = batching.Parallel(ctx, 2, 2, func(ctx context.Context, i int) error {
		var err error
		if i == 0 {
			item, err = c.core.GetItem(ctx, k, true)
		} else {
			entries, err = c.core.ReadIndexEntries(ctx, k)
		}
		return err
	})
	if err != nil || item == nil || recordMatches(item, entries) {
		return item, entries, item != nil, err
	}
	entries, err = c.core.ReadIndexEntries(ctx, k)
	return item, entries, false, err
}

// txDelete plans a Delete in a transaction: the entity, its index entries, the
// claims of its unique values and the heads of its empty lists, under the condition
// that it is still the version read, which must be the one IfVersion asks for. An
// entity with relationship entries is refused, as is one that an entry points at
// which no operation of the transaction removes (removed, see Tx.removes; nil when
// none removes the entity from anything). The entries it removes are the part's
// incoming, which Tx.unremoved matches with the actions of the other parts.
func (c *Writer) txDelete(ctx context.Context, op *txOp, removed func(relationships.Entry) bool) (*txPart, error) {
	var partition []map[string]types.AttributeValue
	var incoming []incomingEntry
	var item map[string]types.AttributeValue
	var entries []map[string]types.AttributeValue
	var left bool
	err := batching.Parallel(ctx, 3, 3, func(ctx context.Context, i int) error {
		var err error
		switch i {
		case 0:
			item, entries, _, err = c.readWithEntries(ctx, op.Key)
		case 1:
			partition, err = c.partitionItems(ctx, op.Key)
		default:
			left, incoming, err = c.incomingOf(ctx, op.Key, removed)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	p := &txPart{op: op}
	s, err := c.core.ReadStored(op.Key, item)
	if err == nil {
		err = store.OtherLife(op.Key, op.Version, op.Created, s.Life())
	}
	switch {
	case err != nil:
		return nil, err
	case !s.Live() && op.Version > 0:
		return nil, &entity.ConflictError{Key: op.Key, Expected: op.Version, Missing: true, Reason: "the entity does not exist"}
	case !s.Live():
		c.checkGone(p, op.Key) // nothing to delete: not an error, while it stays so
		return p, nil
	case op.Version > 0 && s.Version != op.Version:
		return nil, &entity.ConflictError{Key: op.Key, Expected: op.Version, Stored: s.Version, Reason: fmt.Sprintf("expected version %d, stored is %d", op.Version, s.Version)}
	case left || slices.ContainsFunc(partition, func(i map[string]types.AttributeValue) bool { return !store.Bookkeeping(i) || underLease(i) }):
		return nil, errs.ErrHasRelationships
	case s.Pending != "":
		return nil, &pendingError{Key: op.Key}
	}
	p.incoming = incoming
	c.addEntityDelete(&p.t, op, s)
	for _, e := range store.ParseEntries(entries) {
		p.t.Add(actions.Items([]batching.WriteOp{batching.DeleteOp(c.core.Names.IndexEntries, e.PrimaryKey())})[0], actions.Role{Kind: actions.RoleIndex}, 0)
		if c.core.Indexes.Unique(e.Type, e.IndexName) {
			p.t.Add(actions.Release(c.core.Names.IndexEntries, indexentries.ClaimOf(e)), actions.Role{Kind: actions.RoleClaim, Claim: indexentries.ClaimOf(e), Release: true}, 0)
		}
	}
	for _, b := range partition {
		p.t.Add(c.bookkeepingDelete(b), actions.Role{Kind: actions.RoleHead}, 0)
	}
	p.refused = func(_ context.Context, role actions.Role, item map[string]types.AttributeValue) (bool, error) {
		now, _ := c.core.ReadStored(op.Key, item)
		life := store.OtherLife(op.Key, op.Version, op.Created, now.Life())
		switch {
		case role.Kind != actions.RoleEntity:
			return true, &entity.ConflictError{Key: op.Key, Reason: "its entries changed meanwhile"}
		case life != nil:
			return false, life
		case op.Version > 0 && now.Version != op.Version:
			return false, &entity.ConflictError{Key: op.Key, Expected: op.Version, Stored: now.Version, Missing: !now.Live(), Reason: "another version"}
		case op.Cond != nil && now.Version == s.Version:
			return false, &entity.ConditionError{Key: op.Key, Condition: op.Cond.String()}
		}
		return true, &entity.ConflictError{Key: op.Key, Reason: "written meanwhile"}
	}
	return p, nil
}

// incomingOf reads the entries pointing at k through the reverse index (each of
// its shards in parallel, for a sharded type). It reports whether one is left that
// no operation of the transaction removes (removed; with nil, any entry is left:
// one is read at most a shard), and returns the others.
func (c *Writer) incomingOf(ctx context.Context, k store.Key, removed func(relationships.Entry) bool) (left bool, found []incomingEntry, err error) {
	ins, err := c.core.IncomingQueries(k)
	if err != nil {
		return false, nil, err
	}
	each := make([][]incomingEntry, len(ins))
	err = batching.Parallel(ctx, len(ins), c.core.MaxConcurrency, func(ctx context.Context, i int) error {
		if removed == nil {
			ins[i].Limit = aws.Int32(1)
		}
		return c.core.QueryPages(ctx, ins[i], func(items []map[string]types.AttributeValue) error {
			for _, item := range items {
				e, err := relationships.FromItem(item)
				if err != nil || removed == nil || !removed(e) {
					return errEntryLeft
				}
				each[i] = append(each[i], incomingEntry{key: batching.Project(item, schema.RelationshipKeyAttrs()), entry: e})
			}
			return nil
		})
	})
	if errors.Is(err, errEntryLeft) {
		return true, nil, nil
	}
	return false, slices.Concat(each...), err
}

// errEntryLeft ends the read of the entries pointing at an entity at the first
// that refuses its TxDelete.
var errEntryLeft = errors.New(errs.Prefix + "an entry is left")

// checkGone makes p, the TxDelete of k read as missing, check that k is still not
// live at the commit: an entity created after the read would otherwise stay alive
// beside a transaction that deleted it. Refused, the transaction reads again.
func (c *Writer) checkGone(p *txPart, k store.Key) {
	p.t.Add(actions.EntityCheck(c.core.Names.Entities, k, actions.Gone(c.core.Now())),
		actions.Role{Kind: actions.RoleEntity}, schema.ItemSize(actions.EntityKey(k)))
	p.refused = func(context.Context, actions.Role, map[string]types.AttributeValue) (bool, error) {
		return true, &entity.ConflictError{Key: k, Reason: "created meanwhile"}
	}
}

// addEntityDelete adds the deletion of the entity stored as s, conditional on its
// version (which pins the entries read; none for an item written before versions),
// its Created as stored (the life read, which IfCreated's when given: another life
// at the same version, created meanwhile, has index entries this delete did not
// read), and the caller's condition.
func (c *Writer) addEntityDelete(t *actions.Transaction, op *txOp, s entitystate.State) {
	cond := entitystate.Expect(s).Condition().
		And(expression.AttributeNotExists(expression.Name(schema.AttrDeleting)))
	if op.Cond != nil {
		cond = cond.And(op.Cond.Expression(c.core.Now()))
	}
	b := commit.Build(cond, nil)
	t.Add(types.TransactWriteItem{Delete: &types.Delete{
		TableName: aws.String(c.core.Names.Entities), Key: actions.EntityKey(op.Key),
		ConditionExpression: b.Condition, ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}, actions.Role{Kind: actions.RoleEntity}, schema.ItemSize(actions.EntityKey(op.Key)))
}

// partitionItems returns the keys of the items in k's partition of the relationship
// entries table: its entries, and its lists' heads (with their version and lease),
// markers and intents.
func (c *Writer) partitionItems(ctx context.Context, k store.Key) ([]map[string]types.AttributeValue, error) {
	in := store.KeysOnly(store.KeyCondition(c.core.Names.Relationships, "", schema.AttrSubjectKey, k.String()),
		schema.AttrSubjectKey, schema.AttrPredicateKey, schema.AttrVersion, schema.AttrLease)
	in.ConsistentRead = aws.Bool(true)
	return c.core.QueryAll(ctx, in)
}

// underLease reports whether item, of an entity's partition, is a head a writer
// holds (its lease expired or not) or a part of a writer's intent: a list gaining
// entries in transactions that check the lease and the entity but change neither
// the head's version nor the entity's, so that no condition of a TxDelete would see
// them commit.
func underLease(item map[string]types.AttributeValue) bool {
	if _, leased := item[schema.AttrLease]; leased && store.IsHead(item) {
		return true
	}
	k, ok := item[schema.AttrPredicateKey].(*types.AttributeValueMemberS)
	return ok && strings.HasPrefix(k.Value, schema.ListIntentPrefix)
}

// bookkeepingDelete is the delete of item, a head, marker or sequence of an entity
// a TxDelete deletes; a head on the condition that it is as read, since a list write
// that read the entity before the transaction may commit first (store.OwnHead).
func (c *Writer) bookkeepingDelete(item map[string]types.AttributeValue) types.TransactWriteItem {
	if store.IsHead(item) {
		return c.core.OwnHeadDelete(store.OwnHeadOf(item))
	}
	return actions.Items([]batching.WriteOp{batching.DeleteOp(c.core.Names.Relationships, batching.Project(item, schema.RelationshipKeyAttrs()))})[0]
}

// patchOptions are the conditions of a TxPatch.
func (op *txOp) patchOptions() PatchOptions {
	return PatchOptions{Version: op.Version, Created: op.Created, Cond: op.Cond, StoredCreated: op.created}
}
