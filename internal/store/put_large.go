package store

import (
	"context"
	"errors"
	"maps"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/indexes"
	"github.com/rynodb/rynodb/internal/schema"
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
	item[schema.AttrPending] = attrS(w.token)
	item[schema.AttrPendingUntil] = attrN(w.c.pendingUntil())
	r, err := w.putMarked(ctx, p, item)
	if r.stored == nil || err != nil {
		return r, err
	}
	written := r.stored
	entryOps := p.entryOps
	if p.x.Pending && w.entryIndexed() {
		stored, err := w.c.ReadIndexEntries(ctx, w.Key)
		if err != nil {
			return commitResult{stored: written}, err
		}
		if entryOps, err = indexes.Ops(w.c.Names.IndexEntries, stored, p.entries); err != nil {
			return commitResult{stored: written}, err
		}
	}
	batch := w.c.Batch.Shared()
	g := Guard{Key: w.Key, Attr: schema.AttrPending, Token: w.token}
	err = batching.Parallel(ctx, len(p.lists)+1, len(p.lists)+1, func(ctx context.Context, i int) error {
		if i == 0 {
			return w.c.TransactGuarded(ctx, batch, g, entryOps)
		}
		ch := p.lists[i-1]
		op := ListOp{Kind: ListReplace, Subject: w.Key, Predicate: ch.Predicate,
			Objects: w.Lists[ch.Predicate], CheckObjects: w.c.CheckObjects}
		_, err := w.c.WriteList(ctx, op)
		return err
	})
	switch {
	case errors.Is(err, ErrGuardFailed):
		return commitResult{stored: written}, nil // superseded: the next writer reconciles
	case err != nil:
		return commitResult{stored: written}, err
	}
	cleared, err := w.c.ClearPending(ctx, w.Key, w.token)
	switch {
	case errors.Is(err, ErrGuardFailed):
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
		return w.result(w.c.PutItem(ctx, w.Key, item, p.x, w.token), p)
	}
	t := &actions.Transaction{}
	t.Add(w.c.PutAction(item, p.x), actions.Role{Kind: actions.RoleEntity}, schema.ItemSize(item))
	actions.AddClaims(t, w.c.Names.IndexEntries, p.claims, p.releases, entitystate.ExpiresOf(item))
	a := w.c.Transact(ctx, t.Actions, commit.NewToken())
	if a.Outcome == commit.ConditionFailed && a.Action > 0 {
		return w.claimRefused(ctx, t.Roles[a.Action].Claim, a.Item)
	}
	r, err := w.result(a, p)
	if r.stored != nil {
		r.stored = item
	}
	return r, err
}

// pendingUntil is the lease of a pending mark put now: when the writer putting it
// is taken for gone.
func (c *Core) pendingUntil() int64 { return c.Now().Add(c.ListLease).UnixMilli() }

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
	return later(TimeOf(item[schema.AttrUpdated]), TimeOf(item[schema.AttrPendingSince]))
}
