package writes

import (
	"context"
	"errors"
	"maps"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/indexes"
	"github.com/rynodb/rynodb/internal/lists"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// commitLarge writes a change too large for one transaction. It puts the entity
// under its condition with a pending mark (its token), then writes the index entry
// changes in transactions that each check the mark is still its own, and finally
// removes the mark, bumping the version.
//
// A writer that finds a mark takes this path too: its put replaces the mark, after
// which no chunk of the former writer can commit, and it reads the entries again to
// diff against what that writer left. So a write cut off half-way is completed by the
// next, and a writer superseded half-way stops: its successor saw what it wrote.
// Each list the entity carries is then replaced as ReplaceRelationships does, beside
// the entries. When a step after the put fails, the result holds the entity as
// stored beside the error (see Write).
func (w *write) commitLarge(ctx context.Context, p *putPlan) (commitResult, error) {
	item := maps.Clone(p.item)
	item[schema.AttrPending] = store.AttrS(w.token)
	item[schema.AttrPendingUntil] = store.AttrN(w.c.core.PendingUntil())
	r, err := w.putMarked(ctx, p, item)
	if r.stored == nil || err != nil {
		return r, err
	}
	written := r.stored
	entryOps := p.entryOps
	if p.x.Pending && w.entryIndexed() {
		stored, err := w.c.core.ReadIndexEntries(ctx, w.Key)
		if err != nil {
			return commitResult{stored: written}, err
		}
		if entryOps, err = indexes.Ops(w.c.core.Names.IndexEntries, stored, p.entries); err != nil {
			return commitResult{stored: written}, err
		}
	}
	batch := w.c.core.Batch.Shared()
	g := store.Guard{Key: w.Key, Attr: schema.AttrPending, Token: w.token}
	err = batching.Parallel(ctx, len(p.lists)+1, len(p.lists)+1, func(ctx context.Context, i int) error {
		if i == 0 {
			return w.c.core.TransactGuarded(ctx, batch, g, entryOps)
		}
		ch := p.lists[i-1]
		op := lists.Op{Kind: lists.Replace, Subject: w.Key, Predicate: ch.Predicate,
			Objects: w.Lists[ch.Predicate], CheckObjects: w.c.core.CheckObjects}
		_, err := w.c.lists.WriteList(ctx, op)
		return err
	})
	switch {
	case errors.Is(err, store.ErrGuardFailed):
		return commitResult{stored: written}, nil // superseded: the next writer reconciles
	case err != nil:
		return commitResult{stored: written}, err
	}
	cleared, err := w.c.core.ClearPending(ctx, w.Key, w.token)
	switch {
	case errors.Is(err, store.ErrGuardFailed):
		return commitResult{stored: written}, nil
	case err != nil:
		return commitResult{stored: written}, err
	}
	return commitResult{stored: cleared}, nil
}

// putMarked puts the entity marked as item, with the claims and releases of its
// unique values in the same transaction when it has any: a value is never held
// without the entity holding it.
func (w *write) putMarked(ctx context.Context, p *putPlan, item map[string]types.AttributeValue) (commitResult, error) {
	if len(p.claims)+len(p.releases) == 0 {
		return w.result(w.c.core.PutItem(ctx, w.Key, item, p.x, w.token), p)
	}
	t := &actions.Transaction{}
	t.Add(w.c.core.PutAction(item, p.x), actions.Role{Kind: actions.RoleEntity}, schema.ItemSize(item))
	actions.AddClaims(t, w.c.core.Names.IndexEntries, p.claims, p.releases, entitystate.ExpiresOf(item))
	a := w.c.core.Transact(ctx, t.Actions, commit.NewToken())
	if a.Outcome == commit.ConditionFailed && a.Action > 0 {
		return w.claimRefused(ctx, t.Roles[a.Action].Claim, a.Item)
	}
	r, err := w.result(a, p)
	if r.stored != nil {
		r.stored = item
	}
	return r, err
}
