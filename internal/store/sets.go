package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

// WriteSet runs a list call on a set.
func (c *Core) WriteSet(ctx context.Context, op ListOp) (relationships.Change, error) {
	switch op.Kind {
	case ListAdd:
		added, err := c.addToSet(ctx, op)
		return relationships.Change{Added: added}, err
	case ListRemove:
		removed, err := c.removeFromSet(ctx, op)
		return relationships.Change{Removed: removed}, err
	}
	return relationships.Change{}, c.replaceSet(ctx, op)
}

// addToSet puts the entry of each object in parallel, then confirms the subject
// (and the objects, with CheckObjects). It returns the objects whose entries were
// not there before.
func (c *Core) addToSet(ctx context.Context, op ListOp) ([]Key, error) {
	objects := DistinctKeys(op.Objects)
	token := commit.NewToken()
	items := make([]map[string]types.AttributeValue, len(objects))
	for i, k := range objects { // in order: an ordered set takes their positions in it
		items[i] = c.SetItem(op, k, token)
	}
	added, err := c.putEntries(ctx, objects, items, token, c.Ordered[op.Predicate])
	if err != nil {
		return nil, err
	}
	if err := c.confirmSet(ctx, op, objects, added, token, false); err != nil {
		return nil, err
	}
	return added, nil
}

// putEntries puts items, the entries of objects written by the call token, one
// PutItem each in parallel, and returns the objects whose entries were not there
// before: those the call created, which it alone may take back. With keep, an
// entry already there stays in its place (keepPlace).
func (c *Core) putEntries(ctx context.Context, objects []Key, items []map[string]types.AttributeValue, token string, keep bool) ([]Key, error) {
	created := make([]bool, len(objects))
	err := batching.Parallel(ctx, len(objects), c.MaxConcurrency, func(ctx context.Context, i int) error {
		in := &dynamodb.PutItemInput{
			TableName:    aws.String(c.Names.Relationships),
			Item:         items[i],
			ReturnValues: types.ReturnValueAllOld,
		}
		if keep {
			keepPlace(in, token)
		}
		out, err := c.API.PutItem(ctx, in)
		if a := commit.Classify(err); a.Outcome == commit.ConditionFailed {
			return nil // the object is in the ordered set already, in its place
		}
		if err != nil {
			return err
		}
		// An entry holding this call's token is one an attempt the SDK retried wrote.
		created[i] = out.Attributes == nil || entitystate.OptionalString(out.Attributes, schema.AttrToken) == token
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []Key
	for i, k := range objects {
		if created[i] {
			out = append(out, k)
		}
	}
	return out, nil
}

// writeChanges writes ops, a Replace's deletes and puts of entries, in
// BatchWriteItem requests, and the puts of items, the entries of fresh, the
// objects new to the set: with them in the batches too, unless op checks its
// objects. Then each goes alone beside the batches (putEntries), so that a Replace
// failing on a missing object takes back only the entries it created, not one that
// another writer's Add put after the Replace read the set. It returns the objects
// whose entries the call created.
func (c *Core) writeChanges(ctx context.Context, op ListOp, ops []batching.WriteOp, fresh []Key, items []map[string]types.AttributeValue, token string) ([]Key, error) {
	if !op.CheckObjects {
		for _, item := range items {
			ops = append(ops, batching.PutOp(c.Names.Relationships, batching.Project(item, schema.RelationshipKeyAttrs()), item))
		}
		return fresh, c.Batch.Write(ctx, ops)
	}
	var created []Key
	err := batching.Parallel(ctx, 2, 2, func(ctx context.Context, i int) error {
		if i == 0 {
			return c.Batch.Write(ctx, ops)
		}
		var err error
		created, err = c.putEntries(ctx, fresh, items, token, false)
		return err
	})
	return created, err
}

// SetEntry is the entry of object in op's set.
func (op ListOp) SetEntry(object Key) relationships.Entry {
	return relationships.SetEntry(op.Subject, op.Predicate, object)
}

// removeFromSet deletes the entry of each object, beside a consistent read of the
// subject: one round. Entries of a missing subject are its Delete's leftovers, so
// deleting them first is harmless. It returns the objects whose entries it deleted.
func (c *Core) removeFromSet(ctx context.Context, op ListOp) ([]Key, error) {
	objects := DistinctKeys(op.Objects)
	removed := make([]bool, len(objects))
	var subject map[string]types.AttributeValue
	err := batching.Parallel(ctx, len(objects)+1, c.MaxConcurrency+1, func(ctx context.Context, i int) error {
		if i == len(objects) {
			var err error
			subject, err = c.GetItem(ctx, op.Subject, true)
			return err
		}
		e := op.SetEntry(objects[i])
		out, err := c.API.DeleteItem(ctx, &dynamodb.DeleteItemInput{
			TableName:    aws.String(c.Names.Relationships),
			Key:          e.PrimaryKey(),
			ReturnValues: types.ReturnValueAllOld,
		})
		if err == nil {
			removed[i] = out.Attributes != nil
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	s, err := c.ReadStored(op.Subject, subject)
	switch {
	case err != nil:
		return nil, err
	case !s.Live():
		return nil, c.SubjectEnded(ctx, op.Subject, s)
	}
	var out []Key
	for i, k := range objects {
		if removed[i] {
			out = append(out, k)
		}
	}
	return out, nil
}

// replaceSet reads the set, then deletes the entries of objects no longer in it
// and puts those of objects new to it, in BatchWriteItem requests, then confirms
// the subject as addToSet does.
func (c *Core) replaceSet(ctx context.Context, op ListOp) error {
	if c.Ordered[op.Predicate] {
		return c.replaceOrderedSet(ctx, op)
	}
	current, err := c.readToReplace(ctx, op)
	if err != nil {
		return err
	}
	want := DistinctKeys(op.Objects)
	wanted := make(map[Key]bool, len(want))
	for _, k := range want {
		wanted[k] = true
	}
	held := make(map[Key]bool, len(current))
	token := commit.NewToken()
	var ops []batching.WriteOp
	for _, e := range current {
		if !e.InSet {
			continue
		}
		held[e.Object] = true
		if !wanted[e.Object] {
			ops = append(ops, batching.DeleteOp(c.Names.Relationships, e.PrimaryKey()))
		}
	}
	add := op
	add.Objects = nil
	var items []map[string]types.AttributeValue
	for _, k := range want {
		if !held[k] {
			add.Objects = append(add.Objects, k)
			items = append(items, c.SetItem(op, k, token))
		}
	}
	created, err := c.writeChanges(ctx, op, ops, add.Objects, items, token)
	if err != nil {
		return err
	}
	return c.confirmSet(ctx, add, add.Objects, created, token, true)
}

// confirmSet reads, after the call token wrote the entries of objects (created
// those of created), the subject and, with CheckObjects, the objects, consistently.
// A live subject (and objects) confirms the write. Otherwise the call takes its
// entries back and fails with ErrNotFound: a subject being deleted has its Delete
// completed (which sweeps them, unless the Delete ended first) and is read again; a
// missing subject has them deleted while it stays missing (should it be created
// meanwhile, the entries are its own, and the write stands). A missing object
// fails an Add, which takes back the entries it created; a Replace, which found
// every object before it wrote (readToReplace), stands, as if it came before the
// object's Delete: it deletes the entries it wrote to the object, which that
// Delete's sweep may have missed.
func (c *Core) confirmSet(ctx context.Context, op ListOp, objects, created []Key, token string, replace bool) error {
	var gone *entitystate.State // the subject as the last attempt read it, not live
	giveUp := func(_, _ error) error { return notFound(op.Subject) }
	_, err := batching.Attempts(ctx, batching.Tries(maxSetConfirmations+1), giveUp, func(ctx context.Context) (struct{}, batching.Step, error) {
		if gone != nil {
			if done, err := c.settleGone(ctx, op, objects, *gone); done {
				return struct{}{}, batching.Done, err
			}
		}
		keys := []Key{op.Subject}
		if op.CheckObjects {
			keys = append(keys, objects...)
		}
		found, err := c.ReadEntities(ctx, keys)
		if err != nil {
			return struct{}{}, batching.Done, err
		}
		s, err := c.ReadStored(op.Subject, found[0])
		switch {
		case err != nil:
			return struct{}{}, batching.Done, err
		case s.Live():
			return struct{}{}, batching.Done, c.confirmObjects(ctx, op, objects, created, found[1:], token, replace)
		}
		gone = &s
		return struct{}{}, batching.Retry, nil
	})
	return err
}

// settleGone acts, before confirmSet reads the subject again, on the subject it
// read as s, not live: it completes its Delete, or deletes the entries of objects
// while it stays missing. It reports whether the write is over: the entries taken
// back, or an error.
func (c *Core) settleGone(ctx context.Context, op ListOp, objects []Key, s entitystate.State) (bool, error) {
	if s.Exists() {
		if err := c.CompleteDelete(ctx, op.Subject, s); err != nil {
			return true, errs.Wrap(err, "completing a delete in progress")
		}
		return false, nil
	}
	err := c.TransactGuarded(ctx, c.Batch.Shared(), Guard{Key: op.Subject, Absent: true}, c.setDeletes(op, objects))
	if !errors.Is(err, ErrGuardFailed) {
		return true, errors.Join(err, notFound(op.Subject))
	}
	return false, nil
}

// maxSetConfirmations bounds how often a set write reads its subject again: after
// completing its Delete, or when it was created while the write took its entries
// back.
const maxSetConfirmations = 4

// confirmObjects checks objects, items holding what was read of each. When one is
// missing, an Add fails after deleting the entries of created; a Replace deletes
// the entries it wrote to the missing objects and stands (see confirmSet).
func (c *Core) confirmObjects(ctx context.Context, op ListOp, objects, created []Key, items []map[string]types.AttributeValue, token string, replace bool) error {
	missing, err := c.missingObjects(objects, items)
	switch {
	case len(missing) == 0:
		return nil
	case replace:
		return c.takeBack(ctx, op, missing, token)
	}
	return errors.Join(err, c.takeBack(ctx, op, created, token))
}

// missingObjects returns the objects that items, what was read of each, find
// missing, and the error of the first.
func (c *Core) missingObjects(objects []Key, items []map[string]types.AttributeValue) ([]Key, error) {
	var missing []Key
	var first error
	for i, item := range items {
		if s, err := c.ReadStored(objects[i], item); err != nil || !s.Live() {
			missing = append(missing, objects[i])
			if first == nil {
				first = errors.Join(err, fmt.Errorf("object %w", notFound(objects[i])))
			}
		}
	}
	return missing, first
}

// readToReplace reads the set op replaces and, with CheckObjects, its objects, in
// one round: a Replace naming a missing object is refused before it writes anything.
func (c *Core) readToReplace(ctx context.Context, op ListOp) ([]relationships.Entry, error) {
	var current []relationships.Entry
	var found []map[string]types.AttributeValue
	objects := DistinctKeys(op.Objects)
	check := op.CheckObjects && len(objects) > 0
	err := batching.Parallel(ctx, 2, 2, func(ctx context.Context, i int) error {
		var err error
		switch {
		case i == 0:
			current, err = c.ReadList(ctx, op.Subject, op.Predicate, true)
		case check:
			found, err = c.ReadEntities(ctx, objects)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if _, err := c.missingObjects(objects, found); err != nil {
		return nil, err
	}
	return current, nil
}

// takeBack deletes the entries of objects that the call token wrote and nobody
// wrote again since.
func (c *Core) takeBack(ctx context.Context, op ListOp, objects []Key, token string) error {
	return batching.Parallel(ctx, len(objects), c.MaxConcurrency, func(ctx context.Context, i int) error {
		return c.DeleteIfToken(ctx, op.SetEntry(objects[i]).PrimaryKey(), token)
	})
}

// setDeletes are the deletes of the entries of objects in op's set.
func (c *Core) setDeletes(op ListOp, objects []Key) []batching.WriteOp {
	ops := make([]batching.WriteOp, len(objects))
	for i, k := range objects {
		ops[i] = batching.DeleteOp(c.Names.Relationships, op.SetEntry(k).PrimaryKey())
	}
	return ops
}

// SubjectEnded is the error of a set write whose subject s is not live: a Delete in
// progress is completed first, as every writer meeting a tombstone does.
func (c *Core) SubjectEnded(ctx context.Context, k Key, s entitystate.State) error {
	if s.Ending() {
		if err := c.CompleteDelete(ctx, k, s); err != nil {
			return errs.Wrap(err, "completing a delete in progress")
		}
	}
	return notFound(k)
}

// ReadEntities reads the items of keys consistently, in order, nil where missing:
// one GetItem for one key, BatchGetItem requests for more.
func (c *Core) ReadEntities(ctx context.Context, keys []Key) ([]map[string]types.AttributeValue, error) {
	if len(keys) == 1 {
		item, err := c.GetItem(ctx, keys[0], true)
		return []map[string]types.AttributeValue{item}, err
	}
	return c.BatchReadEntities(ctx, keys, batching.ReadOptions{Consistent: true})
}

// CountSet counts the entries of a set with Query's COUNT, one request per MB of
// entries.
func (c *Core) CountSet(ctx context.Context, subject Key, predicate string) (int, error) {
	in := c.OutgoingQuery(subject, predicate)
	in.Select = types.SelectCount
	n := 0
	for {
		out, err := c.API.Query(ctx, in)
		if err != nil {
			return 0, err
		}
		n += int(out.Count)
		if len(out.LastEvaluatedKey) == 0 {
			return n, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// positionClock gives the positions of an ordered set's entries: increasing within
// the client, and the clock's microseconds times PositionStride across clients.
type positionClock struct {
	mu   sync.Mutex
	last int64
}

// PositionStride is how many positions a microsecond holds, and how far apart
// the positions of the objects of one call are: room for up to 1,023 objects put
// between two neighbours later, with no other object moved (a Replace spreads them
// evenly; one at a time at the same place, each halves the room). Positions last
// until the year 2255.
const PositionStride = 1024

// take reserves n positions PositionStride apart, the first no less than floor,
// and returns the first.
func (p *positionClock) take(now time.Time, n int, floor int64) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	first := max(now.UnixMicro()*PositionStride, p.last+PositionStride, floor)
	p.last = first + int64(max(n-1, 0))*PositionStride
	return first
}

// SetItem is the item of object's entry in op's set, written by the call token;
// the entry of an ordered set takes the next position.
func (c *Core) SetItem(op ListOp, object Key, token string) map[string]types.AttributeValue {
	e := op.SetEntry(object)
	if c.Ordered[op.Predicate] {
		e = relationships.OrderedSetEntry(op.Subject, op.Predicate, object, c.clock.take(c.Now(), 1, 0))
	}
	return TokenItem(e, token)
}

// TokenItem is e's item, written by the call token.
func TokenItem(e relationships.Entry, token string) map[string]types.AttributeValue {
	item := e.Item()
	item[schema.AttrToken] = attrS(token)
	return item
}

// keepPlace makes in, the put of an entry of an ordered set by the call token,
// leave an entry that is there in its place: it writes only where there is none,
// or where an attempt of the same call (which the SDK retried) wrote it.
func keepPlace(in *dynamodb.PutItemInput, token string) {
	b := commit.Build(expression.AttributeNotExists(expression.Name(schema.AttrSubjectKey)).
		Or(expression.Name(schema.AttrToken).Equal(expression.Value(attrS(token)))), nil)
	in.ConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues = b.Condition, b.Names, b.Values
}

// replaceOrderedSet reads the set, then writes, in BatchWriteItem requests, the
// deletes and puts of relationships.PlanOrderedSet: the objects no longer there go,
// new objects and those out of order are put at their positions. Then it confirms
// the subject as addToSet does.
func (c *Core) replaceOrderedSet(ctx context.Context, op ListOp) error {
	current, err := c.readToReplace(ctx, op)
	if err != nil {
		return err
	}
	want := DistinctKeys(op.Objects)
	var ordered, unplaced []relationships.Entry
	floor := int64(0)
	for _, e := range current {
		switch {
		case e.Ordered:
			ordered = append(ordered, e)
			floor = max(floor, e.Position+1)
		case e.InSet:
			unplaced = append(unplaced, e) // written without a position
		}
	}
	plan := relationships.PlanOrderedSet(op.Subject, op.Predicate, ordered, want,
		c.clock.take(c.Now(), len(want), floor), PositionStride)
	// An entry without a position goes, unless the plan puts its object (over it).
	var ops []batching.WriteOp
	for _, e := range unplaced {
		if !slices.Contains(want, e.Object) {
			ops = append(ops, batching.DeleteOp(c.Names.Relationships, e.PrimaryKey()))
		}
	}
	token := commit.NewToken()
	held := make(map[Key]bool, len(ordered))
	for _, e := range ordered {
		held[e.Object] = true
	}
	add := op
	add.Objects = nil
	var items []map[string]types.AttributeValue
	var put []Key // every object whose entry goes in again, those moved included
	for _, e := range plan.Puts {
		put = append(put, e.Object)
		if held[e.Object] {
			ops = append(ops, batching.PutOp(c.Names.Relationships, e.PrimaryKey(), TokenItem(e, token)))
			continue
		}
		add.Objects = append(add.Objects, e.Object)
		items = append(items, TokenItem(e, token))
	}
	for _, e := range plan.Deletes {
		ops = append(ops, batching.DeleteOp(c.Names.Relationships, e.PrimaryKey()))
	}
	created, err := c.writeChanges(ctx, op, ops, add.Objects, items, token)
	if err != nil {
		return err
	}
	// A moved object's entry is written anew too: a subject found missing has it
	// taken back with the others.
	return c.confirmSet(ctx, add, put, created, token, true)
}

// DeleteIfToken deletes the relationship entry with key if the call token wrote it
// last (if it has no token, for token ""). An entry another write changed since is
// left.
func (c *Core) DeleteIfToken(ctx context.Context, key map[string]types.AttributeValue, token string) error {
	cond := expression.AttributeNotExists(expression.Name(schema.AttrToken))
	if token != "" {
		cond = expression.Name(schema.AttrToken).Equal(expression.Value(attrS(token)))
	}
	b := commit.Build(cond, nil)
	_, err := c.API.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(c.Names.Relationships), Key: key,
		ConditionExpression: b.Condition, ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values,
	})
	if a := commit.Classify(err); a.Outcome == commit.ConditionFailed {
		return nil
	}
	return err
}

// notFound is the error of the entity k missing.
func notFound(k Key) error { return fmt.Errorf("%w: %s", errs.ErrNotFound, k) }
