package store

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/indexes"
	"github.com/rynodb/rynodb/internal/schema"
)

// ReindexEntity brings the index entries of the entity listed as item in line with
// the registered indexes, as reindexEntity does, and says only whether it could.
func (c *Core) ReindexEntity(ctx context.Context, item map[string]types.AttributeValue) error {
	_, err := c.reindexEntity(ctx, item)
	return err
}

// reindexEntity brings the index entries of the entity listed as item in line with
// the indexes registered now, as a write of the entity does: the entries are read,
// and the difference commits with the entity's new record (and version, not its
// Updated time) under the condition that the entity is still as read. The listing is
// eventually consistent: when the condition fails, the entity is read again. An
// entity deleted meanwhile is skipped.
func (c *Core) reindexEntity(ctx context.Context, item map[string]types.AttributeValue) (*reindexing, error) {
	k, err := EntityKeyOf(item)
	if err != nil {
		return nil, err
	}
	first := true
	giveUp := func(_, err error) error { return errs.Wrap(err, "reindex %s", k) }
	return batching.Attempts(ctx, c.ConflictPacer(), giveUp, func(ctx context.Context) (*reindexing, batching.Step, error) {
		if !first { // the item listed was stale
			var err error
			if item, err = c.GetItem(ctx, k, true); err != nil {
				return nil, batching.Done, err
			}
		}
		first = false
		return c.reindexOnce(ctx, k, item)
	})
}

// reindexOnce makes one attempt at the reindex of k, stored as item.
func (c *Core) reindexOnce(ctx context.Context, k Key, item map[string]types.AttributeValue) (*reindexing, batching.Step, error) {
	s, err := c.ReadStored(k, item)
	switch {
	case err != nil || !s.Live():
		return nil, batching.Done, err
	case s.Unreadable != nil: // its map functions would see no Created
		return nil, batching.Done, Unreadable(k, s.Unreadable)
	}
	r := &reindexing{c: c, k: k, s: s, token: commit.NewToken()}
	done, err := r.run(ctx)
	if done || err != nil {
		return r, batching.Done, err
	}
	return nil, batching.Retry, nil
}

// reindexing is the reindex of one entity stored as s.
type reindexing struct {
	c             *Core
	k             Key
	s             entitystate.State
	token         string
	puts, deletes int
	duplicates    []indexing.Duplicate
	moved         bool // to its type's by-type layout
}

// run commits the entries the entity emits now, and its record. It reports false
// when the entity changed since it was read.
func (r *reindexing) run(ctx context.Context) (bool, error) {
	emitted, err := r.c.Indexes.Emit(r.s.Item, r.s.Created, timeOf(UpdatedOf(r.s.Item)))
	if err != nil {
		return true, errs.Wrap(err, "%s", r.k)
	}
	inline, emitted, err := r.c.Indexes.InlineSplit(r.k.Type, emitted)
	if err != nil {
		return true, errs.Wrap(err, "%s", r.k)
	}
	inline = EverySlot(inline)
	var stored []map[string]types.AttributeValue
	var claims []indexentries.Claim
	err = batching.Parallel(ctx, 2, 2, func(ctx context.Context, i int) error {
		var err error
		if i == 0 {
			stored, err = r.c.ReadIndexEntries(ctx, r.k)
		} else {
			emitted, claims, err = r.claimUnique(ctx, emitted)
		}
		return err
	})
	if err != nil {
		return true, err
	}
	ops, err := indexes.Ops(r.c.Names.IndexEntries, stored, emitted)
	if err != nil {
		return true, err
	}
	held := ParseEntries(stored)
	if r.s.Pending != "" { // a write cut off may have claimed values it wrote no entry of
		held = append(held, RecordEntries(r.k, r.s.Item)...)
	}
	_, releases := r.c.Indexes.ClaimChanges(held, emitted)
	releases = slices.DeleteFunc(releases, func(cl indexentries.Claim) bool { return r.heldByOther(cl) })
	set := r.c.Indexes.Set(r.k.Type)
	record := indexes.Record(emitted)
	if len(ops)+len(claims)+len(releases) == 0 && r.s.Pending == "" && r.s.Indexes == set &&
		sameRecord(r.s.Item[schema.AttrIndexEntries], record) && indexes.HoldsInline(r.s.Item, inline) &&
		r.c.InByTypeLayout(r.k, r.s.Item) {
		return true, nil
	}
	large := r.s.Pending != "" || !actions.FitsOps(1+len(claims)+len(releases), schema.ItemSize(r.s.Item), ops)
	update := UpdateInline(r.recordUpdate(set, record, large), inline)
	t := &actions.Transaction{}
	t.Add(r.c.updateAction(r.k, entitystate.Expect(r.s), update), actions.Role{Kind: actions.RoleEntity}, 0)
	actions.AddClaims(t, r.c.Names.IndexEntries, claims, releases, entitystate.ExpiresOf(r.s.Item))
	if !large {
		t.Actions = append(t.Actions, actions.Items(ops)...)
		return r.counted(r.c.Transact(ctx, t.Actions, commit.NewToken()), ops)
	}
	return r.runLarge(ctx, t.Actions, emitted)
}

// heldByOther reports whether another entity holds the value of cl: a duplicate
// found, which the entity must not release.
func (r *reindexing) heldByOther(cl indexentries.Claim) bool {
	for _, d := range r.duplicates {
		if d.Index == cl.IndexName && d.Value == cl.Value.Interface() {
			return true
		}
	}
	return false
}

// claimUnique reads the claims of the values emitted into unique indexes, and
// returns the entries without those another entity holds (recorded as duplicates)
// and the claims the entity lacks.
func (r *reindexing) claimUnique(ctx context.Context, emitted []indexentries.Entry) ([]indexentries.Entry, []indexentries.Claim, error) {
	var ops []batching.GetOp
	for _, e := range emitted {
		if r.c.Indexes.Unique(e.Type, e.IndexName) {
			ops = append(ops, batching.NewGetOp(r.c.Names.IndexEntries, indexentries.ClaimOf(e).PrimaryKey()))
		}
	}
	if len(ops) == 0 {
		return emitted, nil, nil
	}
	held, err := r.c.Batch.Get(ctx, ops, batching.ReadOptions{Consistent: true})
	if err != nil {
		return nil, nil, err
	}
	var kept []indexentries.Entry
	var claims []indexentries.Claim
	for _, e := range emitted {
		if !r.c.Indexes.Unique(e.Type, e.IndexName) {
			kept = append(kept, e)
			continue
		}
		cl := indexentries.ClaimOf(e)
		item, ok := held[batching.ItemID(r.c.Names.IndexEntries, cl.PrimaryKey())]
		owner, err := indexentries.ClaimFromItem(item)
		switch {
		case !ok:
			claims = append(claims, cl)
		case err == nil && (owner.Type != e.Type || owner.ID != e.ID):
			r.duplicates = append(r.duplicates, indexing.Duplicate{Index: e.IndexName, Value: e.Value.Interface(),
				Entity: r.k, Owner: Key{Scope: owner.Scope, Type: owner.Type, ID: owner.ID}})
			continue
		}
		kept = append(kept, e)
	}
	return kept, claims, nil
}

// recordUpdate sets the entity's index record and index set and bumps its version,
// leaving a pending mark when the entries are written after it, and moves it to
// its type's by-type layout when it stands in another.
func (r *reindexing) recordUpdate(set string, record types.AttributeValue, large bool) expression.UpdateBuilder {
	u := expression.Set(expression.Name(schema.AttrIndexEntries), expression.Value(record)).
		Set(expression.Name(schema.AttrToken), expression.Value(AttrS(r.token))).
		Add(expression.Name(schema.AttrVersion), expression.Value(AttrN(1)))
	if set == "" {
		u = u.Remove(expression.Name(schema.AttrIndexes))
	} else {
		u = u.Set(expression.Name(schema.AttrIndexes), expression.Value(AttrS(set)))
	}
	if updated, ok := UpdatedOf(r.s.Item).(*types.AttributeValueMemberS); ok && !r.c.InByTypeLayout(r.k, r.s.Item) {
		u = r.c.UpdateByType(u, r.k, updated.Value) // moved to its type's layout, at the time it had
		r.moved = true
	}
	if large {
		u = u.Set(expression.Name(schema.AttrPending), expression.Value(AttrS(r.token))).
			Set(expression.Name(schema.AttrPendingSince), expression.Value(AttrS(schema.FormatTime(r.c.Now())))).
			Set(expression.Name(schema.AttrPendingUntil), expression.Value(AttrN(r.c.PendingUntil())))
	}
	return u
}

// runLarge marks the entity, then reads and writes its entries under the mark, as a
// large write does.
func (r *reindexing) runLarge(ctx context.Context, first []types.TransactWriteItem, emitted []indexentries.Entry) (bool, error) {
	a := r.c.Transact(ctx, first, commit.NewToken())
	if done, err := r.counted(a, nil); !done || err != nil {
		return done, err
	}
	stored, err := r.c.ReadIndexEntries(ctx, r.k)
	if err != nil {
		return true, err
	}
	ops, err := indexes.Ops(r.c.Names.IndexEntries, stored, emitted)
	if err != nil {
		return true, err
	}
	g := Guard{Key: r.k, Attr: schema.AttrPending, Token: r.token}
	err = r.c.TransactGuarded(ctx, r.c.Batch.Shared(), g, ops)
	if errors.Is(err, ErrGuardFailed) {
		return true, nil // a writer took over, and reconciles
	}
	if err != nil {
		return true, err
	}
	r.count(ops)
	if _, err := r.c.ClearPending(ctx, r.k, r.token); err != nil && !errors.Is(err, ErrGuardFailed) {
		return true, err
	}
	return true, nil
}

// counted counts ops when a committed; it reports false when a condition failed:
// the entity changed, or one of its values was claimed meanwhile.
func (r *reindexing) counted(a commit.Attempt, ops []batching.WriteOp) (bool, error) {
	switch {
	case a.Outcome == commit.Committed:
		r.count(ops)
		return true, nil
	case a.Outcome == commit.ConditionFailed: // the entity changed, or a value was claimed meanwhile
		return false, nil
	}
	return true, a.Err
}

func (r *reindexing) count(ops []batching.WriteOp) {
	for _, op := range ops {
		if op.Item != nil {
			r.puts++
		} else {
			r.deletes++
		}
	}
}

// updateAction is the transaction action updating the entity k under the condition
// of x.
func (c *Core) updateAction(k Key, x entitystate.Expectation, update expression.UpdateBuilder) types.TransactWriteItem {
	b := commit.Build(x.Condition(), &update)
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                           aws.String(c.Names.Entities),
		Key:                                 actions.EntityKey(k),
		UpdateExpression:                    b.Update,
		ConditionExpression:                 b.Condition,
		ExpressionAttributeNames:            b.Names,
		ExpressionAttributeValues:           b.Values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}
}

// sameRecord reports whether two _index_entries records list the same keys.
func sameRecord(stored, record types.AttributeValue) bool {
	var a, b map[string][]string
	if stored != nil && attributevalue.Unmarshal(stored, &a) != nil {
		return false
	}
	if attributevalue.Unmarshal(record, &b) != nil {
		return false
	}
	return maps.EqualFunc(a, b, slices.Equal[[]string])
}

// ClearPending removes the pending mark token from the entity item, bumping its
// version: a writer that read the entries while they were being written must not
// commit a diff against them. It returns the item as it leaves it, or
// errGuardFailed when the mark is gone (another writer took over).
func (c *Core) ClearPending(ctx context.Context, k Key, token string) (map[string]types.AttributeValue, error) {
	update := expression.Remove(expression.Name(schema.AttrPending)).
		Remove(expression.Name(schema.AttrPendingSince)).Remove(expression.Name(schema.AttrPendingUntil)).
		Add(expression.Name(schema.AttrVersion), expression.Value(AttrN(1)))
	mark := expression.Name(schema.AttrPending).Equal(expression.Value(AttrS(token)))
	send := c.UpdateSend(c.EntityUpdate(k, commit.Build(mark, &update)))
	resolve := func(ctx context.Context) commit.Attempt {
		item, err := c.GetItem(ctx, k, true)
		if err != nil {
			return commit.Attempt{Outcome: commit.Ambiguous, Err: err}
		}
		s, err := c.ReadStored(k, item)
		switch {
		case err != nil:
			return commit.Attempt{Outcome: commit.Failed, Err: err}
		case s.Pending == token:
			return send(ctx)
		case s.Exists() && s.Pending == "" && s.Token == token:
			return commit.Attempt{Outcome: commit.Committed, Item: item}
		}
		return commit.Attempt{Outcome: commit.ConditionFailed}
	}
	a := c.Settle(ctx, send, resolve)
	switch a.Outcome {
	case commit.Committed:
		return a.Item, nil
	case commit.ConditionFailed:
		return nil, ErrGuardFailed
	}
	return nil, errs.Wrap(a.Err, "clear the pending mark of %s", k)
}

// ParseEntries decodes stored index entry items, skipping those the store did not
// write (indexOps deletes them).
func ParseEntries(items []map[string]types.AttributeValue) []indexentries.Entry {
	entries := make([]indexentries.Entry, 0, len(items))
	for _, item := range items {
		if e, err := indexentries.FromItem(item); err == nil {
			entries = append(entries, e)
		}
	}
	return entries
}

// ReadIndexEntries returns the stored index entries of the entity k: the truth that
// writes are diffed against, so a write retried after a half-failed one still removes
// stale entries.
func (c *Core) ReadIndexEntries(ctx context.Context, k Key) ([]map[string]types.AttributeValue, error) {
	return c.QueryAll(ctx, c.IndexEntriesQuery(k))
}

// ReindexCount counts what the reindex of entities did.
type ReindexCount struct {
	Entities, Puts, Deletes int
	Moved                   int // entities moved to their type's by-type layout
	Duplicates              []indexing.Duplicate
}

// ReindexPage repairs the entries of the entities stored as items, in parallel,
// and moves those standing in another by-type layout than their type's.
func (c *Core) ReindexPage(ctx context.Context, items []map[string]types.AttributeValue) (ReindexCount, error) {
	done := make([]*reindexing, len(items))
	err := batching.Parallel(ctx, len(items), c.MaxConcurrency, func(ctx context.Context, i int) error {
		var err error
		done[i], err = c.reindexEntity(ctx, items[i])
		return err
	})
	n := ReindexCount{Entities: len(items)}
	for _, r := range done {
		if r != nil {
			n.Puts, n.Deletes, n.Duplicates = n.Puts+r.puts, n.Deletes+r.deletes, append(n.Duplicates, r.duplicates...)
			if r.moved {
				n.Moved++
			}
		}
	}
	return n, err
}

// FinishPending finishes the index entries of the large write whose pending mark k
// holds, as check --repair does, when this client registers the indexes the entity
// was written with; otherwise it leaves the mark to a client that does. It reports
// whether it finished them.
func (c *Core) FinishPending(ctx context.Context, k Key) (bool, error) {
	item, err := c.GetItem(ctx, k, true)
	if err != nil {
		return false, err
	}
	s, err := c.ReadStored(k, item)
	if err != nil || !s.Live() || s.Pending == "" || s.Indexes != c.Indexes.Set(k.Type) {
		return false, err
	}
	if err := c.ReindexEntity(ctx, item); err != nil {
		return false, errs.Wrap(err, "finishing the write of %s cut off", k)
	}
	return true, nil
}

// PendingUntil is the lease of a pending mark put now: when the writer putting it
// is taken for gone.
func (c *Core) PendingUntil() int64 { return c.Now().Add(c.ListLease).UnixMilli() }

// PendingLeft reports whether the writer of s's pending mark has given it up: its
// lease, which the mark records, has expired. A mark written before marks recorded
// their lease is judged by its age against this client's ListLease.
func (c *Core) PendingLeft(s entitystate.State) bool {
	now := c.Now()
	switch {
	case s.Pending == "":
		return false
	case s.PendingUntil > 0:
		return now.UnixMilli() >= s.PendingUntil
	}
	return now.Sub(PendingSince(s.Item)) >= c.ListLease
}

// PendingSince is when the pending mark of item was put: a Reindex records it, a
// large write puts it with the item (_updated).
func PendingSince(item map[string]types.AttributeValue) time.Time {
	return later(timeOf(UpdatedOf(item)), timeOf(item[schema.AttrPendingSince]))
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
