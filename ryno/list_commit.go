package ryno

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

// A list write reads the list's head and what it changes (the markers of its
// objects, or the whole list), plans a relationships.Change, and commits it in one
// transaction whose conditions make the plan hold at commit: the head's version (and
// the digest of a whole-list read), each marker it relies on, the subject's
// existence and, when asked, the objects'. A refused condition means another writer
// got there first: it reads and plans again. Changes too large for one transaction
// take a lease on the list instead (lease.go).

// listKind is the operation of a list write.
type listKind int

const (
	listAdd listKind = iota
	listRemove
	listReplace
)

func (k listKind) String() string {
	return [...]string{"add relationships", "remove relationships", "replace relationships"}[k]
}

// listOp is one write of a subject's list for a predicate.
type listOp struct {
	kind         listKind
	subject      Key
	predicate    string
	objects      []Key
	checkObjects bool
}

func (op listOp) relSubject() relationships.Key { return relationships.Key(op.subject) }

// listState is what a list write read: the head, and the markers of its objects
// (Add, Remove) or the whole list (Replace).
type listState struct {
	head    relationships.Head
	markers map[relationships.Key]relationships.Marker
	entries []relationships.Entry
}

// readListState reads what op plans from, in one round: the head and the markers in
// one consistent BatchGetItem, or the head and the whole list in parallel.
func (c *Client) readListState(ctx context.Context, op listOp) (listState, error) {
	if op.kind == listReplace {
		return c.readWholeList(ctx, op.subject, op.predicate)
	}
	objects := distinctKeys(op.objects)
	ops := make([]batching.GetOp, 0, len(objects)+1)
	ops = append(ops, batching.NewGetOp(c.names.Relationships, relationships.HeadPrimaryKey(op.relSubject(), op.predicate)))
	for _, o := range objects {
		ops = append(ops, batching.NewGetOp(c.names.Relationships, relationships.MarkerPrimaryKey(op.relSubject(), op.predicate, relationships.Key(o))))
	}
	items, err := c.batch.Get(ctx, ops, batching.ReadOptions{Consistent: true})
	if err != nil {
		return listState{}, err
	}
	var s listState
	if s.head, err = relationships.HeadFromItem(op.relSubject(), op.predicate, items[ops[0].ID]); err != nil {
		return s, err
	}
	s.markers = make(map[relationships.Key]relationships.Marker, len(objects))
	for i, o := range objects {
		m, err := relationships.MarkerFromItem(relationships.Key(o), items[ops[i+1].ID])
		if err != nil {
			return s, err
		}
		s.markers[relationships.Key(o)] = m
	}
	return s, nil
}

// readWholeList reads the head of a list and its entries in parallel.
func (c *Client) readWholeList(ctx context.Context, subject Key, predicate string) (listState, error) {
	var s listState
	var head map[string]types.AttributeValue
	err := batching.Parallel(ctx, 2, 2, func(ctx context.Context, i int) error {
		var err error
		if i == 0 {
			head, err = c.getRelationshipItem(ctx, relationships.HeadPrimaryKey(relationships.Key(subject), predicate))
		} else {
			s.entries, err = c.readList(ctx, subject, predicate, true)
		}
		return err
	})
	if err != nil {
		return s, err
	}
	s.head, err = relationships.HeadFromItem(relationships.Key(subject), predicate, head)
	return s, err
}

// readHeads reads the heads of subject's lists for predicates in one consistent
// BatchGetItem.
func (c *Client) readHeads(ctx context.Context, subject Key, predicates []string) ([]relationships.Head, error) {
	ops := make([]batching.GetOp, len(predicates))
	for i, p := range predicates {
		ops[i] = batching.NewGetOp(c.names.Relationships, relationships.HeadPrimaryKey(relationships.Key(subject), p))
	}
	items, err := c.batch.Get(ctx, ops, batching.ReadOptions{Consistent: true})
	if err != nil {
		return nil, err
	}
	heads := make([]relationships.Head, len(predicates))
	for i, p := range predicates {
		if heads[i], err = relationships.HeadFromItem(relationships.Key(subject), p, items[ops[i].ID]); err != nil {
			return nil, err
		}
	}
	return heads, nil
}

// getInput is a strongly consistent GetItem of key in table.
func getInput(table string, key map[string]types.AttributeValue) *dynamodb.GetItemInput {
	return &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)}
}

// getRelationshipItem reads one item of the relationship entries table
// consistently; nil when there is none.
func (c *Client) getRelationshipItem(ctx context.Context, key map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	out, err := c.api.GetItem(ctx, getInput(c.names.Relationships, key))
	if err != nil {
		return nil, err
	}
	return out.Item, nil
}

// plan returns the change op makes to the list read.
func (op listOp) plan(s listState) relationships.Change {
	objects := relKeys(op.objects)
	switch op.kind {
	case listAdd:
		return relationships.ChangeAdd(s.head, s.markers, objects)
	case listRemove:
		return relationships.ChangeRemove(s.head, s.markers, objects)
	}
	return relationships.ChangeReplace(s.head, s.entries, objects)
}

// actionRole says what one action of a list transaction is, to read a cancellation.
type actionRole struct {
	kind    roleKind
	object  Key // roleObject, roleMarker: which
	list    string
	claim   indexentries.Claim // roleClaim: which
	release bool               // roleClaim: a release rather than a claim
}

type roleKind int

const (
	roleEntity   roleKind = iota // the entity put of a Set, or the subject's check
	roleHead                     // a list's head
	roleMarker                   // a marker
	roleEntry                    // an entry put or delete
	roleObject                   // an object's existence check
	roleIndex                    // an index entry
	roleClaim                    // a claim of a unique index value
	roleSequence                 // a draw from a sequence
)

// listTransaction accumulates the actions of one transaction writing lists, with the
// role of each.
type listTransaction struct {
	actions []types.TransactWriteItem
	roles   []actionRole
	bytes   int
	checked map[Key]bool // entities already checked or written
}

func (t *listTransaction) add(act types.TransactWriteItem, role actionRole, bytes int) {
	t.actions = append(t.actions, act)
	t.roles = append(t.roles, role)
	t.bytes += bytes
}

func (t *listTransaction) fits() bool {
	return len(t.actions) <= maxTransactItems && t.bytes <= maxTransactBytes
}

// checkEntity adds the check that k exists, is not being deleted and has not
// expired, once per entity.
func (c *Client) checkEntity(t *listTransaction, k Key, role actionRole) {
	c.checkEntityAlso(t, k, role, nil)
}

// checkEntityAlso is checkEntity with the condition also, when not nil, in the same
// check.
func (c *Client) checkEntityAlso(t *listTransaction, k Key, role actionRole, also *Condition) {
	if t.checked == nil {
		t.checked = map[Key]bool{}
	}
	if t.checked[k] {
		return
	}
	t.checked[k] = true
	cond := expression.AttributeExists(expression.Name(schema.AttrID)).
		And(expression.AttributeNotExists(expression.Name(schema.AttrDeleting)), notExpired(c.opts.Now()))
	check := &types.ConditionCheck{TableName: aws.String(c.names.Entities), Key: k.item()}
	if also != nil {
		cond = cond.And(also.build(c.opts.Now()))
		check.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	b := commit.Build(cond, nil)
	check.ConditionExpression, check.ExpressionAttributeNames, check.ExpressionAttributeValues = b.Condition, b.Names, b.Values
	t.add(types.TransactWriteItem{ConditionCheck: check}, role, schema.ItemSize(k.item()))
}

// addChange adds the actions of a list change: its head, markers and entries, and
// the existence checks of the objects it writes edges to when checkObjects. A change
// that writes no entry only checks what it relied on.
func (c *Client) addChange(t *listTransaction, ch relationships.Change, checkObjects bool) {
	list := ch.Predicate
	switch {
	case !ch.Empty():
		head := c.headAction(ch)
		t.add(head, actionRole{kind: roleHead, list: list}, schema.ItemSize(head.Update.Key)+headBytes)
	case ch.Expect.CheckDigest: // a Replace with nothing to change: the list must still be the one read
		key := relationships.HeadPrimaryKey(ch.Subject, ch.Predicate)
		b := commit.Build(headCondition(ch.Expect), nil)
		t.add(types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: aws.String(c.names.Relationships), Key: key, ConditionExpression: b.Condition,
			ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}}, actionRole{kind: roleHead, list: list}, schema.ItemSize(key))
	}
	for _, mc := range ch.Markers {
		act, bytes := c.markerAction(ch, mc)
		t.add(act, actionRole{kind: roleMarker, object: Key(mc.Object), list: list}, bytes)
	}
	for _, op := range relationshipOps(c.names.Relationships, relationships.Plan{Puts: ch.Puts, Deletes: ch.Deletes}) {
		t.add(transactItems([]batching.WriteOp{op})[0], actionRole{kind: roleEntry, list: list}, op.Size())
	}
	if checkObjects {
		for _, e := range ch.Puts {
			c.checkEntity(t, Key(e.Object), actionRole{kind: roleObject, object: Key(e.Object), list: list})
		}
	}
}

// headBytes bounds what a head update adds to a transaction besides its key.
const headBytes = 300

// headAction is the update of a list's head by ch: its conditions (the version read,
// or no head; the digest of a whole-list read; no lease) and its new state, set, or
// added to for a commutative change.
func (c *Client) headAction(ch relationships.Change) types.TransactWriteItem {
	cond := headCondition(ch.Expect)
	u := expression.Add(expression.Name(schema.AttrVersion), expression.Value(number(1)))
	for name, v := range relationships.RawAttributes(ch.Subject, ch.Predicate) {
		u = u.Set(expression.Name(name), expression.Value(v))
	}
	if ch.SetsNext() {
		u = u.Set(expression.Name(schema.AttrNext), expression.Value(number(int64(ch.Next))))
	}
	if ch.Commutative() {
		u = u.Add(expression.Name(schema.AttrCount), expression.Value(number(int64(ch.CountDelta)))).
			Add(expression.Name(schema.AttrDigest), expression.Value(&types.AttributeValueMemberN{Value: ch.DigestDelta.String()}))
	} else {
		u = u.Set(expression.Name(schema.AttrCount), expression.Value(number(int64(ch.Count)))).
			Set(expression.Name(schema.AttrDigest), expression.Value(digestValue(ch.Digest)))
	}
	b := commit.Build(cond, &u)
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                           aws.String(c.names.Relationships),
		Key:                                 relationships.HeadPrimaryKey(ch.Subject, ch.Predicate),
		UpdateExpression:                    b.Update,
		ConditionExpression:                 b.Condition,
		ExpressionAttributeNames:            b.Names,
		ExpressionAttributeValues:           b.Values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}
}

// headCondition is the condition that a list's head is as x expects: the version
// read (or no head), or for an Add the next free position read; the digest of a
// whole-list read; and no lease. A lease, live or expired, keeps every plan out: a
// live one is another writer's, and an expired one may hide writes not finished,
// which the next writer finishes first (lease.go).
func headCondition(x relationships.HeadExpectation) expression.ConditionBuilder {
	switch {
	case !x.Exists:
		return expression.AttributeNotExists(expression.Name(schema.AttrVersion))
	case x.CheckNext:
		next := expression.Name(schema.AttrNext).Equal(expression.Value(number(int64(x.Next))))
		if x.Next == 0 {
			next = next.Or(expression.AttributeNotExists(expression.Name(schema.AttrNext)))
		}
		return expression.AttributeExists(expression.Name(schema.AttrVersion)).And(next, noLease())
	case x.Version == 0:
		return expression.AttributeExists(expression.Name(schema.AttrVersion)).And(noLease())
	}
	cond := expression.Name(schema.AttrVersion).Equal(expression.Value(number(x.Version))).And(noLease())
	if x.CheckDigest {
		cond = cond.And(expression.Name(schema.AttrDigest).Equal(expression.Value(digestValue(x.Digest))))
	}
	return cond
}

// noLease is the condition that no writer holds the list, nor left it held.
func noLease() expression.ConditionBuilder {
	return expression.AttributeNotExists(expression.Name(schema.AttrLease))
}

func digestValue(d relationships.Digest) *types.AttributeValueMemberN {
	return &types.AttributeValueMemberN{Value: d.String()}
}

// markerAction is the put, delete or check of a marker, conditional on what the
// change relies on.
func (c *Client) markerAction(ch relationships.Change, mc relationships.MarkerChange) (types.TransactWriteItem, int) {
	key := relationships.MarkerPrimaryKey(ch.Subject, ch.Predicate, mc.Object)
	var b commit.Built
	if mc.Check {
		cond := expression.AttributeNotExists(expression.Name(schema.AttrPositions))
		if len(mc.Expect) > 0 {
			cond = expression.Name(schema.AttrPositions).Equal(expression.Value(relationships.PositionSet(mc.Expect)))
		}
		b = commit.Build(cond, nil)
	}
	table := aws.String(c.names.Relationships)
	switch {
	case mc.Keep:
		return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: table, Key: key,
			ConditionExpression: b.Condition, ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values}}, schema.ItemSize(key)
	case len(mc.Positions) == 0:
		return types.TransactWriteItem{Delete: &types.Delete{TableName: table, Key: key,
			ConditionExpression: b.Condition, ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values}}, schema.ItemSize(key)
	}
	item := relationships.MarkerItem(ch.Subject, ch.Predicate, mc.Object, mc.Positions)
	return types.TransactWriteItem{Put: &types.Put{TableName: table, Item: item,
		ConditionExpression: b.Condition, ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values}}, schema.ItemSize(item)
}

// listRefusal is why a list transaction was refused: a condition another writer
// broke (retry), or an entity that does not exist (final).
type listRefusal struct {
	role    actionRole
	missing error // ErrNotFound naming the entity, when an existence check failed
}

// refusal reads the cancellation of a list transaction from the failed action.
func refusal(t *listTransaction, a commit.Attempt) listRefusal {
	if a.Action < 0 || a.Action >= len(t.roles) {
		return listRefusal{}
	}
	r := listRefusal{role: t.roles[a.Action]}
	if r.role.kind == roleObject {
		r.missing = &objectMissingError{object: r.role.object}
	}
	return r
}

// listConflict is the error of a list write that kept losing races.
func listConflict(op listOp, err error) error {
	return &ConflictError{Key: op.subject, Predicate: op.predicate, Reason: "concurrent writers kept changing it: " + err.Error()}
}
