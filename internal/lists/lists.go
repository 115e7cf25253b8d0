package lists

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/store"
)

// A list write reads the list's head, the subject, and what it changes (the markers
// of its objects, or the whole list), plans a relationships.Change, and commits it
// in one transaction whose conditions make the plan hold at commit: the head's
// version (and the digest of a whole-list read), each marker it relies on and, when
// asked, the objects' existence. A refused condition means another writer got there
// first: it reads and plans again. Changes too large for one transaction take a
// lease on the list instead (lease.go).
//
// The subject's existence is checked in the transaction only by a write that
// creates the head, whose subject has an expiry (which the check holds to the
// commit's instant), or whose list owns its objects (OwnedList). Otherwise the read
// found the subject live, and the head stands for it: a Delete marks the entity
// before it reads what to sweep, and deletes each head on the condition that its
// version is the one read (store.OwnHead). A write that read the live subject and
// commits after that read moves the version, so the sweep reads again; one that
// commits after the head's delete finds no head and reads again, and a new head
// needs the subject's check. A write that overlapped the Delete is ordered before
// it, and nothing it wrote outlives the sweep.

// Kind is the operation of a list write.
type Kind int

const (
	Add Kind = iota
	Remove
	Replace
)

func (k Kind) String() string {
	return [...]string{"add relationships", "remove relationships", "replace relationships"}[k]
}

// Op is one write of a subject's list for a predicate.
type Op struct {
	Kind         Kind
	Subject      store.Key
	Predicate    string
	Objects      []store.Key
	CheckObjects bool
	// With Pinned, the write commits only over the list at version IfVersion
	// (relationships.Version): the list as the caller read it.
	IfVersion string
	Pinned    bool
}

// At reports whether entries, the whole list of op's subject and predicate, are at
// the version op requires.
func (op Op) At(entries []relationships.Entry) bool {
	return !op.Pinned || relationships.VersionOf(op.Subject, op.Predicate, entries) == op.IfVersion
}

// Stale is the error of a write whose list is not at the version it requires.
func (op Op) Stale() error {
	return &entity.ConflictError{Key: op.Subject, Predicate: op.Predicate,
		Reason: "the list is not at the version given: it changed since it was read"}
}

// requireVersion fails with op.Stale when the list read as s, clean, is not at the
// version op requires: that of the entries read (Replace), or of the head's count
// and digest. A list with no head may have been written before heads existed, with
// entries no head counts: they are read.
func (c *Engine) requireVersion(ctx context.Context, op Op, s State) error {
	at := true
	switch {
	case !op.Pinned:
	case op.Kind == Replace:
		at = op.At(s.Entries)
	case s.Head.Version > 0:
		at = s.Head.ListVersion() == op.IfVersion
	default:
		entries, err := c.ReadList(ctx, op.Subject, op.Predicate, true)
		if err != nil {
			return err
		}
		at = op.At(entries)
	}
	if !at {
		return op.Stale()
	}
	return nil
}

// State is what a list write read: the head, and the markers of its objects
// (Add, Remove) or the whole list (Replace); and, when asked, the subject.
type State struct {
	Head    relationships.Head
	Markers map[store.Key]relationships.Marker
	Entries []relationships.Entry
	// Subject is the subject as read with the list, when asked.
	Subject entitystate.State
	// SubjectStands says the subject was read with the list, live and with no
	// expiry, and the list owns nothing: while the head exists, it stands for the
	// subject (see above).
	SubjectStands bool
}

// readListState reads what op plans from, in one round: the head, the markers of
// op's objects (Add, Remove) and, with subject, the subject's item in one consistent
// BatchGetItem; beside it, for a Replace, the whole list.
func (c *Engine) readListState(ctx context.Context, op Op, subject bool) (State, error) {
	objects := store.DistinctKeys(op.Objects)
	if op.Kind == Replace {
		objects = nil
	}
	gets := make([]batching.GetOp, 0, len(objects)+2)
	gets = append(gets, batching.NewGetOp(c.core.Names.Relationships, relationships.HeadPrimaryKey(op.Subject, op.Predicate)))
	for _, o := range objects {
		gets = append(gets, batching.NewGetOp(c.core.Names.Relationships, relationships.MarkerPrimaryKey(op.Subject, op.Predicate, o)))
	}
	if subject {
		gets = append(gets, batching.NewGetOp(c.core.Names.Entities, actions.EntityKey(op.Subject)))
	}
	var s State
	var items map[string]map[string]types.AttributeValue
	reads := 1
	if op.Kind == Replace {
		reads = 2
	}
	err := batching.Parallel(ctx, reads, reads, func(ctx context.Context, i int) error {
		var err error
		if i == 0 {
			items, err = c.core.Batch.Get(ctx, gets, batching.ReadOptions{Consistent: true})
		} else {
			s.Entries, err = c.ReadList(ctx, op.Subject, op.Predicate, true)
		}
		return err
	})
	if err != nil {
		return s, err
	}
	if s.Head, err = relationships.HeadFromItem(op.Subject, op.Predicate, items[gets[0].ID]); err != nil {
		return s, err
	}
	if op.Kind != Replace {
		s.Markers = make(map[store.Key]relationships.Marker, len(objects))
		for i, o := range objects {
			if s.Markers[o], err = relationships.MarkerFromItem(o, items[gets[i+1].ID]); err != nil {
				return s, err
			}
		}
	}
	if !subject {
		return s, nil
	}
	if s.Subject, err = c.core.ReadStored(op.Subject, items[gets[len(gets)-1].ID]); err != nil {
		return s, err
	}
	s.SubjectStands = s.Subject.Live() && s.Subject.Expires == 0 && !c.ownedList(op.Subject, op.Predicate)
	return s, nil
}

// ReadHeads reads the heads of subject's lists for predicates in one consistent
// BatchGetItem.
func (c *Engine) ReadHeads(ctx context.Context, subject store.Key, predicates []string) ([]relationships.Head, error) {
	ops := make([]batching.GetOp, len(predicates))
	for i, p := range predicates {
		ops[i] = batching.NewGetOp(c.core.Names.Relationships, relationships.HeadPrimaryKey(subject, p))
	}
	items, err := c.core.Batch.Get(ctx, ops, batching.ReadOptions{Consistent: true})
	if err != nil {
		return nil, err
	}
	heads := make([]relationships.Head, len(predicates))
	for i, p := range predicates {
		if heads[i], err = relationships.HeadFromItem(subject, p, items[ops[i].ID]); err != nil {
			return nil, err
		}
	}
	return heads, nil
}

// Plan returns the change op makes to the list read.
func (op Op) Plan(s State) relationships.Change {
	objects := op.Objects
	switch op.Kind {
	case Add:
		return relationships.ChangeAdd(s.Head, s.Markers, objects)
	case Remove:
		return relationships.ChangeRemove(s.Head, s.Markers, objects)
	}
	return relationships.ChangeReplace(s.Head, s.Entries, objects)
}

// CheckEntity adds the check that k exists, is not being deleted and has not
// expired, once per entity.
func (c *Engine) CheckEntity(t *actions.Transaction, k store.Key, role actions.Role) {
	actions.CheckEntity(t, c.core.Names.Entities, k, role, c.core.Now(), nil)
}

// ListTables names the tables a list change writes and checks.
func (c *Engine) ListTables() actions.Tables {
	return actions.Tables{Entities: c.core.Names.Entities, Relationships: c.core.Names.Relationships, Shards: c.core.Incoming}
}

// Refusal is why a list transaction was refused: a condition another writer
// broke (retry), or an entity that does not exist (final).
type Refusal struct {
	Role    actions.Role
	Missing error // errs.ErrNotFound naming the entity, when an existence check failed
}

// RefusalOf reads the cancellation of a list transaction from the failed action.
func RefusalOf(t *actions.Transaction, a commit.Attempt) Refusal {
	role, ok := t.RoleOf(a.Action)
	if !ok {
		return Refusal{}
	}
	r := Refusal{Role: role}
	if r.Role.Kind == actions.RoleObject {
		r.Missing = ObjectMissing(r.Role.Object)
	}
	return r
}

// Conflict is the error of a list write that kept losing races.
func Conflict(op Op, err error) error {
	return store.KeptChanging(op.Subject, op.Predicate, 0, err)
}

// retryList is how an attempt at subject's list under predicate, whose head it read
// as h, retries: while another writer's lease lives, it holds until the lease's end,
// and should it give up, it does with a *LeaseError (listGaveUp).
func (c *Engine) retryList(subject store.Key, predicate string, h relationships.Head) (batching.Step, error) {
	if now := c.core.Now(); h.Leased(now) {
		return batching.Hold(h.LeaseUntil, now), &entity.LeaseError{Key: subject, Predicate: predicate, Until: h.LeaseUntil}
	}
	return batching.Retry, nil
}

// listGaveUp is the error of a write of subject's list under predicate whose
// attempts ran out, for err: the *LeaseError of a last attempt that waited for
// another writer's lease (retryList), KeptChanging otherwise.
func listGaveUp(subject store.Key, predicate string) func(conflict, err error) error {
	return func(conflict, err error) error {
		if held, ok := conflict.(*entity.LeaseError); ok {
			held.Err = err
			return held
		}
		return store.KeptChanging(subject, predicate, 0, err)
	}
}

// WriteList makes attempts at op until one commits or fails for good: read, plan,
// and commit under conditions that the read still holds. A plain Add or Remove
// that loses to another writer's commit combines with the other writers' calls
// instead (combine.go). A list another writer
// left unfinished, or whose bookkeeping contradicts its entries, is finished and
// rebuilt under a lease first, with op (lease.go); so is a change too large for one
// transaction. A subject whose large write was cut off (its pending mark's lease
// has expired) has that write finished first, once.
func (c *Engine) WriteList(ctx context.Context, op Op) (relationships.Change, error) {
	var doubt relationships.Doubt
	finished := false
	giveUp := listGaveUp(op.Subject, op.Predicate)
	if c.combinable(op) && c.recentlyContended(op) {
		if ch, err := c.combine(ctx, op); !errors.Is(err, errNotCombined) {
			return ch, err
		}
	}
	return batching.Attempts(ctx, c.core.ConflictPacer(), giveUp, func(ctx context.Context) (relationships.Change, batching.Step, error) {
		s, err := c.readListState(ctx, op, true)
		if err != nil {
			return relationships.Change{}, batching.Done, err
		}
		if !s.Subject.Live() {
			return relationships.Change{}, batching.Done, c.subjectGone(ctx, op.Subject, s.Subject)
		}
		if !finished && c.core.PendingLeft(s.Subject) {
			finished = true
			if _, err := c.core.FinishPending(ctx, op.Subject); err != nil {
				return relationships.Change{}, batching.Done, err
			}
			return relationships.Change{}, batching.Again, nil
		}
		switch relationships.Inspect(s.Head, s.Markers, s.Entries, op.Kind == Replace, c.core.Now(), &doubt) {
		case relationships.Left:
			ch, err := c.WriteListLeased(ctx, &op, s.Head)
			return ch, batching.Done, err
		case relationships.Clean:
			if err := c.requireVersion(ctx, op, s); err != nil {
				return relationships.Change{}, batching.Done, err
			}
			ch, done, err := c.commitList(ctx, op, s)
			switch {
			case done == committedOrFailed || err != nil:
				return ch, batching.Done, err
			case done == lostToACommit && c.combinable(op):
				return c.combineAfterLoss(ctx, op)
			case done == lostToACommit:
				return relationships.Change{}, batching.Yield, nil
			}
		}
		step, conflict := c.retryList(op.Subject, op.Predicate, s.Head)
		return relationships.Change{}, step, conflict
	})
}

// ReadListReady reads what op plans from, as writeList does (with the subject, when
// asked), for a caller that plans op into a transaction of its own: a list left
// unfinished is finished first, and a live lease fails with a *LeaseError.
func (c *Engine) ReadListReady(ctx context.Context, op Op, subject bool) (State, error) {
	var doubt relationships.Doubt
	giveUp := func(_, err error) error { return Conflict(op, err) }
	return batching.Attempts(ctx, c.core.ConflictPacer(), giveUp, func(ctx context.Context) (State, batching.Step, error) {
		s, err := c.readListState(ctx, op, subject)
		if err != nil {
			return s, batching.Done, err
		}
		switch relationships.Inspect(s.Head, s.Markers, s.Entries, op.Kind == Replace, c.core.Now(), &doubt) {
		case relationships.Clean:
			return s, batching.Done, nil
		case relationships.Held:
			return s, batching.Done, &entity.LeaseError{Key: op.Subject, Predicate: op.Predicate, Until: s.Head.LeaseUntil}
		case relationships.Left:
			if _, err := c.WriteListLeased(ctx, nil, s.Head); err != nil {
				return s, batching.Done, err
			}
			return s, batching.Again, nil
		}
		return s, batching.Retry, nil // Doubtful
	})
}

// commitOutcome is what came of a list's commit.
type commitOutcome int

const (
	committedOrFailed commitOutcome = iota // the call is done
	lost                                   // a condition it relied on no longer holds
	// lostToACommit is lost where the head's version moved past the one read,
	// with no lease on it: another writer committed to the list meanwhile.
	lostToACommit
)

// commitList plans op against s and commits it in one transaction, or under a lease
// when it does not fit in one. It reports whether the call is done, or how it lost
// to another writer that changed the list since s was read.
func (c *Engine) commitList(ctx context.Context, op Op, s State) (relationships.Change, commitOutcome, error) {
	ch := op.Plan(s)
	if op.Pinned {
		ch.PinTo(s.Head)
	}
	t := &actions.Transaction{}
	if !s.SubjectStands || !ch.Expect.Exists {
		c.CheckEntity(t, op.Subject, actions.Role{Kind: actions.RoleEntity})
	}
	actions.AddChange(t, c.ListTables(), ch, op.CheckObjects, c.core.Now())
	switch {
	case !t.Fits():
		ch, err := c.WriteListLeased(ctx, &op, s.Head)
		return ch, committedOrFailed, err
	case len(t.Actions) == 0: // nothing to write or rely on: as of the read
		return ch, committedOrFailed, nil
	}
	a := c.transact(ctx, t)
	switch {
	case a.Outcome == commit.Committed:
		return ch, committedOrFailed, nil
	case a.Outcome != commit.ConditionFailed:
		return relationships.Change{}, committedOrFailed, a.Err
	}
	r := RefusalOf(t, a)
	switch {
	case r.Role.Kind == actions.RoleEntity:
		return relationships.Change{}, committedOrFailed, c.subjectMissing(ctx, op.Subject)
	case r.Missing != nil:
		return relationships.Change{}, committedOrFailed, r.Missing
	case r.Role.Kind == actions.RoleHead && c.movedOn(op, s.Head, a):
		return relationships.Change{}, lostToACommit, nil
	}
	return relationships.Change{}, lost, nil
}

// movedOn reports whether the head whose condition refused attempt a, read as h,
// stands at a later version with no lease: another writer committed to the list,
// or, read with no head, created it first.
func (c *Engine) movedOn(op Op, h relationships.Head, a commit.Attempt) bool {
	if a.Action >= len(a.Reasons) {
		return false
	}
	now, err := relationships.HeadFromItem(op.Subject, op.Predicate, a.Reasons[a.Action].Item)
	return err == nil && now.Version > h.Version && now.Lease == ""
}

// ReadList returns the entries of subject under predicate (every predicate when
// empty), in key order. Plans are computed from consistent reads.
func (c *Engine) ReadList(ctx context.Context, subject store.Key, predicate string, consistent bool) ([]relationships.Entry, error) {
	in := c.core.OutgoingQuery(subject, predicate)
	in.ConsistentRead = aws.Bool(consistent)
	var entries []relationships.Entry
	err := c.core.QueryPages(ctx, in, func(items []map[string]types.AttributeValue) error {
		for _, item := range items {
			e, err := relationships.FromItem(item)
			if err != nil {
				return errs.Wrap(err, "decode relationship entry")
			}
			entries = append(entries, e)
		}
		return nil
	})

	return entries, err
}

// subjectMissing is the error of a list write whose subject does not exist. When
// the subject is being deleted, it completes the Delete first, as every writer that
// meets a tombstone does.
func (c *Engine) subjectMissing(ctx context.Context, subject store.Key) error {
	item, err := c.core.GetItem(ctx, subject, true)
	if err != nil {
		return err
	}
	s, err := c.core.ReadStored(subject, item)
	if err != nil {
		return fmt.Errorf("%w: %s", errs.ErrNotFound, subject)
	}
	return c.subjectGone(ctx, subject, s)
}

// ownedList reports whether subject's list under predicate owns its objects
// (Options.Owns). Its head never stands for the subject: a Delete of the subject
// reads such a list to delete the objects it owns, before it sweeps the head, so an
// object added after that read and before the sweep would outlive its owner. A
// write of an owned list checks its subject in its transaction.
func (c *Engine) ownedList(subject store.Key, predicate string) bool {
	return slices.Contains(c.core.Owns[subject.Type], predicate)
}

// subjectGone is the error of a list write whose subject was read as s, not live:
// a Delete in progress (or an expiry) is completed first.
func (c *Engine) subjectGone(ctx context.Context, subject store.Key, s entitystate.State) error {
	if s.Ending() {
		if err := c.core.Deletes.CompleteDelete(ctx, subject, s); err != nil {
			return errs.Wrap(err, "completing a delete in progress")
		}
	}
	return fmt.Errorf("%w: %s", errs.ErrNotFound, subject)
}

// CountRelationships counts the entries of subject's list under predicate: its
// head's count, or a set's entries (CountSet).
func (c *Engine) CountRelationships(ctx context.Context, subject store.Key, predicate string) (int, error) {
	if c.core.Sets[predicate] {
		return c.countSet(ctx, subject, predicate)
	}
	in := store.GetInput(c.core.Names.Relationships, relationships.HeadPrimaryKey(subject, predicate))
	in.ConsistentRead = aws.Bool(c.core.ConsistentRead)
	out, err := c.core.API.GetItem(ctx, in)
	if err != nil {
		return 0, err
	}
	head, err := relationships.HeadFromItem(subject, predicate, out.Item)
	if err != nil {
		return 0, err
	}
	return head.Count, nil
}
