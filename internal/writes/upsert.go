package writes

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/indexes"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// A Set or Update without a version need not know what is stored to replace it,
// only that nothing of the stored item would survive the write: every item records
// its shape, a digest of the names of its attributes and metadata. The write is then
// one UpdateItem that sets every attribute, keeps Created, bumps the version, and is
// conditioned on a stored item of the same shape (or none, for a Set) that no other
// write marks, and whose _created is in the store's layout (one another program
// wrote in another is put anew). Otherwise its condition returns the stored item, and the write goes
// on from it as after any refusal. Entities with index entries, and writes with
// lists or a condition, read what they replace first. Inline indexes are set by the
// upsert itself when their map functions use neither the version nor Created, which
// it learns only as it lands.

// maxUpsertExpression bounds the update expression of an upsert, below DynamoDB's
// 4 KB: an entity with more attribute names is put after a read instead.
const maxUpsertExpression = 3500

// upsertInput returns the UpdateItem of a write that needs no read, or nil. It
// replaces an item of its own shape, or of any other shape the client remembers for
// the type, as many of them as the expression has room for, the most recent first.
func (w *write) upsertInput() *dynamodb.UpdateItemInput {
	if w.Mode == PutCreate || w.Version > 0 || !w.Created.IsZero() || w.entryIndexed() || len(w.predicates) > 0 || w.Cond != nil ||
		w.Restore != nil { // an UpdateItem sets the clock's times
		return nil
	}
	inline, ok := w.inlineWithoutVersion()
	if !ok {
		return nil
	}
	ours := store.ShapeOf(w.Base)
	others := w.c.core.Shapes.Others(w.Key.Type, ours)
	for n := len(others); n >= 0; n-- {
		if in := w.upsertOver(inline, ours, others[:n]); in != nil {
			return in
		}
	}
	return nil
}

// upsertOver returns the UpdateItem of an upsert replacing an item of the write's
// shape (ours) or of one of others, or nil when its expression would be too large.
func (w *write) upsertOver(inline map[string]types.AttributeValue, ours string, others []store.Shape) *dynamodb.UpdateItemInput {
	now := store.AttrS(schema.FormatTime(w.now))
	created := expression.Name(schema.AttrCreated)
	version := expression.Name(schema.AttrVersion)
	u := expression.Set(created, expression.IfNotExists(created, expression.Value(now))).
		Set(version, expression.Plus(expression.IfNotExists(version, expression.Value(store.AttrN(0))), expression.Value(store.AttrN(1)))).
		Set(expression.Name(schema.AttrToken), expression.Value(store.AttrS(w.token))).
		Set(expression.Name(schema.AttrShape), expression.Value(store.AttrS(ours)))
	u = w.c.core.UpdateByType(u, w.Key, now.Value)
	if w.indexed() { // inline indexes only: the record of no entry, as a put writes it
		u = u.Set(expression.Name(schema.AttrIndexEntries), expression.Value(indexes.Record(nil)))
	} else {
		u = u.Remove(expression.Name(schema.AttrIndexEntries))
	}
	u = store.UpdateInline(u, inline)
	if w.mine != "" {
		u = u.Set(expression.Name(schema.AttrIndexes), expression.Value(store.AttrS(w.mine)))
	}
	var a aliases
	key := actions.EntityKey(w.Key)
	for _, name := range slices.Sorted(maps.Keys(w.Base)) {
		if _, isKey := key[name]; !isKey {
			u = u.Set(a.name(name), expression.Value(w.Base[name]))
		}
	}
	var digests []expression.OperandBuilder
	removed := map[string]bool{}
	for _, sh := range others {
		digests = append(digests, expression.Value(store.AttrS(sh.Digest)))
		for _, name := range sh.Names {
			if _, set := w.Base[name]; !set && !removed[name] {
				removed[name] = true
				u = u.Remove(a.name(name))
			}
		}
	}
	same := expression.Name(schema.AttrShape).In(expression.Value(store.AttrS(ours)), digests...).
		And(expression.AttributeNotExists(expression.Name(schema.AttrPending)),
			expression.AttributeNotExists(expression.Name(schema.AttrDeleting)),
			actions.NotExpired(w.now),
			actions.CreatedInLayout(), // another layout is put anew after a read
			indexSetIsOrNone(w.mine),
			// Sent again after a lost response, it finds its own write and stops.
			expression.Name(schema.AttrToken).NotEqual(expression.Value(store.AttrS(w.token))))
	cond := expression.AttributeNotExists(expression.Name(schema.AttrID)).Or(same)
	if w.Mode == PutUpdate {
		cond = expression.AttributeExists(expression.Name(schema.AttrID)).And(same)
	}
	b := commit.Build(cond, &u)
	if len(*b.Update)+len(*b.Condition) > maxUpsertExpression {
		return nil
	}
	a.resolve(b.Names)
	return w.c.core.EntityUpdate(w.Key, b)
}

// inlineWithoutVersion returns the inline attributes of the entity written by an
// upsert, which learns its version and Created time only as it lands. A map
// function is deterministic, so one that emits the same values for two versions and
// two creation times uses neither; otherwise ok is false and the write reads first.
func (w *write) inlineWithoutVersion() (attrs map[string]types.AttributeValue, ok bool) {
	if !w.indexed() {
		return nil, true
	}
	emit := func(version int64, created time.Time) (map[string]types.AttributeValue, error) {
		item := maps.Clone(w.Base)
		item[schema.AttrVersion] = store.AttrN(version)
		emitted, err := w.c.core.Indexes.Emit(item, created, w.now)
		if err != nil {
			return nil, err
		}
		attrs, _, err := w.c.core.Indexes.InlineSplit(w.Key.Type, emitted)
		return attrs, err
	}
	first, err := emit(1, w.now)
	if err != nil {
		return nil, false // the put reports it
	}
	second, err := emit(1<<40, time.Unix(0, 0).UTC())
	if err != nil || !maps.EqualFunc(first, second, indexes.SameValue) {
		return nil, false
	}
	return first, true
}

// indexSetIsOrNone is the condition that the stored item records the index set
// mine, or none: what an upsert may replace.
func indexSetIsOrNone(mine string) expression.ConditionBuilder {
	none := expression.AttributeNotExists(expression.Name(schema.AttrIndexes))
	if mine == "" {
		return none
	}
	return none.Or(entitystate.IndexSetIs(mine))
}

// upsert sends in. It returns the item as stored, or the expectation a put must
// meet next, decided from the item that refused it.
func (w *write) upsert(ctx context.Context, in *dynamodb.UpdateItemInput) (map[string]types.AttributeValue, entitystate.Expectation, error) {
	send := w.c.core.UpdateSend(in)
	a := w.c.core.Settle(ctx, send, send)
	switch a.Outcome {
	case commit.Committed: // Write learns the shape written
		return a.Item, entitystate.Expectation{}, nil
	case commit.ConditionFailed:
		w.c.core.Shapes.LearnStored(w.Key.Type, a.Item)
		x, done, err := w.decideFromItem(ctx, a.Item)
		return done, x, err
	}
	return nil, entitystate.Expectation{}, errs.Wrap(a.Err, "%s %s", w.Mode, w.Key)
}
