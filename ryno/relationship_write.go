package ryno

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/relationships"
)

// AddRelationships appends to the subject's list under predicate each of objects it
// does not hold yet, in order, after every entry present when it commits; an object
// already there, or repeated in objects, is added once. It returns the objects it
// added, so a caller can keep a count without asking first. The subject must exist
// (ErrNotFound otherwise); with CheckObjects, so must every object added.
//
// It reads the list's head and the markers of the objects in one BatchGetItem, then
// commits the entries, the markers and the head in one TransactWriteItems whose
// conditions make that read hold: two rounds. When another writer changed the list
// meanwhile, it reads and tries again (Options.Conflicts), then fails with a
// *ConflictError naming the list. Too many objects for one transaction take a lease
// on the list instead.
func (c *Client) AddRelationships(ctx context.Context, subject Key, predicate string, objects []Key, opts ...ListOption) (_ []Key, err error) {
	ctx, call, err := c.begin(ctx, "AddRelationships")
	defer call.end(&err)
	if err != nil {
		return nil, err
	}
	ch, err := c.listCall(ctx, listAdd, subject, predicate, objects, opts)
	return fromRelKeys(ch.Added), err
}

// RemoveRelationships deletes every entry of the subject's list under predicate that
// points at one of objects and was there when it commits; objects not in the list
// are ignored. It returns the objects it removed. The subject must exist
// (ErrNotFound otherwise). Two rounds, as AddRelationships.
func (c *Client) RemoveRelationships(ctx context.Context, subject Key, predicate string, objects []Key, opts ...ListOption) (_ []Key, err error) {
	ctx, call, err := c.begin(ctx, "RemoveRelationships")
	defer call.end(&err)
	if err != nil {
		return nil, err
	}
	ch, err := c.listCall(ctx, listRemove, subject, predicate, objects, opts)
	return fromRelKeys(ch.Removed), err
}

// ReplaceRelationships makes the subject's list under predicate exactly objects, in
// order, as of its commit; an object may appear more than once, and no objects clear
// the list. It reads the head and the whole list in one parallel round, then writes
// only the entries that change, with the markers and the head, in one transaction
// conditional on the list being the one read. The subject must exist (ErrNotFound
// otherwise); with CheckObjects, so must every object written.
func (c *Client) ReplaceRelationships(ctx context.Context, subject Key, predicate string, objects []Key, opts ...ListOption) (err error) {
	ctx, call, err := c.begin(ctx, "ReplaceRelationships")
	defer call.end(&err)
	if err != nil {
		return err
	}
	_, err = c.listCall(ctx, listReplace, subject, predicate, objects, opts)
	return err
}

// ListOption adjusts one list write.
type ListOption func(*listOp)

// CheckObjects makes a list write check that every object it writes an edge to
// exists, in the same transaction: an edge to a missing entity, or one being
// deleted, is refused with an error matching ErrNotFound that names it. It overrides
// Options.CheckObjects for one call.
func CheckObjects(on bool) ListOption {
	return func(op *listOp) { op.checkObjects = on }
}

// listCall validates and runs one list write. Adding or removing no objects is
// done before any request. A failed write changed nothing it reports.
func (c *Client) listCall(ctx context.Context, kind listKind, subject Key, predicate string, objects []Key, opts []ListOption) (relationships.Change, error) {
	if err := c.validateList(subject, predicate, objects); err != nil {
		return relationships.Change{}, err
	}
	if kind != listReplace && len(objects) == 0 {
		return relationships.Change{}, nil
	}
	op := listOp{kind: kind, subject: subject, predicate: predicate, objects: objects, checkObjects: c.opts.CheckObjects}
	for _, opt := range opts {
		opt(&op)
	}
	write := c.writeListCombined
	if c.sets[predicate] {
		write = c.writeSet
	}
	ch, err := write(ctx, op)
	if err != nil {
		return relationships.Change{}, wrap(err, "%s %s -%s->", kind, subject, predicate)
	}
	return ch, nil
}

// writeList makes attempts at op until one commits or fails for good: read, plan,
// and commit under conditions that the read still holds. A list another writer
// left unfinished, or whose bookkeeping contradicts its entries, is finished and
// rebuilt under a lease first, with op (lease.go); so is a change too large for one
// transaction.
func (c *Client) writeList(ctx context.Context, op listOp) (relationships.Change, error) {
	pace := c.core.ConflictPacer()
	var doubt relationships.Doubt
	for {
		s, err := c.readListState(ctx, op)
		if err != nil {
			return relationships.Change{}, err
		}
		switch relationships.Inspect(s.head, s.markers, s.entries, op.kind == listReplace, c.opts.Now(), &doubt) {
		case relationships.Left:
			return c.writeListLeased(ctx, &op, s.head)
		case relationships.Clean:
			ch, done, err := c.commitList(ctx, op, s)
			if done || err != nil {
				return ch, err
			}
		}
		if now := c.opts.Now(); s.head.Leased(now) {
			if err := pace.Hold(ctx, s.head.LeaseUntil, now); err != nil {
				return relationships.Change{}, &LeaseError{Key: op.subject, Predicate: op.predicate, Until: s.head.LeaseUntil, Err: err}
			}
		} else if err := pace.Wait(ctx); err != nil {
			return relationships.Change{}, listConflict(op, err)
		}
	}
}

// readListReady reads what op plans from, as writeList does, for a caller that
// plans op into a transaction of its own: a list left unfinished is finished first,
// and a live lease fails with a *LeaseError.
func (c *Client) readListReady(ctx context.Context, op listOp) (listState, error) {
	pace := c.core.ConflictPacer()
	var doubt relationships.Doubt
	for {
		s, err := c.readListState(ctx, op)
		if err != nil {
			return s, err
		}
		switch relationships.Inspect(s.head, s.markers, s.entries, op.kind == listReplace, c.opts.Now(), &doubt) {
		case relationships.Clean:
			return s, nil
		case relationships.Held:
			return s, &LeaseError{Key: op.subject, Predicate: op.predicate, Until: s.head.LeaseUntil}
		case relationships.Left:
			if _, err := c.writeListLeased(ctx, nil, s.head); err != nil {
				return s, err
			}
		case relationships.Doubtful:
			if err := pace.Wait(ctx); err != nil {
				return s, listConflict(op, err)
			}
		}
	}
}

// commitList plans op against s and commits it in one transaction, or under a lease
// when it does not fit in one. It reports whether the call is done: false when
// another writer changed the list since s was read.
func (c *Client) commitList(ctx context.Context, op listOp, s listState) (relationships.Change, bool, error) {
	ch := op.plan(s)
	t := &actions.Transaction{}
	c.checkEntity(t, op.subject, actions.Role{Kind: actions.RoleEntity})
	actions.AddChange(t, c.listTables(), ch, op.checkObjects, c.opts.Now())
	if !t.Fits() {
		ch, err := c.writeListLeased(ctx, &op, s.head)
		return ch, true, err
	}
	a := c.core.Transact(ctx, t.Actions, commit.NewToken())
	switch {
	case a.Outcome == commit.Committed:
		return ch, true, nil
	case a.Outcome != commit.ConditionFailed:
		return relationships.Change{}, true, a.Err
	}
	if r := refusal(t, a); r.role.Kind == actions.RoleEntity {
		return relationships.Change{}, true, c.subjectMissing(ctx, op.subject)
	} else if r.missing != nil {
		return relationships.Change{}, true, r.missing
	}
	return relationships.Change{}, false, nil
}

// readList returns the entries of subject under predicate (every predicate when
// empty), in key order. Plans are computed from consistent reads.
func (c *Client) readList(ctx context.Context, subject Key, predicate string, consistent bool) ([]relationships.Entry, error) {
	in := c.core.OutgoingQuery(relationships.Key(subject), predicate)
	in.ConsistentRead = aws.Bool(consistent)
	var entries []relationships.Entry
	err := c.core.QueryPages(ctx, in, func(items []map[string]types.AttributeValue) error {
		for _, item := range items {
			e, err := relationships.FromItem(item)
			if err != nil {
				return wrap(err, "decode relationship entry")
			}
			entries = append(entries, e)
		}
		return nil
	})

	return entries, err
}

// validateList checks a list write of objects to subject's list under predicate;
// an ordered set's keys also hold a position.
func (c *Client) validateList(subject Key, predicate string, objects []Key) error {
	if err := relationships.Validate(relationships.Key(subject), predicate, relKeys(objects)); err != nil {
		return err
	}
	if c.ordered[predicate] {
		return validateOrdered(predicate, objects)
	}
	return nil
}

func relKeys(keys []Key) []relationships.Key {
	rk := make([]relationships.Key, len(keys))
	for i, k := range keys {
		rk[i] = relationships.Key(k)
	}
	return rk
}

func fromRelKeys(keys []relationships.Key) []Key {
	if keys == nil {
		return nil
	}
	k := make([]Key, len(keys))
	for i, rk := range keys {
		k[i] = Key(rk)
	}
	return k
}

// distinctKeys returns keys without repetitions, in order of first appearance.
func distinctKeys(keys []Key) []Key {
	seen := make(map[Key]bool, len(keys))
	unique := make([]Key, 0, len(keys))
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			unique = append(unique, k)
		}
	}
	return unique
}

// subjectMissing is the error of a list write whose subject does not exist. When
// the subject is being deleted, it completes the Delete first, as every writer that
// meets a tombstone does.
func (c *Client) subjectMissing(ctx context.Context, subject Key) error {
	item, err := c.core.GetItem(ctx, relationships.Key(subject), true)
	if err != nil {
		return err
	}
	if s, err := c.core.ReadStored(relationships.Key(subject), item); err == nil && s.Ending() {
		if err := c.completeDelete(ctx, subject, s); err != nil {
			return wrap(err, "completing a delete in progress")
		}
	}
	return notFound(subject)
}
