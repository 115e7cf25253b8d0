package ryno

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/relationships"
	"github.com/rynodb/rynodb/tables"
)

// Create stores a new entity and returns it with Created and Updated set. It fails
// with an error wrapping ErrConflict when the entity exists. One PutItem request for
// an entity with no relationships and no index; see Set for the others.
func (c *Client) Create(ctx context.Context, e *Entity) (*Entity, error) {
	return c.put(ctx, e, modeCreate)
}

// Update replaces the attributes and metadata of an existing entity, keeping its
// Created time, and returns it as stored. It fails with an error wrapping ErrNotFound
// when the entity does not exist. One PutItem request when e carries the Created time
// it was read with; otherwise a GetItem first. Relationships and index entries are
// written as Set writes them.
func (c *Client) Update(ctx context.Context, e *Entity) (*Entity, error) {
	return c.put(ctx, e, modeUpdate)
}

// Set stores the entity whether or not it exists (an upsert), keeping the Created
// time of an existing one, and returns it as stored. One PutItem request when e is new
// or carries the Created time it was read with; otherwise two.
//
// Each predicate in e.Relationships has its list replaced (an empty list clears it);
// predicates absent are left alone. When the entity has relationships to write or its
// type has indexes, the put and the reads of the lists and of the entity's index
// entries go in one parallel round, then what changed is written in parallel batches.
// Should that second round fail, the entity is written and the error says the rest
// is not: writing it again converges, since the differences are computed from the
// tables.
func (c *Client) Set(ctx context.Context, e *Entity) (*Entity, error) {
	return c.put(ctx, e, modeSet)
}

type putMode int

const (
	modeCreate putMode = iota
	modeUpdate
	modeSet
)

func (m putMode) String() string {
	return [...]string{"create", "update", "set"}[m]
}

// maxPutAttempts bounds the puts of one call that lose a race with other writers.
const maxPutAttempts = 4

// write is one Create, Update or Set in progress: the item to put and the index
// entries the entity emits.
type write struct {
	e       *Entity
	item    map[string]types.AttributeValue
	indexes indexRegistry
	now     time.Time

	created  time.Time // the Created time item holds
	prepared bool
	entries  []indexing.Entry
}

func (w *write) indexed() bool { return len(w.indexes[w.e.Type]) > 0 }

// prepare completes the item for a put that stores created: the timestamps, and the
// index entries the entity then emits. It checks what DynamoDB would refuse, and runs
// again only when created changes.
func (w *write) prepare(created time.Time) error {
	if w.prepared && created.Equal(w.created) {
		return nil
	}
	w.created, w.prepared = created, true
	w.item[tables.AttrCreated] = str(tables.FormatTime(created))
	w.item[tables.AttrUpdated] = str(tables.FormatTime(w.now))
	if w.indexed() {
		entries, err := w.indexes.emitEntries(w.item, created, w.now)
		if err != nil {
			return err
		}
		for _, entry := range entries {
			if _, err := entry.Item(); err != nil {
				return err
			}
		}
		w.entries = entries
		w.item[tables.AttrIndexEntries] = indexRecord(entries)
	}
	return checkItemSize(w.e.Key, w.item)
}

func (c *Client) put(ctx context.Context, e *Entity, mode putMode) (*Entity, error) {
	item, err := encodeEntity(e)
	if err != nil {
		return nil, err
	}
	if err := validateRelationshipMap(e.Key, e.Relationships); err != nil {
		return nil, err
	}
	w := &write{e: e, item: item, indexes: c.indexes, now: c.now()}
	// Everything is checked before any request: the Created time guessed here is
	// right unless the stored entity shows another.
	guess := w.now
	if mode != modeCreate && !e.Created.IsZero() {
		guess = tables.TruncateTime(e.Created)
	}
	if err := w.prepare(guess); err != nil {
		return nil, err
	}
	if len(e.Relationships) == 0 && !w.indexed() {
		return c.putEntity(ctx, w, mode)
	}
	return c.putAndReconcile(ctx, w, mode)
}

// putAndReconcile puts the entity and, in the same round, reads the lists of the
// predicates it carries and its index entries; once the put has landed it writes what
// changed in them.
func (c *Client) putAndReconcile(ctx context.Context, w *write, mode putMode) (*Entity, error) {
	predicates := slices.Sorted(maps.Keys(w.e.Relationships))
	lists := make([][]relationships.Entry, len(predicates))
	var stored *Entity
	var indexed []map[string]types.AttributeValue
	reads := len(predicates)
	if w.indexed() {
		reads++
	}
	// The put goes first: with more reads than MaxConcurrency, reads wait, not the put.
	err := parallel(ctx, reads+1, c.opts.MaxConcurrency+1, func(ctx context.Context, i int) error {
		var err error
		switch {
		case i == 0:
			stored, err = c.putEntity(ctx, w, mode)
		case i <= len(predicates):
			lists[i-1], err = c.readList(ctx, w.e.Key, predicates[i-1], true)
		default:
			indexed, err = c.readIndexEntries(ctx, w.e.Key)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	ops := relationshipOps(c.names.Relationships, c.relationshipPlans(w.e, predicates, lists)...)
	if w.indexed() {
		more, err := indexOps(c.names.IndexEntries, indexed, w.entries)
		if err != nil {
			return nil, err
		}
		ops = append(ops, more...)
	}
	if err := c.batch.write(ctx, ops); err != nil {
		return nil, fmt.Errorf("ryno: %s %s: the entity is written, its relationships and index entries not all: %w", mode, w.e.Key, err)
	}
	stored.Relationships = maps.Clone(w.e.Relationships)
	return stored, nil
}

func (c *Client) relationshipPlans(e *Entity, predicates []string, lists [][]relationships.Entry) []relationships.Plan {
	plans := make([]relationships.Plan, len(predicates))
	for i, p := range predicates {
		plans[i] = relationships.PlanReplace(relationships.Key(e.Key), p, lists[i], relKeys(e.Relationships[p]))
	}
	return plans
}

// putEntity writes the entity item with the put's condition, retrying with what the
// stored item shows when the condition fails.
func (c *Client) putEntity(ctx context.Context, w *write, mode putMode) (*Entity, error) {
	x, err := c.firstExpectation(ctx, w.e, mode)
	if err != nil {
		return nil, err
	}
	for range maxPutAttempts {
		created := w.now
		if !x.absent {
			created = x.created
		}
		if err := w.prepare(created); err != nil {
			return nil, err
		}
		old, err := c.conditionalPut(ctx, w.item, x)
		if err == nil {
			stored := *w.e
			stored.Created, stored.Updated = created, w.now
			return &stored, nil
		}
		if !errors.Is(err, errConditionFailed) {
			return nil, fmt.Errorf("ryno: %s %s: %w", mode, w.e.Key, err)
		}
		if x, err = nextExpectation(w.e.Key, mode, old); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("%w: %s %s: the entity kept changing", ErrConflict, mode, w.e.Key)
}

// expectation is what a put's condition requires of the stored item. A put replaces
// _created, so the Created time to keep must be known before the put; the condition
// makes sure it still holds when the put lands.
type expectation struct {
	absent  bool      // no item; Created is now
	created time.Time // the stored Created, when !absent
}

func (x expectation) condition() (string, map[string]string, map[string]types.AttributeValue) {
	if x.absent {
		return "attribute_not_exists(#id)", map[string]string{"#id": tables.AttrID}, nil
	}
	return "#c = :c", map[string]string{"#c": tables.AttrCreated},
		map[string]types.AttributeValue{":c": str(tables.FormatTime(x.created))}
}

func (c *Client) firstExpectation(ctx context.Context, e *Entity, mode putMode) (expectation, error) {
	switch {
	case mode == modeCreate:
		return expectation{absent: true}, nil
	case !e.Created.IsZero():
		return expectation{created: tables.TruncateTime(e.Created)}, nil
	case mode == modeSet:
		return expectation{absent: true}, nil
	}
	item, err := c.getItem(ctx, e.Key, true)
	if err != nil {
		return expectation{}, err
	}
	return nextExpectation(e.Key, mode, item)
}

// nextExpectation derives the expectation from the stored item old (nil: none).
func nextExpectation(k Key, mode putMode, old map[string]types.AttributeValue) (expectation, error) {
	switch {
	case mode == modeCreate && old != nil:
		return expectation{}, fmt.Errorf("%w: %s already exists", ErrConflict, k)
	case old == nil && mode == modeUpdate:
		return expectation{}, notFound(k)
	case old == nil:
		return expectation{absent: true}, nil
	}
	created, err := timeValue(tables.AttrCreated, old[tables.AttrCreated])
	if err != nil {
		return expectation{}, fmt.Errorf("ryno: stored entity %s: %w", k, err)
	}
	return expectation{created: created}, nil
}

// errConditionFailed reports a put whose condition did not hold.
var errConditionFailed = errors.New("condition failed")

// conditionalPut writes item if x holds. When it does not, it returns
// errConditionFailed and the stored item (nil when there is none).
func (c *Client) conditionalPut(ctx context.Context, item map[string]types.AttributeValue, x expectation) (map[string]types.AttributeValue, error) {
	cond, names, values := x.condition()
	_, err := c.api.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                           aws.String(c.names.Entities),
		Item:                                item,
		ConditionExpression:                 aws.String(cond),
		ExpressionAttributeNames:            names,
		ExpressionAttributeValues:           values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var failed *types.ConditionalCheckFailedException
	if errors.As(err, &failed) {
		return failed.Item, errConditionFailed
	}
	return nil, err
}
