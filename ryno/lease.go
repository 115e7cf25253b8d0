package ryno

import (
	"context"
	"errors"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

// A change of a list too large for one transaction takes a lease on the list: a
// conditional update of its head setting the writer's token and an expiry, which
// every other write of the list checks is absent or expired. Under the lease the
// writer reads the whole list and its markers, plans against them, writes in
// transactions that each check the lease is still its own and the subject still
// exists, and releases the lease with the head's new state. A writer cut off holds
// the list until the lease expires; the next one takes it over, and since it plans
// against the entries as they are and rewrites every marker and the head from them,
// it leaves the list consistent whatever the former writer left.

// writeListLeased applies op under a lease on its list.
func (c *Client) writeListLeased(ctx context.Context, op listOp) (relationships.Change, error) {
	token := newToken()
	if err := c.takeLease(ctx, op, token); err != nil {
		return relationships.Change{}, err
	}
	ch, after, markers, err := c.planUnderLease(ctx, op)
	if err != nil {
		return ch, err
	}
	if err := c.writeUnderLease(ctx, op, token, ch, markers); err != nil {
		return ch, err
	}
	return ch, c.releaseLease(ctx, op, token, ch.Next, after)
}

// takeLease sets token as the lease of op's list, waiting (within
// Options.Conflicts) while another writer holds a live one.
func (c *Client) takeLease(ctx context.Context, op listOp, token string) error {
	pace := c.conflictPacer()
	for {
		now := c.opts.Now()
		u := expression.Set(expression.Name(schema.AttrLease), expression.Value(str(token))).
			Set(expression.Name(schema.AttrLeaseUntil), expression.Value(number(now.Add(c.opts.ListLease).UnixMilli()))).
			Add(expression.Name(schema.AttrVersion), expression.Value(number(1)))
		for _, name := range []string{schema.AttrNext, schema.AttrCount, schema.AttrDigest} {
			u = u.Set(expression.Name(name), expression.IfNotExists(expression.Name(name), expression.Value(number(0))))
		}
		for name, v := range relationships.RawAttributes(op.relSubject(), op.predicate) {
			u = u.Set(expression.Name(name), expression.Value(v))
		}
		t := &listTransaction{}
		t.add(c.headUpdate(op, noLiveLease(now), u), actionRole{kind: roleHead}, 0)
		c.checkEntity(t, op.subject, actionRole{kind: roleEntity})
		a := c.transact(ctx, t.actions, newToken())
		switch {
		case a.outcome == committed:
			return nil
		case a.outcome != conditionFailed:
			return a.err
		case refusal(t, a).role.kind == roleEntity:
			return c.subjectMissing(ctx, op.subject)
		}
		if err := pace.wait(ctx); err != nil {
			return listConflict(op, wrap(err, "another writer holds the list"))
		}
	}
}

// headUpdate is the update u of op's head under cond.
func (c *Client) headUpdate(op listOp, cond expression.ConditionBuilder, u expression.UpdateBuilder) types.TransactWriteItem {
	b := build(cond, &u)
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                 aws.String(c.names.Relationships),
		Key:                       relationships.HeadPrimaryKey(op.relSubject(), op.predicate),
		UpdateExpression:          b.update,
		ConditionExpression:       b.condition,
		ExpressionAttributeNames:  b.names,
		ExpressionAttributeValues: b.values,
	}}
}

// planUnderLease reads the whole list, its head and its markers, and returns op's
// change, the list after it, and the marker changes that make every marker match
// the list after.
func (c *Client) planUnderLease(ctx context.Context, op listOp) (relationships.Change, []relationships.Entry, []relationships.MarkerChange, error) {
	var s listState
	var stored []relationships.Marker
	err := parallel(ctx, 2, 2, func(ctx context.Context, i int) error {
		var err error
		if i == 0 {
			s, err = c.readWholeList(ctx, op.subject, op.predicate)
		} else {
			stored, err = c.readMarkers(ctx, op.subject, op.predicate)
		}
		return err
	})
	if err != nil {
		return relationships.Change{}, nil, nil, err
	}
	// The entries are the truth: a writer cut off may have written some past Next,
	// and its markers may not match them.
	for _, e := range s.entries {
		s.head.Next = max(s.head.Next, e.Index+1)
	}
	s.markers = relationships.MarkersOf(s.entries)
	ch := op.plan(s)
	after := relationships.Apply(s.entries, ch)
	return ch, after, relationships.Reconcile(after, stored), nil
}

// readMarkers reads every marker of a list.
func (c *Client) readMarkers(ctx context.Context, subject Key, predicate string) ([]relationships.Marker, error) {
	in := withSortPrefix(keyCondition(c.names.Relationships, "", schema.AttrSubjectKey, subject.String()),
		schema.AttrPredicateKey, schema.ListMarkersPrefix(predicate))
	in.ConsistentRead = aws.Bool(true)
	var markers []relationships.Marker
	err := c.queryPages(ctx, in, func(items []map[string]types.AttributeValue) error {
		for _, item := range items {
			r := entityRef{scope: schema.AttrObjectScope, typ: schema.AttrObjectType, id: schema.AttrObjectID}
			m, err := relationships.MarkerFromItem(relationships.Key(r.key(item)), item)
			if err != nil {
				return err
			}
			markers = append(markers, m)
		}
		return nil
	})
	return markers, err
}

// writeUnderLease writes the entries of ch and the markers in transactions that each
// check the lease is still token and the subject exists, in parallel; with object
// checks, each also checks the objects of the edges it writes.
func (c *Client) writeUnderLease(ctx context.Context, op listOp, token string, ch relationships.Change, markers []relationships.MarkerChange) error {
	ops := relationshipOps(c.names.Relationships, relationships.Plan{Puts: ch.Puts, Deletes: ch.Deletes})
	for _, mc := range markers {
		key := relationships.MarkerPrimaryKey(ch.Subject, ch.Predicate, mc.Object)
		if len(mc.Positions) == 0 {
			ops = append(ops, deleteOp(c.names.Relationships, key))
		} else {
			ops = append(ops, putOp(c.names.Relationships, key, relationships.MarkerItem(ch.Subject, ch.Predicate, mc.Object, mc.Positions)))
		}
	}
	t := &listTransaction{}
	lease := expression.Name(schema.AttrLease).Equal(expression.Value(str(token)))
	b := build(lease, nil)
	t.add(types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName: aws.String(c.names.Relationships), Key: relationships.HeadPrimaryKey(op.relSubject(), op.predicate),
		ConditionExpression: b.condition, ExpressionAttributeNames: b.names, ExpressionAttributeValues: b.values,
	}}, actionRole{kind: roleHead}, 0)
	c.checkEntity(t, op.subject, actionRole{kind: roleEntity})
	batch := c.batch.shared()
	var err error
	if op.checkObjects {
		err = c.writeCheckingObjects(ctx, batch, t, ops)
	} else {
		err = c.transactChecked(ctx, batch, t.actions, t.bytes, ops)
	}
	if errors.Is(err, errGuardFailed) {
		return c.leaseLost(ctx, op)
	}
	return err
}

// writeCheckingObjects writes ops in transactions of at most half the actions, each
// with the checks of t and of the objects its entry puts point at.
func (c *Client) writeCheckingObjects(ctx context.Context, batch *batcher, t *listTransaction, ops []writeOp) error {
	per := (maxTransactItems - len(t.actions)) / 2
	chunks := chunk(lastWriteWins(ops), per, maxTransactBytes/2, writeOp.size)
	return parallel(ctx, len(chunks), c.opts.MaxConcurrency, func(ctx context.Context, i int) error {
		ct := &listTransaction{actions: slices.Clone(t.actions), roles: slices.Clone(t.roles), bytes: t.bytes}
		for _, op := range chunks[i] {
			if op.item != nil && op.item[schema.AttrObjectKey] != nil {
				e, err := relationships.FromItem(op.item)
				if err != nil {
					return err
				}
				c.checkEntity(ct, Key(e.Object), actionRole{kind: roleObject, object: Key(e.Object)})
			}
		}
		checks := len(ct.actions)
		ct.actions = append(ct.actions, transactItems(chunks[i])...)
		release, err := batch.acquire(ctx)
		if err != nil {
			return err
		}
		defer release()
		a := c.transact(ctx, ct.actions, newToken())
		switch {
		case a.outcome == committed:
			return nil
		case a.outcome == conditionFailed && a.action < len(t.actions):
			return errGuardFailed
		case a.outcome == conditionFailed && a.action < checks:
			return refusal(ct, a).missing
		}
		return a.err
	})
}

// releaseLease ends the lease token with the head's new state: the next free
// position and the count and digest of the list after.
func (c *Client) releaseLease(ctx context.Context, op listOp, token string, next int, after []relationships.Entry) error {
	for _, e := range after {
		next = max(next, e.Index+1)
	}
	u := expression.Remove(expression.Name(schema.AttrLease)).
		Remove(expression.Name(schema.AttrLeaseUntil)).
		Set(expression.Name(schema.AttrNext), expression.Value(number(int64(next)))).
		Set(expression.Name(schema.AttrCount), expression.Value(number(int64(len(after))))).
		Set(expression.Name(schema.AttrDigest), expression.Value(digestValue(relationships.DigestOf(after)))).
		Add(expression.Name(schema.AttrVersion), expression.Value(number(1)))
	t := &listTransaction{}
	t.add(c.headUpdate(op, expression.Name(schema.AttrLease).Equal(expression.Value(str(token))), u), actionRole{kind: roleHead}, 0)
	c.checkEntity(t, op.subject, actionRole{kind: roleEntity})
	a := c.transact(ctx, t.actions, newToken())
	switch {
	case a.outcome == committed:
		return nil
	case a.outcome == conditionFailed:
		return c.leaseLost(ctx, op)
	}
	return a.err
}

// leaseLost explains a write whose lease check failed: the subject was deleted, or
// the lease expired and another writer took the list over.
func (c *Client) leaseLost(ctx context.Context, op listOp) error {
	item, err := c.getItem(ctx, op.subject, true)
	if err == nil && (item == nil || deleted(item)) {
		return c.subjectMissing(ctx, op.subject)
	}
	return listConflict(op, errors.New("the lease expired and another writer took the list over"))
}
