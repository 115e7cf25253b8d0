package ryno

import (
	"context"
	"errors"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/indexes"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// ReindexProgress counts what a Reindex has done so far.
type ReindexProgress struct {
	Entities int // entities whose entries were recomputed
	Puts     int // index entries written
	Deletes  int // index entries deleted
	// Duplicates are the values of unique indexes that an entity emits and another
	// entity holds: Reindex reports them instead of writing them.
	Duplicates []Duplicate
}

// Duplicate is a value of a unique index that Entity emits and Owner holds.
type Duplicate struct {
	Index         string
	Value         any
	Entity, Owner Key
}

// reindexPage is how many entities Reindex handles at a time.
const reindexPage = 100

// Reindex recomputes the index entries of every entity of a type in scope, with the
// indexes registered now, and repairs the difference in the index entries table: run
// it after adding an index or changing a map function. Entries of indexes no longer
// registered for the type are deleted. It pages through the entities, holding one
// page at a time, and calls progress (when not nil) after each page.
//
// Entities are listed through the by-type index, which is eventually consistent, and
// each is handled as listed: an entity written while Reindex runs maintains its own
// entries, but one written just before may be handled in its former state. Run
// Reindex again, or when the type is not being written, to be sure.
func (c *Client) Reindex(ctx context.Context, t Type, progress func(ReindexProgress)) (_ ReindexProgress, err error) {
	ctx, call, err := c.begin(ctx, "Reindex")
	defer call.end(&err)
	if err != nil {
		return ReindexProgress{}, err
	}
	scope, typ := t.Scope, t.Name
	var done ReindexProgress
	q, err := c.byTypeQuery(scope, typ)
	if err != nil {
		return done, err
	}
	in := *q.in
	in.Limit = aws.Int32(reindexPage)
	err = c.core.QueryPages(ctx, &in, func(items []map[string]types.AttributeValue) error {
		puts, deletes, dups, err := c.reindexPage(ctx, items)
		if err != nil {
			return err
		}
		done.Entities += len(items)
		done.Puts += puts
		done.Deletes += deletes
		done.Duplicates = append(done.Duplicates, dups...)
		if progress != nil {
			progress(done)
		}
		return nil
	})

	if err != nil {
		return done, wrap(err, "reindex %s", schema.ScopeTypeKey(scope, typ))
	}
	return done, nil
}

// reindexPage repairs the entries of the entities stored as items, in parallel.
func (c *Client) reindexPage(ctx context.Context, items []map[string]types.AttributeValue) (puts, deletes int, dups []Duplicate, err error) {
	done := make([]*reindexing, len(items))
	err = batching.Parallel(ctx, len(items), c.opts.MaxConcurrency, func(ctx context.Context, i int) error {
		var err error
		done[i], err = c.reindexEntity(ctx, items[i])
		return err
	})
	for _, r := range done {
		if r != nil {
			puts, deletes, dups = puts+r.puts, deletes+r.deletes, append(dups, r.duplicates...)
		}
	}
	return puts, deletes, dups, err
}

// reindexEntity brings the index entries of the entity listed as item in line with
// the indexes registered now, as a write of the entity does: the entries are read,
// and the difference commits with the entity's new record (and version, not its
// Updated time) under the condition that the entity is still as read. The listing is
// eventually consistent: when the condition fails, the entity is read again. An
// entity deleted meanwhile is skipped.
func (c *Client) reindexEntity(ctx context.Context, item map[string]types.AttributeValue) (*reindexing, error) {
	sk, err := store.EntityKeyOf(item)
	if err != nil {
		return nil, err
	}
	k := Key(sk)
	pace := c.core.ConflictPacer()
	for {
		s, err := c.core.ReadStored(relationships.Key(k), item)
		if err != nil || !s.Live() {
			return nil, err
		}
		r := &reindexing{c: c, k: k, s: s, token: commit.NewToken()}
		done, err := r.run(ctx)
		if done || err != nil {
			return r, err
		}
		if err := pace.Wait(ctx); err != nil {
			return nil, wrap(err, "reindex %s", k)
		}
		if item, err = c.core.GetItem(ctx, relationships.Key(k), true); err != nil {
			return nil, err
		}
	}
}

// reindexing is the reindex of one entity stored as s.
type reindexing struct {
	c             *Client
	k             Key
	s             entitystate.State
	token         string
	puts, deletes int
	duplicates    []Duplicate
}

// run commits the entries the entity emits now, and its record. It reports false
// when the entity changed since it was read.
func (r *reindexing) run(ctx context.Context) (bool, error) {
	emitted, err := emitEntries(r.c.indexes, r.s.Item, r.s.Created, store.TimeOf(r.s.Item[schema.AttrUpdated]))
	if err != nil {
		return true, wrap(err, "%s", r.k)
	}
	inline, emitted, err := r.c.indexes.InlineSplit(r.k.Type, emitted)
	if err != nil {
		return true, wrap(err, "%s", r.k)
	}
	inline = store.EverySlot(inline)
	var stored []map[string]types.AttributeValue
	var claims []indexentries.Claim
	err = batching.Parallel(ctx, 2, 2, func(ctx context.Context, i int) error {
		var err error
		if i == 0 {
			stored, err = r.c.readIndexEntries(ctx, r.k)
		} else {
			emitted, claims, err = r.claimUnique(ctx, emitted)
		}
		return err
	})
	if err != nil {
		return true, err
	}
	ops, err := indexes.Ops(r.c.names.IndexEntries, stored, emitted)
	if err != nil {
		return true, err
	}
	held := parseEntries(stored)
	if r.s.Pending != "" { // a write cut off may have claimed values it wrote no entry of
		held = append(held, store.RecordEntries(relationships.Key(r.k), r.s.Item)...)
	}
	_, releases := r.c.indexes.ClaimChanges(held, emitted)
	releases = slices.DeleteFunc(releases, func(cl indexentries.Claim) bool { return r.heldByOther(cl) })
	set := r.c.indexes.Set(r.k.Type)
	record := indexes.Record(emitted)
	if len(ops)+len(claims)+len(releases) == 0 && r.s.Pending == "" && r.s.Indexes == set &&
		sameRecord(r.s.Item[schema.AttrIndexEntries], record) && indexes.HoldsInline(r.s.Item, inline) {
		return true, nil
	}
	large := r.s.Pending != "" || !actions.FitsOps(1+len(claims)+len(releases), schema.ItemSize(r.s.Item), ops)
	update := store.UpdateInline(r.recordUpdate(set, record, large), inline)
	t := &actions.Transaction{}
	t.Add(r.c.updateAction(r.k, entitystate.Expect(r.s), update), actions.Role{Kind: actions.RoleEntity}, 0)
	actions.AddClaims(t, r.c.names.IndexEntries, claims, releases, entitystate.ExpiresOf(r.s.Item))
	if !large {
		t.Actions = append(t.Actions, actions.Items(ops)...)
		return r.counted(r.c.core.Transact(ctx, t.Actions, commit.NewToken()), ops)
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
		if r.c.indexes.Unique(e.Type, e.IndexName) {
			ops = append(ops, batching.NewGetOp(r.c.names.IndexEntries, indexentries.ClaimOf(e).PrimaryKey()))
		}
	}
	if len(ops) == 0 {
		return emitted, nil, nil
	}
	held, err := r.c.batch.Get(ctx, ops, batching.ReadOptions{Consistent: true})
	if err != nil {
		return nil, nil, err
	}
	var kept []indexentries.Entry
	var claims []indexentries.Claim
	for _, e := range emitted {
		if !r.c.indexes.Unique(e.Type, e.IndexName) {
			kept = append(kept, e)
			continue
		}
		cl := indexentries.ClaimOf(e)
		item, ok := held[batching.ItemID(r.c.names.IndexEntries, cl.PrimaryKey())]
		owner, err := indexentries.ClaimFromItem(item)
		switch {
		case !ok:
			claims = append(claims, cl)
		case err == nil && (owner.Type != e.Type || owner.ID != e.ID):
			r.duplicates = append(r.duplicates, Duplicate{Index: e.IndexName, Value: e.Value.Interface(),
				Entity: r.k, Owner: Key{Scope: owner.Scope, Type: owner.Type, ID: owner.ID}})
			continue
		}
		kept = append(kept, e)
	}
	return kept, claims, nil
}

// recordUpdate sets the entity's index record and index set and bumps its version,
// leaving a pending mark when the entries are written after it.
func (r *reindexing) recordUpdate(set string, record types.AttributeValue, large bool) expression.UpdateBuilder {
	u := expression.Set(expression.Name(schema.AttrIndexEntries), expression.Value(record)).
		Set(expression.Name(schema.AttrToken), expression.Value(str(r.token))).
		Add(expression.Name(schema.AttrVersion), expression.Value(number(1)))
	if set == "" {
		u = u.Remove(expression.Name(schema.AttrIndexes))
	} else {
		u = u.Set(expression.Name(schema.AttrIndexes), expression.Value(str(set)))
	}
	if large {
		u = u.Set(expression.Name(schema.AttrPending), expression.Value(str(r.token)))
	}
	return u
}

// runLarge marks the entity, then reads and writes its entries under the mark, as a
// large write does.
func (r *reindexing) runLarge(ctx context.Context, first []types.TransactWriteItem, emitted []indexentries.Entry) (bool, error) {
	a := r.c.core.Transact(ctx, first, commit.NewToken())
	if done, err := r.counted(a, nil); !done || err != nil {
		return done, err
	}
	stored, err := r.c.readIndexEntries(ctx, r.k)
	if err != nil {
		return true, err
	}
	ops, err := indexes.Ops(r.c.names.IndexEntries, stored, emitted)
	if err != nil {
		return true, err
	}
	g := store.Guard{Key: relationships.Key(r.k), Attr: schema.AttrPending, Token: r.token}
	err = r.c.core.TransactGuarded(ctx, r.c.batch.Shared(), g, ops)
	if errors.Is(err, store.ErrGuardFailed) {
		return true, nil // a writer took over, and reconciles
	}
	if err != nil {
		return true, err
	}
	r.count(ops)
	if _, err := r.c.clearPending(ctx, r.k, r.token); err != nil && !errors.Is(err, store.ErrGuardFailed) {
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
func (c *Client) updateAction(k Key, x entitystate.Expectation, update expression.UpdateBuilder) types.TransactWriteItem {
	b := commit.Build(x.Condition(), &update)
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                           aws.String(c.names.Entities),
		Key:                                 k.item(),
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
