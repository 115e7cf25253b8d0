package ryno

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// A set (a predicate in Options.Sets) keeps one entry per object, keyed by the
// object, with no head or marker: each object's entry is written on its own, and
// no write of one object waits for another's. What a list gets from its head's
// version (refusing a write to a missing subject, and leaving nothing of a deleted
// one) a set gets from the order of its requests: entries are written first, and
// the subject is read after them, consistently. A Delete marks the entity before
// it reads its entries, so either its read sees an entry, or the writer's read of
// the subject, coming later, sees the mark and takes its entries back.

// setOf returns the predicates of Options.Sets as a set.
func setOf(predicates []string) map[string]bool {
	sets := make(map[string]bool, len(predicates))
	for _, p := range predicates {
		sets[p] = true
	}
	return sets
}

// listsOnly refuses a set where only lists are written: as the lists of an entity
// write (ReplaceLists).
func (c *Client) listsOnly(call string, predicates ...string) error {
	for _, p := range predicates {
		if c.sets[p] {
			return invalid(call, p, "is a set (Options.Sets): write it with AddRelationships, RemoveRelationships, ReplaceRelationships or their Tx forms")
		}
	}
	return nil
}

// takeSets removes the sets (Options.Sets) from the lists of o, checked, and returns
// them: Create, Update, Set and Modify write them after the entity, as
// ReplaceRelationships does. A transaction keeps refusing them (validateLists).
func (c *Client) takeSets(subject Key, o *writeOptions) (map[string][]Key, error) {
	var sets map[string][]Key
	for _, p := range slices.Sorted(maps.Keys(o.lists)) {
		if !c.sets[p] {
			continue
		}
		if err := c.validateList(subject, p, o.lists[p]); err != nil {
			return nil, wrap(err, "ReplaceLists[%q]", p)
		}
		if sets == nil {
			sets, o.lists = map[string][]Key{}, maps.Clone(o.lists)
		}
		sets[p] = o.lists[p]
		delete(o.lists, p)
	}
	return sets, nil
}

// replaceSets replaces each set of the entity stored with its objects, in
// parallel, once the entity is written. A set that fails leaves the entity written:
// the error is a *PartialWriteError, and the same call again completes the sets.
func (c *Client) replaceSets(ctx context.Context, stored *Entity, sets map[string][]Key) error {
	predicates := slices.Sorted(maps.Keys(sets))
	err := batching.Parallel(ctx, len(predicates), c.opts.MaxConcurrency, func(ctx context.Context, i int) error {
		p := predicates[i]
		op := listOp{kind: listReplace, subject: stored.Key, predicate: p, objects: sets[p], checkObjects: c.opts.CheckObjects}
		if _, err := c.writeSet(ctx, op); err != nil {
			return wrap(err, "replace the set %s of %s", p, stored.Key)
		}
		return nil
	})
	if err != nil {
		return &PartialWriteError{Entity: stored, Err: err}
	}
	return nil
}

// writeSet runs a list call on a set.
func (c *Client) writeSet(ctx context.Context, op listOp) (relationships.Change, error) {
	switch op.kind {
	case listAdd:
		added, err := c.addToSet(ctx, op)
		return relationships.Change{Added: relKeys(added)}, err
	case listRemove:
		removed, err := c.removeFromSet(ctx, op)
		return relationships.Change{Removed: relKeys(removed)}, err
	}
	return relationships.Change{}, c.replaceSet(ctx, op)
}

// addToSet puts the entry of each object in parallel, then confirms the subject
// (and the objects, with CheckObjects). It returns the objects whose entries were
// not there before.
func (c *Client) addToSet(ctx context.Context, op listOp) ([]Key, error) {
	objects := distinctKeys(op.objects)
	token := commit.NewToken()
	created := make([]bool, len(objects))
	items := make([]map[string]types.AttributeValue, len(objects))
	for i, k := range objects { // in order: an ordered set takes their positions in it
		items[i] = c.setItem(op, k, token)
	}
	err := batching.Parallel(ctx, len(objects), c.opts.MaxConcurrency, func(ctx context.Context, i int) error {
		in := &dynamodb.PutItemInput{
			TableName:    aws.String(c.names.Relationships),
			Item:         items[i],
			ReturnValues: types.ReturnValueAllOld,
		}
		if c.ordered[op.predicate] {
			keepPlace(in, token)
		}
		out, err := c.api.PutItem(ctx, in)
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
	var added []Key
	for i, k := range objects {
		if created[i] {
			added = append(added, k)
		}
	}
	if err := c.confirmSet(ctx, op, objects, added, token); err != nil {
		return nil, err
	}
	return added, nil
}

// setEntry is the entry of object in op's set.
func (op listOp) setEntry(object Key) relationships.Entry {
	return relationships.SetEntry(op.relSubject(), op.predicate, relationships.Key(object))
}

// removeFromSet deletes the entry of each object, beside a consistent read of the
// subject: one round. Entries of a missing subject are its Delete's leftovers, so
// deleting them first is harmless. It returns the objects whose entries it deleted.
func (c *Client) removeFromSet(ctx context.Context, op listOp) ([]Key, error) {
	objects := distinctKeys(op.objects)
	removed := make([]bool, len(objects))
	var subject map[string]types.AttributeValue
	err := batching.Parallel(ctx, len(objects)+1, c.opts.MaxConcurrency+1, func(ctx context.Context, i int) error {
		if i == len(objects) {
			var err error
			subject, err = c.core.GetItem(ctx, relationships.Key(op.subject), true)
			return err
		}
		e := op.setEntry(objects[i])
		out, err := c.api.DeleteItem(ctx, &dynamodb.DeleteItemInput{
			TableName:    aws.String(c.names.Relationships),
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
	s, err := c.core.ReadStored(relationships.Key(op.subject), subject)
	switch {
	case err != nil:
		return nil, err
	case !s.Live():
		return nil, c.subjectEnded(ctx, op.subject, s)
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
func (c *Client) replaceSet(ctx context.Context, op listOp) error {
	if c.ordered[op.predicate] {
		return c.replaceOrderedSet(ctx, op)
	}
	current, err := c.readList(ctx, op.subject, op.predicate, true)
	if err != nil {
		return err
	}
	want := distinctKeys(op.objects)
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
		held[Key(e.Object)] = true
		if !wanted[Key(e.Object)] {
			ops = append(ops, batching.DeleteOp(c.names.Relationships, e.PrimaryKey()))
		}
	}
	add := op
	add.objects = nil
	for _, k := range want {
		if !held[k] {
			e := op.setEntry(k)
			add.objects = append(add.objects, k)
			ops = append(ops, batching.PutOp(c.names.Relationships, e.PrimaryKey(), c.setItem(op, k, token)))
		}
	}
	if err := c.batch.Write(ctx, ops); err != nil {
		return err
	}
	return c.confirmSet(ctx, add, add.objects, add.objects, token)
}

// confirmSet reads, after the call token wrote the entries of objects (created
// those of created), the subject and, with CheckObjects, the objects, consistently.
// A live subject (and objects) confirms the write. Otherwise the call takes its
// entries back and fails with ErrNotFound: a subject being deleted has its Delete
// completed (which sweeps them, unless the Delete ended first) and is read again; a
// missing subject has them deleted while it stays missing (should it be created
// meanwhile, the entries are its own, and the write stands); a missing object has
// the entries the call created deleted.
func (c *Client) confirmSet(ctx context.Context, op listOp, objects, created []Key, token string) error {
	for attempt := 0; ; attempt++ {
		keys := []Key{op.subject}
		if op.checkObjects {
			keys = append(keys, objects...)
		}
		found, err := c.readEntities(ctx, keys)
		if err != nil {
			return err
		}
		s, err := c.core.ReadStored(relationships.Key(op.subject), found[0])
		switch {
		case err != nil:
			return err
		case s.Live():
			return c.confirmObjects(ctx, op, objects, created, found[1:], token)
		case attempt == maxSetConfirmations:
			return notFound(op.subject)
		case s.Exists():
			if err := c.completeDelete(ctx, op.subject, s); err != nil {
				return wrap(err, "completing a delete in progress")
			}
			continue
		}
		err = c.core.TransactGuarded(ctx, c.batch.Shared(), store.Guard{Key: relationships.Key(op.subject), Absent: true}, c.setDeletes(op, objects))
		if !errors.Is(err, store.ErrGuardFailed) {
			return errors.Join(err, notFound(op.subject))
		}
	}
}

// maxSetConfirmations bounds how often a set write reads its subject again: after
// completing its Delete, or when it was created while the write took its entries
// back.
const maxSetConfirmations = 4

// confirmObjects fails the write when one of objects is missing (items holds what
// was read of each), after deleting the entries of created.
func (c *Client) confirmObjects(ctx context.Context, op listOp, objects, created []Key, items []map[string]types.AttributeValue, token string) error {
	for i, item := range items {
		if s, err := c.core.ReadStored(relationships.Key(objects[i]), item); err != nil || !s.Live() {
			return errors.Join(err, c.takeBack(ctx, op, created, token), fmt.Errorf("object %w", notFound(objects[i])))
		}
	}
	return nil
}

// takeBack deletes the entries of objects that the call token wrote and nobody
// wrote again since.
func (c *Client) takeBack(ctx context.Context, op listOp, objects []Key, token string) error {
	return batching.Parallel(ctx, len(objects), c.opts.MaxConcurrency, func(ctx context.Context, i int) error {
		return c.deleteIfToken(ctx, op.setEntry(objects[i]).PrimaryKey(), token)
	})
}

// setDeletes are the deletes of the entries of objects in op's set.
func (c *Client) setDeletes(op listOp, objects []Key) []batching.WriteOp {
	ops := make([]batching.WriteOp, len(objects))
	for i, k := range objects {
		ops[i] = batching.DeleteOp(c.names.Relationships, op.setEntry(k).PrimaryKey())
	}
	return ops
}

// subjectEnded is the error of a set write whose subject s is not live: a Delete in
// progress is completed first, as every writer meeting a tombstone does.
func (c *Client) subjectEnded(ctx context.Context, k Key, s entitystate.State) error {
	if s.Ending() {
		if err := c.completeDelete(ctx, k, s); err != nil {
			return wrap(err, "completing a delete in progress")
		}
	}
	return notFound(k)
}

// readEntities reads the items of keys consistently, in order, nil where missing:
// one GetItem for one key, BatchGetItem requests for more.
func (c *Client) readEntities(ctx context.Context, keys []Key) ([]map[string]types.AttributeValue, error) {
	if len(keys) == 1 {
		item, err := c.core.GetItem(ctx, relationships.Key(keys[0]), true)
		return []map[string]types.AttributeValue{item}, err
	}
	ops := make([]batching.GetOp, len(keys))
	for i, k := range keys {
		ops[i] = batching.NewGetOp(c.names.Entities, k.item())
	}
	found, err := c.batch.Get(ctx, ops, batching.ReadOptions{Consistent: true})
	if err != nil {
		return nil, err
	}
	items := make([]map[string]types.AttributeValue, len(keys))
	for i, op := range ops {
		items[i] = found[op.ID]
	}
	return items, nil
}

// countSet counts the entries of a set with Query's COUNT, one request per MB of
// entries.
func (c *Client) countSet(ctx context.Context, subject Key, predicate string) (int, error) {
	in := c.core.OutgoingQuery(relationships.Key(subject), predicate)
	in.Select = types.SelectCount
	n := 0
	for {
		out, err := c.api.Query(ctx, in)
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
