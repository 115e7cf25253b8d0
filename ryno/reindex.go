package ryno

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/tables"
)

// ReindexProgress counts what a Reindex has done so far.
type ReindexProgress struct {
	Entities int // entities whose entries were recomputed
	Puts     int // index entries written
	Deletes  int // index entries deleted
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
func (c *Client) Reindex(ctx context.Context, scope, typ string, progress func(ReindexProgress)) (ReindexProgress, error) {
	var done ReindexProgress
	q, err := c.byTypeQuery(scope, typ)
	if err != nil {
		return done, err
	}
	in := *q.in
	in.Limit = aws.Int32(reindexPage)
	err = c.queryPages(ctx, &in, func(items []map[string]types.AttributeValue) error {
		puts, deletes, err := c.reindexPage(ctx, items)
		if err != nil {
			return err
		}
		done.Entities += len(items)
		done.Puts += puts
		done.Deletes += deletes
		if progress != nil {
			progress(done)
		}
		return nil
	})
	if err != nil {
		return done, fmt.Errorf("ryno: reindex %s: %w", tables.ScopeTypeKey(scope, typ), err)
	}
	return done, nil
}

// reindexPage repairs the entries of the entities stored as items, in parallel.
func (c *Client) reindexPage(ctx context.Context, items []map[string]types.AttributeValue) (puts, deletes int, err error) {
	counts := make([][2]int, len(items))
	err = parallel(ctx, len(items), c.opts.MaxConcurrency, func(ctx context.Context, i int) error {
		var err error
		counts[i][0], counts[i][1], err = c.reindexEntity(ctx, items[i])
		return err
	})
	for _, n := range counts {
		puts += n[0]
		deletes += n[1]
	}
	return puts, deletes, err
}

// reindexEntity brings the index entries of the entity listed as item in line with
// the indexes registered now, as a write of the entity does: the entries are read,
// and the difference commits with the entity's new record (and version, not its
// Updated time) under the condition that the entity is still as read. The listing is
// eventually consistent: when the condition fails, the entity is read again. An
// entity deleted meanwhile is skipped.
func (c *Client) reindexEntity(ctx context.Context, item map[string]types.AttributeValue) (puts, deletes int, err error) {
	k, err := itemKey(item)
	if err != nil {
		return 0, 0, err
	}
	pace := c.conflictPacer()
	for {
		s, err := readStored(k, item)
		if err != nil || !s.live() {
			return 0, 0, err
		}
		r := &reindexing{c: c, k: k, s: s, token: newToken()}
		done, err := r.run(ctx)
		if done || err != nil {
			return r.puts, r.deletes, err
		}
		if err := pace.wait(ctx); err != nil {
			return 0, 0, fmt.Errorf("ryno: reindex %s: %w", k, err)
		}
		if item, err = c.getItem(ctx, k, true); err != nil {
			return 0, 0, err
		}
	}
}

// reindexing is the reindex of one entity stored as s.
type reindexing struct {
	c             *Client
	k             Key
	s             stored
	token         string
	puts, deletes int
}

// run commits the entries the entity emits now, and its record. It reports false
// when the entity changed since it was read.
func (r *reindexing) run(ctx context.Context) (bool, error) {
	emitted, err := r.c.indexes.emitEntries(r.s.item, r.s.created, timeOf(r.s.item[tables.AttrUpdated]))
	if err != nil {
		return true, fmt.Errorf("%s: %w", r.k, err)
	}
	stored, err := r.c.readIndexEntries(ctx, r.k)
	if err != nil {
		return true, err
	}
	ops, err := indexOps(r.c.names.IndexEntries, stored, emitted)
	if err != nil {
		return true, err
	}
	set := r.c.indexes.set(r.k.Type)
	record := indexRecord(emitted)
	if len(ops) == 0 && r.s.pending == "" && r.s.indexes == set && sameRecord(r.s.item[tables.AttrIndexEntries], record) {
		return true, nil
	}
	large := r.s.pending != "" || !fitsTransaction(1, tables.ItemSize(r.s.item), ops)
	update := r.recordUpdate(set, record, large)
	x := expect(r.s)
	if !large {
		actions := append([]types.TransactWriteItem{r.c.updateAction(r.k, x, update)}, transactItems(ops)...)
		a := r.c.transact(ctx, actions, newToken())
		return r.counted(a, ops)
	}
	return r.runLarge(ctx, x, update, emitted)
}

// recordUpdate sets the entity's index record and index set and bumps its version,
// leaving a pending mark when the entries are written after it.
func (r *reindexing) recordUpdate(set string, record types.AttributeValue, large bool) expression.UpdateBuilder {
	u := expression.Set(expression.Name(tables.AttrIndexEntries), expression.Value(record)).
		Set(expression.Name(tables.AttrToken), expression.Value(str(r.token))).
		Add(expression.Name(tables.AttrVersion), expression.Value(number(1)))
	if set == "" {
		u = u.Remove(expression.Name(tables.AttrIndexes))
	} else {
		u = u.Set(expression.Name(tables.AttrIndexes), expression.Value(str(set)))
	}
	if large {
		u = u.Set(expression.Name(tables.AttrPending), expression.Value(str(r.token)))
	}
	return u
}

// runLarge marks the entity, then reads and writes its entries under the mark, as a
// large write does.
func (r *reindexing) runLarge(ctx context.Context, x expectation, update expression.UpdateBuilder, emitted []indexing.Entry) (bool, error) {
	a := r.c.transact(ctx, []types.TransactWriteItem{r.c.updateAction(r.k, x, update)}, newToken())
	if done, err := r.counted(a, nil); !done || err != nil {
		return done, err
	}
	stored, err := r.c.readIndexEntries(ctx, r.k)
	if err != nil {
		return true, err
	}
	ops, err := indexOps(r.c.names.IndexEntries, stored, emitted)
	if err != nil {
		return true, err
	}
	g := guard{key: r.k, attr: tables.AttrPending, token: r.token}
	err = r.c.transactGuarded(ctx, r.c.batch.shared(), g, ops)
	if errors.Is(err, errGuardFailed) {
		return true, nil // a writer took over, and reconciles
	}
	if err != nil {
		return true, err
	}
	r.count(ops)
	if _, err := r.c.clearPending(ctx, r.k, r.token); err != nil && !errors.Is(err, errGuardFailed) {
		return true, err
	}
	return true, nil
}

// counted counts ops when a committed; it reports false when the entity's
// condition failed.
func (r *reindexing) counted(a attempt, ops []writeOp) (bool, error) {
	switch {
	case a.outcome == committed:
		r.count(ops)
		return true, nil
	case a.outcome == conditionFailed && a.action == 0:
		return false, nil
	}
	return true, a.err
}

func (r *reindexing) count(ops []writeOp) {
	for _, op := range ops {
		if op.item != nil {
			r.puts++
		} else {
			r.deletes++
		}
	}
}

// updateAction is the transaction action updating the entity k under the condition
// of x.
func (c *Client) updateAction(k Key, x expectation, update expression.UpdateBuilder) types.TransactWriteItem {
	b := build(x.condition(), &update)
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                           aws.String(c.names.Entities),
		Key:                                 k.item(),
		UpdateExpression:                    b.update,
		ConditionExpression:                 b.condition,
		ExpressionAttributeNames:            b.names,
		ExpressionAttributeValues:           b.values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}
}

// itemKey returns the key of the entity stored as item.
func itemKey(item map[string]types.AttributeValue) (Key, error) {
	var k Key
	var err error
	if k.Scope, err = stringValue(tables.AttrScope, item[tables.AttrScope]); err != nil {
		return k, err
	}
	if k.Type, err = stringValue(tables.AttrType, item[tables.AttrType]); err != nil {
		return k, err
	}
	k.ID, err = stringValue(tables.AttrID, item[tables.AttrID])
	return k, err
}

// timeOf decodes a stored timestamp; the zero time when it is missing or malformed.
func timeOf(av types.AttributeValue) time.Time {
	t, _ := timeValue("", av)
	return t
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
