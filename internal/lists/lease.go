package lists

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// A change of a list too large for one transaction takes a lease on the list: a
// conditional update of its head setting the writer's token and an expiry. Every
// other write of the list requires a head without a lease, so while the lease is
// there the list is the writer's alone. Under the lease the writer:
//
//  1. reads the whole list, its markers and any intent parts left behind;
//  2. records its intent (the entry puts and deletes it is about to make) in the
//     subject's partition, and marks the intent whole in the head;
//  3. writes the entries and the markers in transactions that each check the lease
//     is still its own and the subject still exists;
//  4. releases the lease with the head's new state, deleting the intent.
//
// A writer cut off at any point leaves the lease. Nobody plans against such a head:
// the next writer to meet it waits while the lease lives, then takes the list over
// and first finishes what was left: the writes of a whole intent (idempotent puts
// and deletes), then the markers and the head rebuilt from the entries, which are
// what readers see. A writer cut off before its intent was whole wrote no entry, so
// its list is the one before it. Either way the list ends as one of the lists
// submitted to it, with exact bookkeeping.

// listLease is a writer's hold on a list.
type listLease struct {
	subject   store.Key
	predicate string
	token     string
	// prior is the head as the lease was taken: what the writer before left.
	prior relationships.Head
}

// LeasedState is what a writer holding a list reads before it plans.
type LeasedState struct {
	Entries []relationships.Entry
	Markers []relationships.Marker
	Intents []map[string]types.AttributeValue // intent parts, whole items
}

// WriteListLeased takes a lease on the list of seen (the head as the caller read
// it), finishes what an earlier writer left, applies op (none: only the finishing)
// and releases the lease with exact bookkeeping. An op requiring a version of the
// list is refused, with nothing of it written, when the entries it reads under the
// lease (no writer can change them then) are not at that version.
func (c *Engine) WriteListLeased(ctx context.Context, op *Op, seen relationships.Head) (relationships.Change, error) {
	l, err := c.acquireList(ctx, seen.Subject, seen.Predicate, seen)
	if err != nil {
		return relationships.Change{}, err
	}
	s, err := c.ReadUnderLease(ctx, l.subject, l.predicate)
	if err != nil {
		return relationships.Change{}, err
	}
	if err := c.finishIntent(ctx, l, &s); err != nil {
		return relationships.Change{}, err
	}
	next := l.prior.Next
	for _, e := range s.Entries {
		next = max(next, e.Index+1) // a writer cut off may have written past Next
	}
	var ch relationships.Change
	var refused error
	if op != nil && !op.At(s.Entries) {
		refused, op = op.Stale(), nil // nothing of op is written; the list is still made exact
	}
	checkObjects := false
	if op == nil && relationships.DuplicatePositions(s.Entries) {
		// Entries sharing a position (left by writers of earlier versions) are
		// renumbered in list order, as a replace of the list by itself does.
		op = &Op{Kind: Replace, Subject: l.subject, Predicate: l.predicate,
			Objects: relationships.InOrder(s.Entries)}
	}
	if op != nil {
		checkObjects = op.CheckObjects
		head := l.prior
		head.Next = next
		ch = op.Plan(State{Head: head, Markers: relationships.MarkersOf(s.Entries), Entries: s.Entries})
		if checkObjects {
			var gone bool
			if gone, refused = c.requireObjects(ctx, ch.Puts); refused != nil {
				if !gone {
					return relationships.Change{}, refused
				}
				ch = relationships.Change{} // nothing of op is written; the list is still made exact
			}
		}
	}
	intents := intentKeys(s.Intents)
	if !ch.Empty() {
		mine, err := c.recordIntent(ctx, l, ch, checkObjects)
		if err != nil {
			return relationships.Change{}, err
		}
		intents = append(intents, mine...)
	}
	after := relationships.Apply(s.Entries, ch)
	ops := actions.RelationshipOps(c.core.Names.Relationships, c.core.Incoming, relationships.Plan{Puts: ch.Puts, Deletes: ch.Deletes})
	ops = append(ops, c.markerOps(l, relationships.Reconcile(after, s.Markers))...)
	dropped, err := c.applyLeased(ctx, l, ops, checkObjects)
	switch {
	case err != nil:
		return relationships.Change{}, err
	case len(dropped) == 0:
		err = c.releaseLease(ctx, l, max(next, ch.Next), after, intents)
	default:
		// Objects deleted while the writer held the list lose their edges, as if
		// their Delete came after it: rebuild the bookkeeping from the entries.
		ch.Added = slices.DeleteFunc(ch.Added, func(o store.Key) bool { return dropped[o] })
		err = c.rebuildLeased(ctx, l, max(next, ch.Next), intents)
	}
	if refused != nil || err != nil {
		return relationships.Change{}, errors.Join(refused, err)
	}
	return ch, nil
}

// acquireList takes a lease on subject's list under predicate, whose head the caller
// read as seen. While another writer's lease lives it waits, within
// Options.Conflicts, then fails with a *LeaseError.
func (c *Engine) acquireList(ctx context.Context, subject store.Key, predicate string, seen relationships.Head) (*listLease, error) {
	token := commit.NewToken()
	first := true
	return batching.Attempts(ctx, c.core.ConflictPacer(), listGaveUp(subject, predicate), func(ctx context.Context) (*listLease, batching.Step, error) {
		if !first {
			h, err := c.ReadHead(ctx, subject, predicate)
			if err != nil {
				return nil, batching.Done, err
			}
			seen = h
		}
		first = false
		if now := c.core.Now(); !seen.Leased(now) {
			l, h, err := c.takeLease(ctx, subject, predicate, seen, token, now)
			if l != nil || err != nil {
				return l, batching.Done, err
			}
			seen = h
		}
		step, conflict := c.retryList(subject, predicate, seen)
		return nil, step, conflict
	})
}

// takeLease takes the lease token on subject's list under predicate at now, on the
// condition that its head is still seen. It returns the lease, or the head that
// refused it.
func (c *Engine) takeLease(ctx context.Context, subject store.Key, predicate string, seen relationships.Head, token string, now time.Time) (*listLease, relationships.Head, error) {
	u := expression.Set(expression.Name(schema.AttrLease), expression.Value(store.AttrS(token))).
		Set(expression.Name(schema.AttrLeaseUntil), expression.Value(store.AttrN(now.Add(c.core.ListLease).UnixMilli()))).
		Add(expression.Name(schema.AttrVersion), expression.Value(store.AttrN(1)))
	for _, name := range []string{schema.AttrNext, schema.AttrCount, schema.AttrDigest} {
		u = u.Set(expression.Name(name), expression.IfNotExists(expression.Name(name), expression.Value(store.AttrN(0))))
	}
	for name, v := range relationships.RawAttributes(subject, predicate) {
		u = u.Set(expression.Name(name), expression.Value(v))
	}
	t := &actions.Transaction{}
	t.Add(c.headUpdate(subject, predicate, headVersionIs(seen.Version), u), actions.Role{Kind: actions.RoleHead}, 0)
	c.CheckEntity(t, subject, actions.Role{Kind: actions.RoleEntity})
	a := c.core.Transact(ctx, t.Actions, commit.NewToken())
	switch {
	case a.Outcome == commit.Committed:
		return &listLease{subject: subject, predicate: predicate, token: token, prior: seen}, seen, nil
	case a.Outcome != commit.ConditionFailed:
		return nil, seen, a.Err
	case RefusalOf(t, a).Role.Kind == actions.RoleEntity:
		return nil, seen, c.subjectMissing(ctx, subject)
	}
	h, err := relationships.HeadFromItem(subject, predicate, a.Item)
	return nil, h, err
}

// headVersionIs is the condition that a head has version v: no head for 0. Every
// change of a head bumps its version, so an equal version is the head read.
func headVersionIs(v int64) expression.ConditionBuilder {
	if v == 0 {
		return expression.AttributeNotExists(expression.Name(schema.AttrVersion))
	}
	return expression.Name(schema.AttrVersion).Equal(expression.Value(store.AttrN(v)))
}

// ReadHead reads the head of subject's list under predicate consistently.
func (c *Engine) ReadHead(ctx context.Context, subject store.Key, predicate string) (relationships.Head, error) {
	item, err := c.core.GetRelationshipItem(ctx, relationships.HeadPrimaryKey(subject, predicate))
	if err != nil {
		return relationships.Head{}, err
	}
	return relationships.HeadFromItem(subject, predicate, item)
}

// headUpdate is the update u of the head of subject's list under predicate, under
// cond; a refusal returns the head as stored.
func (c *Engine) headUpdate(subject store.Key, predicate string, cond expression.ConditionBuilder, u expression.UpdateBuilder) types.TransactWriteItem {
	b := commit.Build(cond, &u)
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                           aws.String(c.core.Names.Relationships),
		Key:                                 relationships.HeadPrimaryKey(subject, predicate),
		UpdateExpression:                    b.Update,
		ConditionExpression:                 b.Condition,
		ExpressionAttributeNames:            b.Names,
		ExpressionAttributeValues:           b.Values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}
}

// leaseIs is the condition that the lease token holds the list.
func leaseIs(token string) expression.ConditionBuilder {
	return expression.Name(schema.AttrLease).Equal(expression.Value(store.AttrS(token)))
}

// leaseChecks returns the actions every transaction under l holds first: the check that
// the lease is still l's, and that the subject exists and is not being deleted.
func (c *Engine) leaseChecks(l *listLease) *actions.Transaction {
	t := &actions.Transaction{}
	b := commit.Build(leaseIs(l.token), nil)
	key := relationships.HeadPrimaryKey(l.subject, l.predicate)
	t.Add(types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName: aws.String(c.core.Names.Relationships), Key: key,
		ConditionExpression: b.Condition, ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values,
	}}, actions.Role{Kind: actions.RoleHead}, schema.ItemSize(key))
	c.CheckEntity(t, l.subject, actions.Role{Kind: actions.RoleEntity})
	return t
}

// finishIntent writes what the writer before l recorded as its intent (among the
// parts s read) and may not have finished: its entry puts and deletes, each
// idempotent. s's entries become the list after them.
func (c *Engine) finishIntent(ctx context.Context, l *listLease, s *LeasedState) error {
	h := l.prior
	if h.Intent == "" {
		return nil
	}
	in, err := relationships.IntentFromItems(l.subject, l.predicate, h.Intent, s.Intents)
	if err != nil {
		return errs.Wrap(err, "the intent left on %s -%s->", l.subject, l.predicate)
	}
	ops := actions.RelationshipOps(c.core.Names.Relationships, c.core.Incoming, relationships.Plan{Puts: in.Puts, Deletes: in.Deletes})
	dropped, err := c.applyLeased(ctx, l, ops, h.CheckObjects)
	switch {
	case err != nil:
		return err
	case len(dropped) > 0: // edges to objects deleted meanwhile were not written
		s.Entries, err = c.ReadList(ctx, l.subject, l.predicate, true)
		return err
	}
	s.Entries = relationships.Apply(s.Entries, relationships.Change{Puts: in.Puts, Deletes: in.Deletes})
	return nil
}

// ReadUnderLease reads the entries of subject's list under predicate, its markers
// and the intent parts in its partition, in parallel and consistently.
func (c *Engine) ReadUnderLease(ctx context.Context, subject store.Key, predicate string) (LeasedState, error) {
	var s LeasedState
	err := batching.Parallel(ctx, 3, 3, func(ctx context.Context, i int) error {
		var err error
		switch i {
		case 0:
			s.Entries, err = c.ReadList(ctx, subject, predicate, true)
		case 1:
			s.Markers, err = c.readMarkers(ctx, subject, predicate)
		default:
			s.Intents, err = c.readIntents(ctx, subject, predicate)
		}
		return err
	})
	return s, err
}

// readMarkers reads every marker of a list.
func (c *Engine) readMarkers(ctx context.Context, subject store.Key, predicate string) ([]relationships.Marker, error) {
	in := store.WithSortPrefix(store.KeyCondition(c.core.Names.Relationships, "", schema.AttrSubjectKey, subject.String()),
		schema.AttrPredicateKey, schema.ListMarkersPrefix(predicate))

	in.ConsistentRead = aws.Bool(true)
	var markers []relationships.Marker
	err := c.core.QueryPages(ctx, in, func(items []map[string]types.AttributeValue) error {
		for _, item := range items {
			r := store.EntityRef{Scope: schema.AttrObjectScope, Type: schema.AttrObjectType, ID: schema.AttrObjectID}
			m, err := relationships.MarkerFromItem(r.Key(item), item)
			if err != nil {
				return err
			}
			markers = append(markers, m)
		}
		return nil
	})

	return markers, err
}

// readIntents reads the intent parts of subject's list for predicate, whatever
// their writer, consistently.
func (c *Engine) readIntents(ctx context.Context, subject store.Key, predicate string) ([]map[string]types.AttributeValue, error) {
	in := store.WithSortPrefix(store.KeyCondition(c.core.Names.Relationships, "", schema.AttrSubjectKey, subject.String()),
		schema.AttrPredicateKey, schema.ListIntentsPrefix(predicate))

	in.ConsistentRead = aws.Bool(true)
	return c.core.QueryAll(ctx, in)
}

// intentKeys returns the primary keys of intent parts.
func intentKeys(items []map[string]types.AttributeValue) []map[string]types.AttributeValue {
	keys := make([]map[string]types.AttributeValue, len(items))
	for i, item := range items {
		keys[i] = batching.Project(item, schema.RelationshipKeyAttrs())
	}
	return keys
}

// recordIntent records the entry writes of ch as l's intent, and marks it whole in
// the head (with whether its edges need their objects) in the transaction of the
// last parts; it returns the keys of the parts. The parts before go first, each
// transaction checking the lease.
func (c *Engine) recordIntent(ctx context.Context, l *listLease, ch relationships.Change, checkObjects bool) ([]map[string]types.AttributeValue, error) {
	parts := relationships.IntentItems(l.subject, l.predicate,
		relationships.Intent{Token: l.token, Puts: ch.Puts, Deletes: ch.Deletes})
	ops := make([]batching.WriteOp, len(parts))
	keys := make([]map[string]types.AttributeValue, len(parts))
	for i, p := range parts {
		keys[i] = batching.Project(p, schema.RelationshipKeyAttrs())
		ops[i] = batching.PutOp(c.core.Names.Relationships, keys[i], p)
	}
	chunks := batching.Chunk(ops, actions.MaxItems-2, actions.MaxBytes-leaseCheckBytes, batching.WriteOp.Size)
	last := chunks[len(chunks)-1]
	if len(chunks) > 1 {
		var earlier []batching.WriteOp
		for _, ch := range chunks[:len(chunks)-1] {
			earlier = append(earlier, ch...)
		}
		if _, err := c.applyLeased(ctx, l, earlier, false); err != nil {
			return nil, err
		}
	}
	u := expression.Set(expression.Name(schema.AttrIntent), expression.Value(store.AttrS(l.token))).
		Set(expression.Name(schema.AttrIntentParts), expression.Value(store.AttrN(int64(len(parts))))).
		Set(expression.Name(schema.AttrCheckObjects), expression.Value(&types.AttributeValueMemberBOOL{Value: checkObjects})).
		Add(expression.Name(schema.AttrVersion), expression.Value(store.AttrN(1)))
	if err := c.updateLeasedHead(ctx, l, u, last); err != nil {
		return nil, err
	}
	return keys, nil
}

// updateLeasedHead updates the head of l's list by u while l holds it and its
// subject exists, in one transaction with ops.
func (c *Engine) updateLeasedHead(ctx context.Context, l *listLease, u expression.UpdateBuilder, ops []batching.WriteOp) error {
	t := &actions.Transaction{}
	t.Add(c.headUpdate(l.subject, l.predicate, leaseIs(l.token), u), actions.Role{Kind: actions.RoleHead}, 0)
	c.CheckEntity(t, l.subject, actions.Role{Kind: actions.RoleEntity})
	t.Actions = append(t.Actions, actions.Items(ops)...)
	a := c.core.Transact(ctx, t.Actions, commit.NewToken())
	switch {
	case a.Outcome == commit.Committed:
		return nil
	case a.Outcome == commit.ConditionFailed && a.Action < len(t.Roles):
		return c.leaseLost(ctx, l)
	}
	return a.Err
}

// leaseCheckBytes bounds what the lease and subject checks add to a transaction.
const leaseCheckBytes = 4 << 10

// markerOps returns the puts and deletes of the marker changes of l's list.
func (c *Engine) markerOps(l *listLease, changes []relationships.MarkerChange) []batching.WriteOp {
	subject := l.subject
	ops := make([]batching.WriteOp, 0, len(changes))
	for _, mc := range changes {
		key := relationships.MarkerPrimaryKey(subject, l.predicate, mc.Object)
		if len(mc.Positions) == 0 {
			ops = append(ops, batching.DeleteOp(c.core.Names.Relationships, key))
		} else {
			ops = append(ops, batching.PutOp(c.core.Names.Relationships, key, relationships.MarkerItem(subject, l.predicate, mc.Object, mc.Positions)))
		}
	}
	return ops
}

// applyLeased writes ops in transactions that each check l's lease and the subject,
// in parallel. With checkObjects each also checks the objects of the edges it puts;
// the edges to an object found missing are dropped (it was deleted while the list
// was held: its Delete counts as coming after) and it returns those objects.
func (c *Engine) applyLeased(ctx context.Context, l *listLease, ops []batching.WriteOp, checkObjects bool) (map[store.Key]bool, error) {
	batch := c.core.Batch.Shared()
	dropped := map[store.Key]bool{}
	for {
		t := c.leaseChecks(l)
		var err error
		if checkObjects {
			err = c.writeCheckingObjects(ctx, batch, t, ops)
		} else {
			err = c.core.TransactChecked(ctx, batch, t.Actions, t.Bytes, ops)
		}
		var gone *missingObject
		switch {
		case errors.As(err, &gone):
			dropped[gone.Object] = true
			ops = withoutEdgesTo(ops, gone.Object)
			continue
		case errors.Is(err, store.ErrGuardFailed):
			return dropped, c.leaseLost(ctx, l)
		}
		return dropped, err
	}
}

// releaseLease ends l with the head's new state: the next free position, and the
// count and digest of the list after, which must be the entries as they stand. It
// deletes the intent parts given, in the same transaction when they fit in it.
func (c *Engine) releaseLease(ctx context.Context, l *listLease, next int, after []relationships.Entry, intents []map[string]types.AttributeValue) error {
	for _, e := range after {
		next = max(next, e.Index+1)
	}
	deletes := deleteOps(c.core.Names.Relationships, intents)
	if room := actions.MaxItems - 2; len(deletes) > room {
		if _, err := c.applyLeased(ctx, l, deletes[room:], false); err != nil {
			return err
		}
		deletes = deletes[:room]
	}
	u := expression.Remove(expression.Name(schema.AttrLease)).
		Remove(expression.Name(schema.AttrLeaseUntil)).
		Remove(expression.Name(schema.AttrIntent)).
		Remove(expression.Name(schema.AttrIntentParts)).
		Remove(expression.Name(schema.AttrCheckObjects)).
		Set(expression.Name(schema.AttrNext), expression.Value(store.AttrN(int64(next)))).
		Set(expression.Name(schema.AttrCount), expression.Value(store.AttrN(int64(len(after))))).
		Set(expression.Name(schema.AttrDigest), expression.Value(actions.Digest(relationships.DigestOf(after)))).
		Add(expression.Name(schema.AttrVersion), expression.Value(store.AttrN(1)))
	// Requests and results of combined writes too old to be waited for, as a
	// combined commit drops them: no writer waits for them any longer.
	for _, name := range relationships.Expired(l.prior, c.core.Now()) {
		u = u.Remove(expression.Name(name))
	}
	return c.updateLeasedHead(ctx, l, u, deletes)
}

// rebuildLeased reads l's list again and releases the lease with markers and head
// rebuilt from its entries.
func (c *Engine) rebuildLeased(ctx context.Context, l *listLease, next int, intents []map[string]types.AttributeValue) error {
	s, err := c.ReadUnderLease(ctx, l.subject, l.predicate)
	if err != nil {
		return err
	}
	if _, err := c.applyLeased(ctx, l, c.markerOps(l, relationships.Reconcile(s.Entries, s.Markers)), false); err != nil {
		return err
	}
	return c.releaseLease(ctx, l, next, s.Entries, append(intents, intentKeys(s.Intents)...))
}

func deleteOps(table string, keys []map[string]types.AttributeValue) []batching.WriteOp {
	seen := map[string]bool{}
	ops := make([]batching.WriteOp, 0, len(keys))
	for _, k := range keys {
		op := batching.DeleteOp(table, k)
		if !seen[op.ID] {
			seen[op.ID] = true
			ops = append(ops, op)
		}
	}
	return ops
}

// leaseLost explains a write whose lease check failed: the subject was deleted, or
// the lease expired and another writer took the list over.
func (c *Engine) leaseLost(ctx context.Context, l *listLease) error {
	item, err := c.core.GetItem(ctx, l.subject, true)
	if err == nil && (item == nil || c.core.Hidden(item)) {
		return c.subjectMissing(ctx, l.subject)
	}
	return &entity.ConflictError{Key: l.subject, Predicate: l.predicate,
		Reason: "the lease expired and another writer took the list over"}
}
