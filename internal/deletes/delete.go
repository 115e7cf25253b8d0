package deletes

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// DeleteEntity marks k as being deleted and completes the Delete.
func (d *Deleter) DeleteEntity(ctx context.Context, k store.Key, x Expect) error {
	s, err := d.MarkDeleting(ctx, k, x)
	if err != nil {
		return err
	}
	return d.finishMarked(ctx, k, s)
}

// finishMarked completes the Delete of k that MarkDeleting returned s for.
func (d *Deleter) finishMarked(ctx context.Context, k store.Key, s entitystate.State) error {
	var err error
	if s.Deleting == "" { // no entity: entries left from an earlier life are swept
		_, err = d.SweepMissing(ctx, k)
	} else {
		err = d.CompleteDelete(ctx, k, s)
	}
	if err != nil {
		return errs.Wrap(err, "delete %s", k)
	}
	return nil
}

// MarkDeleting puts the tombstone on k, bumping its version, and returns the item
// of the Delete to complete: its own, or that of a Delete already in progress. The
// item is none (deleting "") when there is no entity.
func (d *Deleter) MarkDeleting(ctx context.Context, k store.Key, x Expect) (entitystate.State, error) {
	token, now := commit.NewToken(), d.core.Now()
	cond := expression.AttributeExists(expression.Name(schema.AttrID)).
		And(expression.AttributeNotExists(expression.Name(schema.AttrDeleting)))
	if x.Version > 0 {
		cond = cond.And(expression.Name(schema.AttrVersion).Equal(expression.Value(store.AttrN(x.Version))))
	}
	if created := x.storedCreated(); created != "" {
		cond = cond.And(entitystate.StoredCreatedIs(created))
	}
	if x.Cond != nil {
		cond = cond.And(x.Cond.Expression(now))
	}
	// Removing a pending mark stops a large write still writing its index entries:
	// its chunks check the mark, so none can commit after the sweep has read. The
	// tombstone's time, the instant its condition held (an Expire's: expired), is
	// what tells a stream consumer that the entity had expired.
	update := expression.Set(expression.Name(schema.AttrDeleting), expression.Value(store.AttrS(token))).
		Set(expression.Name(schema.AttrDeletingSince), expression.Value(store.AttrS(schema.FormatTime(now)))).
		Set(expression.Name(schema.AttrToken), expression.Value(store.AttrS(token))).
		Remove(expression.Name(schema.AttrPending)).Remove(expression.Name(schema.AttrPendingSince)).
		Remove(expression.Name(schema.AttrPendingUntil)).
		Add(expression.Name(schema.AttrVersion), expression.Value(store.AttrN(1)))
	// The entity leaves its inline indexes with the mark, as it leaves every read.
	update = store.UpdateInline(update, store.EverySlot(nil))
	// Sending the mark again is safe: if it landed, the condition fails and the
	// stored item shows the token.
	send := d.core.UpdateSend(d.core.EntityUpdate(k, commit.Build(cond, &update)))
	a := d.core.Settle(ctx, send, send)
	switch a.Outcome {
	case commit.Committed:
		return d.core.ReadStored(k, a.Item)
	case commit.ConditionFailed:
		s, err := d.afterMarkFailed(k, token, x, a.Item)
		if errors.Is(err, errOtherLayout) { // once: the mark pins the stored form now
			x.CreatedAttr = s.CreatedAttr
			return d.MarkDeleting(ctx, k, x)
		}
		return s, err
	}
	return entitystate.State{}, errs.Wrap(a.Err, "delete %s", k)
}

// errOtherLayout refuses a mark whose condition on Created failed only for the
// layout of the stored _created, which another program wrote: the same time in
// another form.
var errOtherLayout = errors.New(errs.Prefix + "the stored Created is in another layout")

// afterMarkFailed says what a Delete whose mark (token) was refused does, from the
// stored item: its mark landed on an earlier attempt, another Delete is in progress,
// there is no entity, or it has another version.
func (d *Deleter) afterMarkFailed(k store.Key, token string, x Expect, item map[string]types.AttributeValue) (entitystate.State, error) {
	version := x.Version
	s, err := d.core.ReadStored(k, item)
	if err != nil {
		return entitystate.State{}, err
	}
	life := store.OtherLife(k, version, x.Created, s.Life())
	switch {
	case s.Deleting == token:
		return s, nil
	case !x.Created.IsZero() && s.Unreadable != nil: // which life it is cannot be told
		return entitystate.State{}, store.Unreadable(k, s.Unreadable)
	case life != nil:
		return entitystate.State{}, life
	case version > 0 && !s.Live():
		return entitystate.State{}, &entity.ConflictError{Key: k, Expected: version, Missing: true, Reason: fmt.Sprintf("expected version %d, the entity does not exist", version)}
	case version > 0 && s.Version != version:
		return entitystate.State{}, &entity.ConflictError{Key: k, Expected: version, Stored: s.Version, Reason: fmt.Sprintf("expected version %d, stored is %d", version, s.Version)}
	case !x.Created.IsZero() && x.CreatedAttr == "" && s.CreatedAttr != x.storedCreated():
		return s, errOtherLayout
	case x.Cond != nil && s.Live():
		return entitystate.State{}, &entity.ConditionError{Key: k, Condition: x.Cond.String()}
	}
	return s, nil // deleting "" when there is no entity
}

// CompleteDelete completes the Delete whose tombstone s holds, or the deletion of
// the expired entity s is (putting the tombstone first): it deletes what k
// owns (Options.Owns), then sweeps what refers to k and deletes the item while the
// tombstone is there. A writer that meets the
// tombstone calls it too; every step is idempotent. The values of unique indexes
// the item records are released too: a large write cut off may have claimed them
// before writing their entries.
func (d *Deleter) CompleteDelete(ctx context.Context, k store.Key, s entitystate.State) error {
	if s.Deleting == "" && s.Expired {
		var err error
		if s, err = d.expire(ctx, k, s); err != nil || s.Deleting == "" {
			return err
		}
	}
	g := deletingGuard(k, s.Deleting)
	if err := d.cascade(ctx, g); err != nil {
		return err
	}
	return d.sweep(ctx, k, g, d.core.Indexes.ClaimsOf(store.RecordEntries(k, s.Item)))
}

// deletingGuard is the guard of the Delete of k whose tombstone is deleting: the
// tombstone, or k missing for "" (no entity).
func deletingGuard(k store.Key, deleting string) store.Guard {
	if deleting == "" {
		return store.Guard{Key: k, Absent: true}
	}
	return store.Guard{Key: k, Attr: schema.AttrDeleting, Token: deleting}
}

// SweepMissing deletes what refers to k while k is missing, as Sweep does, and
// first, when k's type owns anything, what k owned: an owner whose item is gone
// (removed by DynamoDB's time to live, say, before any writer completed its
// expiry) still lists what it owns, and its sweep would leave those alive with
// nothing pointing at them. It reports whether k stayed missing to the end.
//
// What fits in one transaction is deleted in it, on the condition that k is still
// missing. More is deleted as a Delete deletes an entity: k gets a tombstone first
// (markMissing), which a Create of k meets and completes, so no Create lands
// between two of the sweep's transactions. A k found holding a tombstone (one
// such sweep cut off, or a Delete's) or an expired entity has that deletion
// completed.
func (d *Deleter) SweepMissing(ctx context.Context, k store.Key) (bool, error) {
	g := deletingGuard(k, "")
	if err := d.cascade(ctx, g); err != nil {
		return false, err
	}
	held, err := d.sweepHolding(ctx, k, g, nil)
	switch {
	case err == nil && !held:
		return d.finishEnding(ctx, k)
	case !errors.Is(err, errSpansTransactions):
		return held, err
	}
	s, err := d.markMissing(ctx, k)
	switch {
	case err != nil:
		return false, errs.Wrap(err, "marking %s, missing, to sweep what is left of it", k)
	case !s.Ending():
		return false, nil // created anew: what is left is its own
	}
	return true, d.CompleteDelete(ctx, k, s)
}

// markMissing puts the tombstone of a Delete on k while k is missing: an item of
// k's key, scope and type, with no _created (no entity was written), that every
// reader sees as missing. It returns the state of the item to complete: this
// tombstone, another Delete's, or an entity written since (which is live).
func (d *Deleter) markMissing(ctx context.Context, k store.Key) (entitystate.State, error) {
	token := commit.NewToken()
	cond := expression.AttributeNotExists(expression.Name(schema.AttrID))
	update := expression.Set(expression.Name(schema.AttrDeleting), expression.Value(store.AttrS(token))).
		Set(expression.Name(schema.AttrToken), expression.Value(store.AttrS(token))).
		Set(expression.Name(schema.AttrScope), expression.Value(store.AttrS(k.Scope))).
		Set(expression.Name(schema.AttrType), expression.Value(store.AttrS(k.Type)))
	// Sent again after it landed, its condition fails and the item shows its token.
	send := d.core.UpdateSend(d.core.EntityUpdate(k, commit.Build(cond, &update)))
	a := d.core.Settle(ctx, send, send)
	if a.Outcome != commit.Committed && a.Outcome != commit.ConditionFailed {
		return entitystate.State{}, a.Err
	}
	return d.core.ReadStored(k, a.Item)
}

// A Delete of an owner, once its tombstone is there (which refuses every write of
// it, and so every addition to its lists), marks the whole tree it owns before it
// deletes any of it: every object of each owned list gets its own tombstone, then
// the objects those own, and so on, page by page, MaxConcurrency at once. So the
// tree reads as missing, and refuses writes and additions under any of its
// entities, from the end of this first pass, before the sweeps that take most of
// the time. Then each owned entity's Delete is completed from the state its mark
// returned, what it owns first, before the owner sweeps its own partition: a Delete
// cut off half-way keeps the owner's lists, and whoever completes it (the next
// Delete, the next writer of the owner, check --repair) finds what is left to
// delete in them, and marks it again (a mark already there costs a refused
// update). An object listed twice is deleted once; an object already gone costs a
// Delete of a missing entity, which sweeps what still refers to it.

// expiry is the condition that the stored entity has expired, as of the instant
// the write is sent.
type expiry func(now time.Time) expression.ConditionBuilder

func (e expiry) Expression(now time.Time) expression.ConditionBuilder { return e(now) }
func (expiry) String() string                                         { return "expired" }

// expire puts the tombstone of a Delete on k while it holds the expired entity read
// as s, and returns the item of the Delete to complete, as markDeleting does: none
// (deleting "") when k holds no expired entity by now.
func (d *Deleter) expire(ctx context.Context, k store.Key, s entitystate.State) (entitystate.State, error) {
	expired := actions.Expired // at the instant the tombstone records
	if stored, ok := s.Item[schema.AttrExpires].(*types.AttributeValueMemberS); ok {
		// An expiry held as a string, which DynamoDB cannot compare with the clock:
		// the mark requires the one read as passed.
		expired = func(time.Time) expression.ConditionBuilder {
			return expression.Name(schema.AttrExpires).Equal(expression.Value(store.AttrS(stored.Value)))
		}
	}
	s, err := d.MarkDeleting(ctx, k, Expect{Cond: expiry(expired)})
	var live *entity.ConditionError
	if errors.As(err, &live) {
		return entitystate.State{}, nil // written anew meanwhile: the caller reads it again
	}
	return s, err
}

// Expect is what a Delete requires of the stored entity: version Version (0: any),
// the life created at Created (zero: any), and Cond when not nil.
type Expect struct {
	Version int64
	Created time.Time // the life of the entity (its _created), when not zero
	// CreatedAttr is the stored _created the mark pins instead of Created in the
	// store's layout, once a refusal showed Created stored in another.
	CreatedAttr string
	Cond        store.Condition
}

// storedCreated is the _created the mark of x requires; "" for any.
func (x Expect) storedCreated() string { return entitystate.StoredCreated(x.CreatedAttr, x.Created) }

// FinishDelete completes the Delete of k that was cut off, or the deletion of k
// expired: nothing when k is neither.
func (d *Deleter) FinishDelete(ctx context.Context, k store.Key) error {
	_, err := d.finishEnding(ctx, k)
	return err
}

// finishEnding is FinishDelete, reporting whether k held a deletion to complete (a
// tombstone, or an entity expired); an entity live, or created anew, is left alone.
func (d *Deleter) finishEnding(ctx context.Context, k store.Key) (bool, error) {
	item, err := d.core.GetItem(ctx, k, true)
	if err != nil {
		return false, err
	}
	s, err := d.core.ReadStored(k, item)
	if err != nil || !s.Ending() {
		return false, err
	}
	return true, errs.Wrap(d.CompleteDelete(ctx, k, s), "complete the delete of %s", k)
}
