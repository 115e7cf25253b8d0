package maintenance

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/check"
	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// repair is a transaction deleting orphans, each only while the entity it misses is
// still missing: a condition check per missing entity, a delete per orphan.
type repair struct {
	orphans []orphan
	missing []store.Key // distinct, in order of first appearance
}

// actions returns the actions of the transaction: the condition checks of missing,
// then the deletes of orphans, so that a cancellation reason at index i < len(missing)
// is about missing[i].
func (r repair) actions(names schema.Names) []types.TransactWriteItem {
	acts := make([]types.TransactWriteItem, 0, len(r.missing)+len(r.orphans))
	for _, k := range r.missing {
		acts = append(acts, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName:                aws.String(names.Entities),
			Key:                      actions.EntityKey(k),
			ConditionExpression:      aws.String("attribute_not_exists(#id)"),
			ExpressionAttributeNames: map[string]string{"#id": schema.AttrID},
		}})
	}
	for _, o := range r.orphans {
		acts = append(acts, types.TransactWriteItem{Delete: &types.Delete{
			TableName: aws.String(o.Entry.Table),
			Key:       o.Entry.Key,
		}})
	}
	return acts
}

// without returns r without the orphans missing an entity in alive.
func (r repair) without(alive map[store.Key]bool) repair {
	var out repair
	for _, k := range r.missing {
		if !alive[k] {
			out.missing = append(out.missing, k)
		}
	}
	for _, o := range r.orphans {
		if !alive[o.Missing] {
			out.orphans = append(out.orphans, o)
		}
	}
	return out
}

// planRepairs groups orphans that name their missing entity into transactions within
// DynamoDB's limit. Orphans of one entity share its condition check.
func planRepairs(orphans []orphan) []repair {
	var plans []repair
	var cur repair
	seen := map[store.Key]bool{}
	for _, o := range orphans {
		need := 1
		if !seen[o.Missing] {
			need++
		}
		if len(cur.orphans)+len(cur.missing)+need > actions.MaxItems {
			plans = append(plans, cur)
			cur, seen = repair{}, map[store.Key]bool{}
		}
		if !seen[o.Missing] {
			seen[o.Missing] = true
			cur.missing = append(cur.missing, o.Missing)
		}
		cur.orphans = append(cur.orphans, o)
	}
	if len(cur.orphans) > 0 {
		plans = append(plans, cur)
	}
	return plans
}

// repairOrphans deletes orphans and returns how many it deleted and how many it kept
// because the entity they missed exists by now. What refers to each missing entity
// is swept as a Delete of it sweeps, under the condition that it stays missing, so
// lists keep exact heads and markers and an entity created meanwhile keeps its
// entries; an entity being deleted has its Delete completed. Claims whose owner is
// missing are deleted in transactions that check it still is; claims their owner no
// longer holds are released unless it took the value back; malformed entries, which
// name no entity, are deleted as they are.
func (m *Maintainer) repairOrphans(ctx context.Context, run *checkRun, orphans []orphan) (deleted, kept int, err error) {
	var malformed, unheld, claims []orphan
	byEntity := map[store.Key]int{}
	var missing []orphan // one per missing entity
	for _, o := range orphans {
		switch {
		case o.Missing == (store.Key{}):
			malformed = append(malformed, o)
		case o.Role == check.RoleClaimed:
			unheld = append(unheld, o)
		case o.item:
			claims = append(claims, o)
		default:
			if byEntity[o.Missing] == 0 {
				missing = append(missing, o)
			}
			byEntity[o.Missing]++
		}
	}
	batch := run.batch
	if err := batch.Write(ctx, orphanDeletes(malformed)); err != nil {
		return 0, 0, err
	}
	deleted = len(malformed)
	released, err := m.releaseUnheld(ctx, batch, unheld)
	deleted, kept = deleted+released, len(unheld)-released
	if err != nil {
		return deleted, kept, err
	}
	unindexed, err := m.indexOrphans(ctx, orphans)
	if err != nil {
		return deleted, kept, err
	}
	var mu sync.Mutex
	swept := map[store.Key]bool{}
	err = batching.Parallel(ctx, len(missing), m.core.MaxConcurrency, func(ctx context.Context, i int) error {
		k := missing[i].Missing
		gone, err := m.sweepMissing(ctx, k, missing[i].stored)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err != nil:
			return errs.Wrap(err, "delete what refers to %s", k)
		case gone:
			deleted += byEntity[k]
			swept[k] = true
		default:
			kept += byEntity[k]
		}
		return nil
	})
	if err != nil {
		return deleted, kept, err
	}
	// Entries counted deleted that a sweep missed are left for the next check,
	// neither deleted nor kept: the run then reports orphans left behind.
	var counted []batching.ItemKey
	for _, o := range unindexed {
		if swept[o.Missing] {
			counted = append(counted, o.Entry)
		}
	}
	left, err := m.stillThere(ctx, batch, counted)
	deleted -= left
	if err != nil {
		return deleted, kept, err
	}
	d, k, err := m.repairClaims(ctx, batch, claims)
	return deleted + d, kept + k, err
}

// indexOrphans writes the _reverse_key of each orphan entry written without it,
// so that the sweep of its missing object finds it, and returns those orphans. It
// goes before the sweeps; the reverse index is eventually consistent, so
// stillThere counts those a sweep missed all the same.
func (m *Maintainer) indexOrphans(ctx context.Context, orphans []orphan) ([]orphan, error) {
	var entries []unindexedEntry
	var unindexed []orphan
	for _, o := range orphans {
		if o.unindexed != nil { // an orphan of a missing entity, as findOrphans sets it
			entries = append(entries, unindexedEntry{entry: *o.unindexed, trace: check.Trace{Kind: check.TraceUnindexed, Key: o.unindexed.Subject}})
			unindexed = append(unindexed, o)
		}
	}
	_, err := m.repairUnindexed(ctx, entries)
	return unindexed, err
}

// stillThere reads keys consistently and returns how many are still there: orphans
// a sweep missed, left for the next check, which finds them indexed.
func (m *Maintainer) stillThere(ctx context.Context, batch *batching.Engine, keys []batching.ItemKey) (int, error) {
	ops := make([]batching.GetOp, len(keys))
	for i, k := range keys {
		ops[i] = batching.NewGetOp(k.Table, k.Key)
	}
	found, err := batch.Get(ctx, ops, batching.ReadOptions{Consistent: true, Projection: schema.RelationshipKeyAttrs()})
	return len(found), err
}

// sweepMissing deletes what refers to the entity k, which Check read as item
// (missing, or being deleted), and reports whether it is gone: false when it exists
// by now. Both sweeps are conditional on what Check read: the Delete's tombstone,
// or the entity's absence.
func (m *Maintainer) sweepMissing(ctx context.Context, k store.Key, item map[string]types.AttributeValue) (bool, error) {
	s, err := m.core.ReadStored(k, item)
	switch {
	case err != nil:
		return false, err
	case s.Ending():
		return true, m.deletes.CompleteDelete(ctx, k, s)
	}
	return m.deletes.SweepMissing(ctx, k)
}

// repairClaims deletes claims whose owner is missing, each only while it still is.
func (m *Maintainer) repairClaims(ctx context.Context, batch *batching.Engine, orphans []orphan) (deleted, kept int, err error) {
	plans := planRepairs(orphans)
	var mu sync.Mutex
	var failed batching.Failures
	batching.InParallel(ctx, len(plans), m.core.MaxConcurrency, false, func(ctx context.Context, i int) error {
		left, err := m.runRepair(ctx, batch, plans[i])
		mu.Lock()
		defer mu.Unlock()
		kept += len(plans[i].orphans) - len(left.orphans)
		if err != nil {
			failed.Add(orphanEntries(left.orphans), err)
			return err
		}
		deleted += len(left.orphans)
		return nil
	})
	return deleted, kept, failed.Err("TransactWriteItems")
}

// runRepair sends the transaction of r through the batch engine's retry loop until
// it succeeds, dropping the orphans whose entity a cancellation shows to exist, and
// returns what it sent last: the orphans it deleted, or on failure those it could not
// delete. Cancellations for conflicts or throttling are retried with backoff.
func (m *Maintainer) runRepair(ctx context.Context, batch *batching.Engine, r repair) (repair, error) {
	_, err := batching.UntilDone(ctx, batch, r.orphans, func(ctx context.Context, _ []orphan) ([]orphan, error) {
		_, err := m.core.API.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: r.actions(m.core.Names)})
		canceled, ok := batching.Cancelled(err)
		if err == nil || !ok {
			return nil, err
		}
		switch alive := r.alive(canceled); {
		case len(alive) > 0:
			r = r.without(alive)
			return r.orphans, nil
		case canceled.Fatal < 0:
			return r.orphans, &batching.RetryLater{Err: err}
		}
		return nil, err
	})
	return r, err // r holds the orphans of the last transaction: deleted, or not on failure
}

// alive returns the missing entities of a cancelled repair whose condition check
// failed: they exist by now.
func (r repair) alive(c batching.Cancellation) map[store.Key]bool {
	alive := map[store.Key]bool{}
	for _, i := range c.Failed {
		if i < len(r.missing) {
			alive[r.missing[i]] = true
		}
	}
	return alive
}

func orphanEntries(orphans []orphan) []batching.ItemKey {
	keys := make([]batching.ItemKey, len(orphans))
	for i, o := range orphans {
		keys[i] = o.Entry
	}
	return keys
}

func orphanDeletes(orphans []orphan) []batching.WriteOp {
	ops := make([]batching.WriteOp, len(orphans))
	for i, o := range orphans {
		ops[i] = batching.DeleteOp(o.Entry.Table, o.Entry.Key)
	}
	return ops
}

// releaseUnheld deletes claims whose entity holds no entry of their value, each in a
// transaction checking that the entry is still missing, that the entity does not
// record the value, and that the claim is still the entity's: an entity that took
// the value back meanwhile keeps its claim. It returns
// how many it deleted.
func (m *Maintainer) releaseUnheld(ctx context.Context, batch *batching.Engine, orphans []orphan) (int, error) {
	var mu sync.Mutex
	released := 0
	err := batching.Parallel(ctx, len(orphans), m.core.MaxConcurrency, func(ctx context.Context, i int) error {
		release, err := batch.Acquire(ctx)
		if err != nil {
			return err
		}
		defer release()
		cl := orphans[i].claim
		missing := commit.Build(expression.AttributeNotExists(expression.Name(schema.AttrSubjectKey)), nil)
		// The owner must not record the value either: a write cut off records what
		// it claimed before it writes the entries.
		record := expression.NameNoDotSplit(schema.AttrIndexEntries).AppendName(expression.NameNoDotSplit(cl.IndexName))
		unrecorded := commit.Build(expression.AttributeNotExists(expression.Name(schema.AttrID)).
			Or(expression.Not(expression.Contains(record, cl.Value.Encoding()))), nil)
		owner := store.Key{Scope: cl.Scope, Type: cl.Type, ID: cl.ID}
		a := m.core.Transact(ctx, []types.TransactWriteItem{
			{ConditionCheck: &types.ConditionCheck{
				TableName: aws.String(m.core.Names.IndexEntries), Key: cl.Entry().PrimaryKey(),
				ConditionExpression: missing.Condition, ExpressionAttributeNames: missing.Names,
			}},
			{ConditionCheck: &types.ConditionCheck{
				TableName: aws.String(m.core.Names.Entities), Key: actions.EntityKey(owner),
				ConditionExpression: unrecorded.Condition, ExpressionAttributeNames: unrecorded.Names,
				ExpressionAttributeValues: unrecorded.Values,
			}},
			actions.Release(m.core.Names.IndexEntries, cl),
		}, commit.NewToken())

		switch {
		case a.Outcome == commit.Committed:
			mu.Lock()
			released++
			mu.Unlock()
		case a.Outcome != commit.ConditionFailed:
			return a.Err
		}
		return nil
	})
	return released, err
}
