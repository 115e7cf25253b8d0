package actions

import (
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

// Tables names the tables a list change writes and checks.
type Tables struct {
	Entities      string
	Relationships string
	// Shards places the entries put in the reverse index: sharded by their
	// object's type, or not.
	Shards relationships.Shards
}

// AddChange adds to t the actions of a list change: its head, markers and entries,
// and, when checkObjects, the checks that the objects it writes edges to are Live at
// now. A change that writes no entry only checks what it relied on.
func AddChange(t *Transaction, tables Tables, ch relationships.Change, checkObjects bool, now time.Time) {
	list := ch.Predicate
	switch {
	case !ch.Empty() || ch.Combined():
		head := Head(tables.Relationships, ch)
		t.Add(head, Role{Kind: RoleHead, List: list}, schema.ItemSize(head.Update.Key)+HeadBytes)
	case ch.Expect.CheckDigest || ch.Expect.Pinned: // nothing to change: the list must still be the one read
		key := relationships.HeadPrimaryKey(ch.Subject, ch.Predicate)
		b := commit.Build(HeadCondition(ch.Expect), nil)
		t.Add(types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: aws.String(tables.Relationships), Key: key, ConditionExpression: b.Condition,
			ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}}, Role{Kind: RoleHead, List: list}, schema.ItemSize(key))
	}
	for _, mc := range ch.Markers {
		act, bytes := Marker(tables.Relationships, ch, mc)
		t.Add(act, Role{Kind: RoleMarker, Object: mc.Object, List: list}, bytes)
	}
	for _, op := range RelationshipOps(tables.Relationships, tables.Shards, relationships.Plan{Puts: ch.Puts, Deletes: ch.Deletes}) {
		t.Add(Items([]batching.WriteOp{op})[0], Role{Kind: RoleEntry, List: list}, op.Size())
	}
	if checkObjects {
		for _, e := range ch.Puts {
			CheckEntity(t, tables.Entities, e.Object, Role{Kind: RoleObject, Object: e.Object, List: list}, now, nil)
		}
	}
}

// HeadBytes bounds what a head update adds to a transaction besides its key.
const HeadBytes = 300

// Head is the update of a list's head by ch: its conditions (the version read, or
// no head; the digest of a whole-list read; no lease) and its new state, set, or
// added to for a commutative change.
func Head(table string, ch relationships.Change) types.TransactWriteItem {
	cond := HeadCondition(ch.Expect)
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
			Set(expression.Name(schema.AttrDigest), expression.Value(Digest(ch.Digest)))
	}
	cond, u = combining(ch, cond, u)
	b := commit.Build(cond, &u)
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                           aws.String(table),
		Key:                                 relationships.HeadPrimaryKey(ch.Subject, ch.Predicate),
		UpdateExpression:                    b.Update,
		ConditionExpression:                 b.Condition,
		ExpressionAttributeNames:            b.Names,
		ExpressionAttributeValues:           b.Values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}
}

// HeadCondition is the condition that a list's head is as x expects: the version
// read (or no head), or for an Add the next free position read; the digest of a
// whole-list read; the version a conditional write pinned; and no lease. A lease,
// live or expired, keeps every plan out: a live one is another writer's, and an
// expired one may hide writes not finished, which the next writer finishes first.
func HeadCondition(x relationships.HeadExpectation) expression.ConditionBuilder {
	if !x.Exists {
		return expression.AttributeNotExists(expression.Name(schema.AttrVersion))
	}
	cond := expectedHead(x)
	if x.Pinned && x.Pin != x.Version {
		cond = cond.And(expression.Name(schema.AttrVersion).Equal(expression.Value(number(x.Pin))))
	}
	return cond
}

// expectedHead is HeadCondition of a head that exists, but for a pinned version.
func expectedHead(x relationships.HeadExpectation) expression.ConditionBuilder {
	switch {
	case x.CheckNext:
		next := expression.Name(schema.AttrNext).Equal(expression.Value(number(int64(x.Next))))
		if x.Next == 0 {
			next = next.Or(expression.AttributeNotExists(expression.Name(schema.AttrNext)))
		}
		return expression.AttributeExists(expression.Name(schema.AttrVersion)).And(next, NoLease())
	case x.Version == 0:
		return expression.AttributeExists(expression.Name(schema.AttrVersion)).And(NoLease())
	}
	cond := expression.Name(schema.AttrVersion).Equal(expression.Value(number(x.Version))).And(NoLease())
	if x.CheckDigest {
		cond = cond.And(expression.Name(schema.AttrDigest).Equal(expression.Value(Digest(x.Digest))))
	}
	return cond
}

// NoLease is the condition that no writer holds the list, nor left it held.
func NoLease() expression.ConditionBuilder {
	return expression.AttributeNotExists(expression.Name(schema.AttrLease))
}

// Digest is the attribute value of a list's digest.
func Digest(d relationships.Digest) *types.AttributeValueMemberN {
	return &types.AttributeValueMemberN{Value: d.String()}
}

// Marker is the put, delete or check of a marker, conditional on what the change
// relies on, with its size.
func Marker(table string, ch relationships.Change, mc relationships.MarkerChange) (types.TransactWriteItem, int) {
	key := relationships.MarkerPrimaryKey(ch.Subject, ch.Predicate, mc.Object)
	var b commit.Built
	if mc.Check {
		cond := expression.AttributeNotExists(expression.Name(schema.AttrPositions))
		if len(mc.Expect) > 0 {
			cond = expression.Name(schema.AttrPositions).Equal(expression.Value(relationships.PositionSet(mc.Expect)))
		}
		b = commit.Build(cond, nil)
	}
	name := aws.String(table)
	switch {
	case mc.Keep:
		return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: name, Key: key,
			ConditionExpression: b.Condition, ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values}}, schema.ItemSize(key)
	case len(mc.Positions) == 0:
		return types.TransactWriteItem{Delete: &types.Delete{TableName: name, Key: key,
			ConditionExpression: b.Condition, ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values}}, schema.ItemSize(key)
	}
	item := relationships.MarkerItem(ch.Subject, ch.Predicate, mc.Object, mc.Positions)
	return types.TransactWriteItem{Put: &types.Put{TableName: name, Item: item,
		ConditionExpression: b.Condition, ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values}}, schema.ItemSize(item)
}

// RelationshipOps returns the writes of plans to table, the entries put placed in
// the reverse index by shards.
func RelationshipOps(table string, shards relationships.Shards, plans ...relationships.Plan) []batching.WriteOp {
	var puts []relationships.Entry
	var deletes []map[string]types.AttributeValue
	for _, p := range plans {
		puts = append(puts, p.Puts...)
		for _, e := range p.Deletes {
			deletes = append(deletes, e.PrimaryKey())
		}
	}
	return EntryOps(table, shards, puts, deletes)
}

// EntryOps returns the puts of entries, placed in the reverse index by shards, and
// the deletes of keys in table. Deletes come first: should a key be in both, the
// put wins.
func EntryOps(table string, shards relationships.Shards, puts []relationships.Entry, deletes []map[string]types.AttributeValue) []batching.WriteOp {
	ops := make([]batching.WriteOp, 0, len(puts)+len(deletes))
	for _, k := range deletes {
		ops = append(ops, batching.DeleteOp(table, k))
	}
	for _, e := range puts {
		ops = append(ops, batching.PutOp(table, e.PrimaryKey(), shards.Item(e)))
	}
	return ops
}

func number(n int64) *types.AttributeValueMemberN {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

// combining adds to a head's condition and update what ch commits of the requests
// waiting on it: each must still wait (its writer has not withdrawn it), leaves
// the head, and leaves its result unless the committer is its writer; results
// left too long are dropped.
func combining(ch relationships.Change, cond expression.ConditionBuilder, u expression.UpdateBuilder) (expression.ConditionBuilder, expression.UpdateBuilder) {
	for _, a := range ch.Applied {
		waiting := expression.Name(schema.WaitingPrefix + a.ID)
		cond = cond.And(expression.AttributeExists(waiting))
		u = u.Remove(waiting)
		if !a.Own {
			u = u.Set(expression.Name(schema.DonePrefix+a.ID), expression.Value(relationships.DoneValue(a.Changed, ch.At)))
		}
	}
	for _, name := range ch.Prune {
		u = u.Remove(expression.Name(name))
	}
	return cond, u
}
