package lists

import (
	"context"

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
	"github.com/rynodb/rynodb/internal/store"
)

// WriteSet runs a list call on a set.
func (c *Engine) WriteSet(ctx context.Context, op Op) (relationships.Change, error) {
	switch op.Kind {
	case Add:
		added, err := c.addToSet(ctx, op)
		return relationships.Change{Added: added}, err
	case Remove:
		removed, err := c.removeFromSet(ctx, op)
		return relationships.Change{Removed: removed}, err
	}
	return relationships.Change{}, c.replaceSet(ctx, op)
}

// addToSet puts the entry of each object in parallel, then confirms the subject
// (and the objects, with CheckObjects). It returns the objects whose entries were
// not there before.
func (c *Engine) addToSet(ctx context.Context, op Op) ([]store.Key, error) {
	objects := store.DistinctKeys(op.Objects)
	token := commit.NewToken()
	items := make([]map[string]types.AttributeValue, len(objects))
	for i, k := range objects { // in order: an ordered set takes their positions in it
		items[i] = c.SetItem(op, k, token)
	}
	added, err := c.putEntries(ctx, objects, items, token, c.core.Ordered[op.Predicate])
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
func (c *Engine) putEntries(ctx context.Context, objects []store.Key, items []map[string]types.AttributeValue, token string, keep bool) ([]store.Key, error) {
	created := make([]bool, len(objects))
	err := batching.Parallel(ctx, len(objects), c.core.MaxConcurrency, func(ctx context.Context, i int) error {
		in := &dynamodb.PutItemInput{
			TableName:    aws.String(c.core.Names.Relationships),
			Item:         items[i],
			ReturnValues: types.ReturnValueAllOld,
		}
		if keep {
			keepPlace(in, token)
		}
		out, err := c.core.API.PutItem(ctx, in)
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
	var out []store.Key
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
func (c *Engine) writeChanges(ctx context.Context, op Op, ops []batching.WriteOp, fresh []store.Key, items []map[string]types.AttributeValue, token string) ([]store.Key, error) {
	if !op.CheckObjects {
		for _, item := range items {
			ops = append(ops, batching.PutOp(c.core.Names.Relationships, batching.Project(item, schema.RelationshipKeyAttrs()), item))
		}
		return fresh, c.core.Batch.Write(ctx, ops)
	}
	var created []store.Key
	err := batching.Parallel(ctx, 2, 2, func(ctx context.Context, i int) error {
		if i == 0 {
			return c.core.Batch.Write(ctx, ops)
		}
		var err error
		created, err = c.putEntries(ctx, fresh, items, token, false)
		return err
	})
	return created, err
}

// SetEntry is the entry of object in op's set.
func (op Op) SetEntry(object store.Key) relationships.Entry {
	return relationships.SetEntry(op.Subject, op.Predicate, object)
}

// removeFromSet deletes the entry of each object, beside a consistent read of the
// subject: one round. Entries of a missing subject are its Delete's leftovers, so
// deleting them first is harmless. It returns the objects whose entries it deleted.
func (c *Engine) removeFromSet(ctx context.Context, op Op) ([]store.Key, error) {
	objects := store.DistinctKeys(op.Objects)
	removed := make([]bool, len(objects))
	var subject map[string]types.AttributeValue
	err := batching.Parallel(ctx, len(objects)+1, c.core.MaxConcurrency+1, func(ctx context.Context, i int) error {
		if i == len(objects) {
			var err error
			subject, err = c.core.GetItem(ctx, op.Subject, true)
			return err
		}
		e := op.SetEntry(objects[i])
		out, err := c.core.API.DeleteItem(ctx, &dynamodb.DeleteItemInput{
			TableName:    aws.String(c.core.Names.Relationships),
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
	s, err := c.core.ReadStored(op.Subject, subject)
	switch {
	case err != nil:
		return nil, err
	case !s.Live():
		return nil, c.subjectEnded(ctx, op.Subject, s)
	}
	var out []store.Key
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
func (c *Engine) replaceSet(ctx context.Context, op Op) error {
	if c.core.Ordered[op.Predicate] {
		return c.replaceOrderedSet(ctx, op)
	}
	current, err := c.readToReplace(ctx, op)
	if err != nil {
		return err
	}
	want := store.DistinctKeys(op.Objects)
	wanted := make(map[store.Key]bool, len(want))
	for _, k := range want {
		wanted[k] = true
	}
	held := make(map[store.Key]bool, len(current))
	token := commit.NewToken()
	var ops []batching.WriteOp
	for _, e := range current {
		if !e.InSet {
			continue
		}
		held[e.Object] = true
		if !wanted[e.Object] {
			ops = append(ops, batching.DeleteOp(c.core.Names.Relationships, e.PrimaryKey()))
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

// readToReplace reads the set op replaces and, with CheckObjects, its objects, in
// one round: a Replace naming a missing object is refused before it writes anything.
func (c *Engine) readToReplace(ctx context.Context, op Op) ([]relationships.Entry, error) {
	var current []relationships.Entry
	var found []map[string]types.AttributeValue
	objects := store.DistinctKeys(op.Objects)
	check := op.CheckObjects && len(objects) > 0
	err := batching.Parallel(ctx, 2, 2, func(ctx context.Context, i int) error {
		var err error
		switch {
		case i == 0:
			current, err = c.ReadList(ctx, op.Subject, op.Predicate, true)
		case check:
			found, err = c.readEntities(ctx, objects)
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

// setDeletes are the deletes of the entries of objects in op's set.
func (c *Engine) setDeletes(op Op, objects []store.Key) []batching.WriteOp {
	ops := make([]batching.WriteOp, len(objects))
	for i, k := range objects {
		ops[i] = batching.DeleteOp(c.core.Names.Relationships, op.SetEntry(k).PrimaryKey())
	}
	return ops
}

// subjectEnded is the error of a set write whose subject s is not live: a Delete in
// progress is completed first, as every writer meeting a tombstone does.
func (c *Engine) subjectEnded(ctx context.Context, k store.Key, s entitystate.State) error {
	if s.Ending() {
		if err := c.core.Deletes.CompleteDelete(ctx, k, s); err != nil {
			return errs.Wrap(err, "completing a delete in progress")
		}
	}
	return store.NotFound(k)
}

// readEntities reads the items of keys consistently, in order, nil where missing:
// one GetItem for one key, BatchGetItem requests for more.
func (c *Engine) readEntities(ctx context.Context, keys []store.Key) ([]map[string]types.AttributeValue, error) {
	if len(keys) == 1 {
		item, err := c.core.GetItem(ctx, keys[0], true)
		return []map[string]types.AttributeValue{item}, err
	}
	return c.core.BatchReadEntities(ctx, keys, batching.ReadOptions{Consistent: true})
}

// countSet counts the entries of a set with Query's COUNT, one request per MB of
// entries.
func (c *Engine) countSet(ctx context.Context, subject store.Key, predicate string) (int, error) {
	in := c.core.OutgoingQuery(subject, predicate)
	in.Select = types.SelectCount
	n := 0
	for {
		out, err := c.core.API.Query(ctx, in)
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

// SetItem is the item of object's entry in op's set, written by the call token;
// the entry of an ordered set takes the next position.
func (c *Engine) SetItem(op Op, object store.Key, token string) map[string]types.AttributeValue {
	e := op.SetEntry(object)
	if c.core.Ordered[op.Predicate] {
		e = relationships.OrderedSetEntry(op.Subject, op.Predicate, object, c.clock.take(c.core.Now(), 1, 0))
	}
	return c.tokenItem(e, token)
}

// tokenItem is e's item, written by the call token.
func (c *Engine) tokenItem(e relationships.Entry, token string) map[string]types.AttributeValue {
	item := c.core.Incoming.Item(e)
	item[schema.AttrToken] = store.AttrS(token)
	return item
}

// keepPlace makes in, the put of an entry of an ordered set by the call token,
// leave an entry that is there in its place: it writes only where there is none,
// or where an attempt of the same call (which the SDK retried) wrote it.
func keepPlace(in *dynamodb.PutItemInput, token string) {
	b := commit.Build(expression.AttributeNotExists(expression.Name(schema.AttrSubjectKey)).
		Or(expression.Name(schema.AttrToken).Equal(expression.Value(store.AttrS(token)))), nil)
	in.ConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues = b.Condition, b.Names, b.Values
}

// DeleteIfToken deletes the relationship entry with key if the call token wrote it
// last (if it has no token, for token ""). An entry another write changed since is
// left.
func (c *Engine) DeleteIfToken(ctx context.Context, key map[string]types.AttributeValue, token string) error {
	cond := expression.AttributeNotExists(expression.Name(schema.AttrToken))
	if token != "" {
		cond = expression.Name(schema.AttrToken).Equal(expression.Value(store.AttrS(token)))
	}
	b := commit.Build(cond, nil)
	_, err := c.core.API.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(c.core.Names.Relationships), Key: key,
		ConditionExpression: b.Condition, ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values,
	})
	if a := commit.Classify(err); a.Outcome == commit.ConditionFailed {
		return nil
	}
	return err
}
