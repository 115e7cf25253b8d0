// The commit of an entity write's attempt: its transaction, and its outcome read,
// a claim refused by another holder included.

package store

import (
	"context"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/schema"
)

// commitResult is how a commit ended: written, or refused by the condition with the
// item then stored, or refused by a list another writer changed since it was read.
type commitResult struct {
	stored     map[string]types.AttributeValue
	old        map[string]types.AttributeValue
	listsMoved bool
}

// transaction returns the actions that commit the plan in one transaction: the
// entity, its index entries and claims, its lists.
func (w *write) transaction(p *putPlan) *actions.Transaction {
	t := &actions.Transaction{}
	t.Add(w.c.PutAction(p.item, p.x), actions.Role{Kind: actions.RoleEntity}, schema.ItemSize(p.item))
	t.MarkChecked(w.Key) // the put checks the entity
	for _, op := range batching.LastWriteWins(p.entryOps) {
		t.Add(actions.Items([]batching.WriteOp{op})[0], actions.Role{Kind: actions.RoleIndex}, op.Size())
	}
	actions.AddClaims(t, w.c.Names.IndexEntries, p.claims, p.releases, entitystate.ExpiresOf(p.item))
	for _, ch := range p.lists {
		actions.AddChange(t, w.c.ListTables(), ch, w.c.CheckObjects, w.c.Now())
	}
	return t
}

// commit writes the plan: one conditional PutItem when only the entity changes, one
// transaction when everything fits in one, the large path otherwise.
func (w *write) commit(ctx context.Context, p *putPlan) (commitResult, error) {
	if len(p.entryOps) == 0 && len(p.lists) == 0 && len(p.claims)+len(p.releases) == 0 && !p.x.Pending {
		return w.result(w.c.PutItem(ctx, w.Key, p.item, p.x, w.token), p)
	}
	t := w.transaction(p)
	if p.x.Pending || !t.Fits() {
		return w.commitLarge(ctx, p)
	}
	a := w.c.Transact(ctx, t.Actions, commit.NewToken())
	if a.Outcome == commit.ConditionFailed && a.Action > 0 {
		r := Refusal(t, a)
		switch {
		case r.Missing != nil:
			return commitResult{}, errs.Wrap(r.Missing, "%s %s", w.Mode, w.Key)
		case r.Role.Kind == actions.RoleClaim && r.Role.Release: // another entity holds it: not ours to release
			p.releases = slices.DeleteFunc(p.releases, func(cl indexentries.Claim) bool { return cl == r.Role.Claim })
			return w.commit(ctx, p)
		case r.Role.Kind == actions.RoleClaim:
			return w.claimRefused(ctx, r.Role.Claim, a.Item)
		}
		w.listsLeft = w.listsLeft || p.x.Absent
		return commitResult{listsMoved: true}, nil
	}
	return w.result(a, p)
}

// claimRefused is the result of a commit refused by the claim of cl, held as item:
// another try once the value's holder is found to have ended (see FreeHeld), the
// holder's *UniqueError otherwise.
func (w *write) claimRefused(ctx context.Context, cl indexentries.Claim, item map[string]types.AttributeValue) (commitResult, error) {
	freed, err := w.c.FreeHeld(ctx, cl, item)
	if err == nil && !freed {
		err = UniqueTaken(cl, item)
	}
	if err != nil {
		return commitResult{}, errs.Wrap(err, "%s %s", w.Mode, w.Key)
	}
	return commitResult{listsMoved: true}, nil // same expectation, planned again
}

func (w *write) result(a commit.Attempt, p *putPlan) (commitResult, error) {
	switch {
	case a.Outcome == commit.Committed:
		return commitResult{stored: p.item}, nil
	case a.Outcome == commit.ConditionFailed && a.Action == 0:
		return commitResult{old: a.Item}, nil
	}
	return commitResult{}, errs.Wrap(a.Err, "%s %s", w.Mode, w.Key)
}

// UniqueTaken is the error of a claim refused: who holds the value.
func UniqueTaken(cl indexentries.Claim, item map[string]types.AttributeValue) error {
	owner := Key{Scope: cl.Scope}
	if held, err := indexentries.ClaimFromItem(item); err == nil {
		owner.Type, owner.ID = held.Type, held.ID
	}
	return &entity.UniqueError{Index: cl.IndexName, Value: cl.Value.Interface(), Owner: owner}
}
