package deletes

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// A Delete sweeps what refers to the entity: its index entries, everything in its
// partition of the relationship entries table (its lists, their heads and markers),
// and the entries of other subjects' lists that point at it. Deleting one of those
// changes that list, so its head (count, digest, version) and the object's marker
// change in the same transaction, by amounts DynamoDB adds without a read. Every
// transaction checks the guard: the entity's tombstone, or for an entity that does
// not exist, that it still does not.

// sweep deletes what refers to k while g holds: the entity's tombstone is there
// (then the item is deleted last), or the entity is missing. When g stops holding,
// the entity has a new life whose entries are its own, and sweep stops. claims are
// released besides those of the index entries found.
func (d *Deleter) sweep(ctx context.Context, k store.Key, g store.Guard, claims []indexentries.Claim) error {
	_, err := d.sweepHolding(ctx, k, g, claims)
	return err
}

// sweepHolding is Sweep, reporting whether g held to the end. A pass that a write
// of the entity's own lists overtook (the writer read the entity before its
// tombstone) is followed by another; only writes already in flight can do that,
// so passes end.
func (d *Deleter) sweepHolding(ctx context.Context, k store.Key, g store.Guard, claims []indexentries.Claim) (bool, error) {
	giveUp := func(_, err error) error {
		return errs.Wrap(err, "the entity's own lists kept changing while it was swept")
	}
	return batching.Attempts(ctx, d.core.ConflictPacer(), giveUp, func(ctx context.Context) (bool, batching.Step, error) {
		held, err := d.sweepPass(ctx, k, g, claims)
		if errors.Is(err, errOwnListWritten) {
			return held, batching.Retry, nil
		}
		return held, batching.Done, err
	})
}

// sweepPass reads what refers to k and deletes it, once.
func (d *Deleter) sweepPass(ctx context.Context, k store.Key, g store.Guard, claims []indexentries.Claim) (bool, error) {
	refs, err := d.references(k)
	if err != nil {
		return false, err
	}
	first, err := d.firstPages(ctx, refs)
	if err != nil {
		return false, err
	}
	var parts []Part
	firstParts := make([][]Part, len(refs))
	more := false
	for i, r := range refs {
		firstParts[i] = r.parts(first[i].Items)
		parts = append(parts, firstParts[i]...)
		more = more || len(first[i].LastEvaluatedKey) > 0
	}
	extra := claimsBeside(claims, parts)
	if len(extra) > 0 {
		parts = append(parts, Part{Releases: extra})
	}
	final, hasFinal := d.deleteAction(g)
	txs := pack(parts, actions.MaxItems-1)
	if g.Absent && (more || len(txs) > 1) {
		return false, errSpansTransactions
	}
	if !more && len(txs) <= 1 {
		var only []Part
		if len(txs) == 1 {
			only = txs[0]
		}
		return d.sweepOnce(ctx, g, final, hasFinal, only)
	}
	batch := d.core.Batch.Shared()
	firstHolds := d.guardCheck(ctx, g) // one read of the guard serves every first page
	err = batching.Parallel(ctx, len(refs)+1, len(refs)+1, func(ctx context.Context, i int) error {
		if i == len(refs) {
			if len(extra) == 0 {
				return nil
			}
			return d.sweepParts(ctx, batch, g, firstHolds, []Part{{Releases: extra}})
		}
		if err := d.sweepParts(ctx, batch, g, firstHolds, firstParts[i]); err != nil {
			return err
		}
		if len(first[i].LastEvaluatedKey) == 0 {
			return nil
		}
		next := *refs[i].query
		next.ExclusiveStartKey = first[i].LastEvaluatedKey
		return d.core.QueryPages(ctx, &next, func(items []map[string]types.AttributeValue) error {
			return d.sweepParts(ctx, batch, g, d.guardCheck(ctx, g), refs[i].parts(items))
		})

	})
	switch {
	case errors.Is(err, store.ErrGuardFailed):
		return false, nil
	case err != nil:
		return false, err
	case !hasFinal:
		return true, nil
	}
	return d.sweepOnce(ctx, g, final, hasFinal, nil)
}

// sweepOnce deletes parts in one transaction: beside the deletion of the entity item
// when the guard is a tombstone (its condition is the guard), beside the guard's
// check otherwise. A guard that no longer holds means the work is done or moot; it
// reports whether the guard held.
func (d *Deleter) sweepOnce(ctx context.Context, g store.Guard, final types.TransactWriteItem, hasFinal bool, parts []Part) (bool, error) {
	switch {
	case len(parts) == 0 && !hasFinal:
		return true, nil
	case len(parts) == 0:
		return true, d.DeleteItem(ctx, final.Delete)
	}
	first := g.Action(d.core.Names.Entities)
	if hasFinal {
		first = final
	}
	err := d.sweepTransaction(ctx, first, parts)
	if errors.Is(err, store.ErrGuardFailed) {
		return false, nil
	}
	return err == nil, err
}

// sweepParts runs parts in parallel transactions, each checking g, beside the
// fenced deletes of set entries, all within batch's bound. More fenced deletes than
// fencedLimit go in the transactions: a transaction takes 99 where a wave of
// requests takes MaxConcurrency.
//
// A fenced delete holds no guard, only the token its entry had when read: it is
// sent once holds, a read of g made after parts were read, finds g holding (one
// consistent GetItem, beside the transactions), so the tokens are of the entity's
// life being swept. Otherwise a sweep reading after the entity was deleted and
// created anew (a Delete cut off and completed by another caller, then a Create)
// would read the new life's tokens, and its deletes would pass their fences.
func (d *Deleter) sweepParts(ctx context.Context, batch *batching.Engine, g store.Guard, holds func() (bool, error), parts []Part) error {
	fenced, parts := takeFenced(parts, fencedWaves*d.core.MaxConcurrency)
	txs := pack(parts, actions.MaxItems-1)
	check := g.Action(d.core.Names.Entities)
	return batching.Parallel(ctx, len(txs)+len(fenced), d.core.MaxConcurrency, func(ctx context.Context, i int) error {
		release, err := batch.Acquire(ctx)
		if err != nil {
			return err
		}
		defer release()
		if i < len(txs) {
			return d.sweepTransaction(ctx, check, txs[i])
		}
		switch held, err := holds(); {
		case err != nil:
			return err
		case !held:
			return store.ErrGuardFailed
		}
		return d.deleteFenced(ctx, fenced[i-len(txs)])
	})
}

// guardCheck returns a read of g, made once, at its first call: the caller calls it
// only after the reads it must follow.
func (d *Deleter) guardCheck(ctx context.Context, g store.Guard) func() (bool, error) {
	return sync.OnceValues(func() (bool, error) { return d.core.GuardHolds(ctx, g) })
}

// fencedWaves bounds the fenced deletes of one page of a sweep, in waves of
// MaxConcurrency requests.
const fencedWaves = 4

// deleteFenced deletes f's entry if it still holds f's token.
func (d *Deleter) deleteFenced(ctx context.Context, f Fenced) error {
	return d.lists.DeleteIfToken(ctx, f.Key, f.Token)
}

// sweepTransaction commits parts after first, the guard. It returns errGuardFailed
// when the guard failed. A list whose head refuses is waited for while another
// writer holds it, and finished first when a writer left it unfinished; a list with
// no head, written before heads existed, has its entries deleted alone. A marker
// that holds other positions than the entries read (the reverse index lags, or a
// writer added some since) is read, and every entry it holds goes.
func (d *Deleter) sweepTransaction(ctx context.Context, first types.TransactWriteItem, parts []Part) error {
	giveUp := func(_, err error) error {
		return errs.Wrap(err, "lists pointing at the entity kept changing, or stayed held by another writer")
	}
	_, err := batching.Attempts(ctx, d.core.ConflictPacer(), giveUp, func(ctx context.Context) (struct{}, batching.Step, error) {
		step, err := d.sweepAttempt(ctx, first, parts)
		return struct{}{}, step, err
	})
	return err
}

// sweepAttempt sends the transaction of parts after first once. A refusal it can
// act on at once (a claim released meanwhile, lists read again) makes the next
// attempt go at once; any other, once acted on, is a race lost.
func (d *Deleter) sweepAttempt(ctx context.Context, first types.TransactWriteItem, parts []Part) (batching.Step, error) {
	t := &actions.Transaction{}
	t.Add(first, actions.Role{Kind: actions.RoleEntity}, 0)
	owner := []int{-1}
	for i, p := range parts {
		for j, act := range d.partActions(p) {
			t.Add(act, partRole(p, j), 0)
			owner = append(owner, i)
		}
	}
	a := d.core.Transact(ctx, t.Actions, commit.NewToken())
	switch {
	case a.Outcome == commit.Committed:
		return batching.Done, nil
	case a.Outcome == commit.ConditionFailed && a.Action == 0:
		return batching.Done, store.ErrGuardFailed
	case a.Outcome != commit.ConditionFailed:
		return batching.Done, a.Err
	}
	p := &parts[owner[a.Action]]
	role := t.Roles[a.Action]
	switch {
	case role.Kind == actions.RoleHead && p.List == nil: // a write of the entity's own list since the read
		return batching.Done, errOwnListWritten
	case role.Kind == actions.RoleClaim: // another entity holds the value by now
		p.Releases = slices.DeleteFunc(p.Releases, func(cl indexentries.Claim) bool { return cl == role.Claim })
		return batching.Again, nil
	case role.Kind == actions.RoleMarker: // paced below: another writer may keep changing it
		if err := d.refreshPart(ctx, p, actions.MaxItems-len(t.Actions)+p.Actions()); err != nil {
			return batching.Done, err
		}
		if p.List == nil && len(p.Deletes) == 0 {
			// The list dropped the entity after the reverse index was read: the
			// index was behind, or a cut-off Delete's requests landed late, and
			// the other lists read with it may be stale too. Reading them all
			// again costs reads where a refusal each would cost the transaction.
			if err := d.refreshParts(ctx, parts); err != nil {
				return batching.Done, err
			}
			return batching.Again, nil
		}
	case role.Kind == actions.RoleHead && a.Item == nil:
		// A list written before heads existed: its entries are deleted alone. The
		// other lists of the transaction are likely as old: their heads are read
		// at once rather than found missing one refusal at a time.
		d.deleteAlone(p)
		if err := d.dropHeadless(ctx, parts); err != nil {
			return batching.Done, err
		}
		return batching.Again, nil
	case role.Kind == actions.RoleHead:
		h, err := relationships.HeadFromItem(p.List.Subject, p.List.Predicate, a.Item)
		if err != nil {
			return batching.Done, err
		}
		if h.Abandoned(d.core.Now()) {
			room := actions.MaxItems - len(t.Actions) + p.Actions()
			if err := d.finishList(ctx, p, h); err != nil {
				return batching.Done, err
			}
			if p.List != nil {
				if err := d.refreshPart(ctx, p, room); err != nil {
					return batching.Done, err
				}
			}
		}
	}
	return batching.Retry, nil
}

// partRole is the role of p's j-th action in a sweep's transaction.
func partRole(p Part, j int) actions.Role {
	if p.List != nil {
		if j < 2 {
			return actions.Role{Kind: [...]actions.RoleKind{actions.RoleHead, actions.RoleMarker}[j]}
		}
		return actions.Role{Kind: actions.RoleEntry}
	}
	j -= len(p.Deletes) + len(p.Fenced)
	switch {
	case j < 0:
		return actions.Role{Kind: actions.RoleEntry}
	case j < len(p.Releases):
		return actions.Role{Kind: actions.RoleClaim, Claim: p.Releases[j]}
	}
	return actions.Role{Kind: actions.RoleHead}
}

// errSpansTransactions stops a sweep guarded by the entity's absence before it
// writes: what is left needs more than one transaction, and a Create landing
// between two of them would take a list half swept as its own (its head gone
// while entries stay, or the reverse), which later writes would build on. Such a
// sweep runs under a tombstone instead (SweepMissing).
var errSpansTransactions = errors.New("ryno: the sweep of a missing entity spans transactions")

// errOwnListWritten stops a pass of a sweep: a write of one of the entity's own
// lists committed after the sweep read it (its head's version moved), so the
// pass missed what it wrote. The sweep reads again.
var errOwnListWritten = errors.New("ryno: a list of the entity was written during its sweep")

// partActions returns the transaction actions of p.
func (d *Deleter) partActions(p Part) []types.TransactWriteItem {
	if p.List == nil {
		acts := actions.Items(p.Deletes)
		for _, f := range p.Fenced {
			acts = append(acts, types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(d.core.Names.Relationships), Key: f.Key}})
		}
		for _, cl := range p.Releases {
			acts = append(acts, actions.Release(d.core.Names.IndexEntries, cl))
		}
		for _, h := range p.Heads {
			acts = append(acts, d.core.OwnHeadDelete(h))
		}
		return acts
	}
	ch := *p.List
	head := actions.Head(d.core.Names.Relationships, ch)
	object := ch.Deletes[0].Object
	positions := make([]int, len(ch.Deletes))
	for i, e := range ch.Deletes {
		positions[i] = e.Index
	}
	key := relationships.MarkerPrimaryKey(ch.Subject, ch.Predicate, object)
	set := expression.Value(relationships.PositionSet(positions))
	var marker types.TransactWriteItem
	if p.Partial {
		// Each position must still be there: another part of the same list, or a
		// writer since the read, may have taken it out already.
		u := expression.Delete(expression.Name(schema.AttrPositions), set)
		b := commit.Build(holdsPositions(positions), &u)
		marker.Update = &types.Update{TableName: aws.String(d.core.Names.Relationships), Key: key,
			UpdateExpression: b.Update, ConditionExpression: b.Condition,
			ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values}
	} else {
		b := commit.Build(expression.Name(schema.AttrPositions).Equal(set), nil)
		marker.Delete = &types.Delete{TableName: aws.String(d.core.Names.Relationships), Key: key,
			ConditionExpression: b.Condition, ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values}
	}
	acts := []types.TransactWriteItem{head, marker}
	return append(acts, actions.Items(actions.RelationshipOps(d.core.Names.Relationships, nil, relationships.Plan{Deletes: ch.Deletes}))...)
}

// entryNames are the attributes of an index entry that name its value.
var entryNames = []string{schema.AttrScope, schema.AttrType, schema.AttrID, schema.AttrIndexName, schema.AttrIndexKey}

// DeleteItem deletes the entity item under the condition of del, a transaction's
// deletion of it: alone, it needs no transaction. A condition that fails means
// another caller completed the Delete.
func (d *Deleter) DeleteItem(ctx context.Context, del *types.Delete) error {
	in := &dynamodb.DeleteItemInput{
		TableName:                 del.TableName,
		Key:                       del.Key,
		ConditionExpression:       del.ConditionExpression,
		ExpressionAttributeNames:  del.ExpressionAttributeNames,
		ExpressionAttributeValues: del.ExpressionAttributeValues,
	}
	send := func(ctx context.Context) commit.Attempt {
		_, err := d.core.API.DeleteItem(ctx, in, commit.NoSDKRetry)
		return commit.Classify(err)
	}
	a := d.core.Settle(ctx, send, send) // deleting again is safe
	if a.Outcome == commit.Committed || a.Outcome == commit.ConditionFailed {
		return nil
	}
	return a.Err
}

// deleteAction is the deletion of the entity item under its tombstone; none for a
// guard of a missing entity.
func (d *Deleter) deleteAction(g store.Guard) (types.TransactWriteItem, bool) {
	if g.Absent {
		return types.TransactWriteItem{}, false
	}
	b := commit.Build(expression.Name(g.Attr).Equal(expression.Value(store.AttrS(g.Token))), nil)
	return types.TransactWriteItem{Delete: &types.Delete{
		TableName:                 aws.String(d.core.Names.Entities),
		Key:                       actions.EntityKey(g.Key),
		ConditionExpression:       b.Condition,
		ExpressionAttributeNames:  b.Names,
		ExpressionAttributeValues: b.Values,
	}}, true
}
