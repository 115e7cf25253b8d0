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

	"github.com/rynodb/rynodb/relationships"
	"github.com/rynodb/rynodb/tables"
)

// Create stores a new entity and returns it with Created and Updated set. It fails
// with an error wrapping ErrConflict when the entity exists. One PutItem request.
func (c *Client) Create(ctx context.Context, e *Entity) (*Entity, error) {
	return c.put(ctx, e, modeCreate)
}

// Update replaces the attributes and metadata of an existing entity, keeping its
// Created time, and returns it as stored. It fails with an error wrapping ErrNotFound
// when the entity does not exist. One PutItem request when e carries the Created time
// it was read with; otherwise a GetItem first.
func (c *Client) Update(ctx context.Context, e *Entity) (*Entity, error) {
	return c.put(ctx, e, modeUpdate)
}

// Set stores the entity whether or not it exists (an upsert), keeping the Created
// time of an existing one, and returns it as stored. One PutItem request when e is new
// or carries the Created time it was read with; otherwise two.
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

func (c *Client) put(ctx context.Context, e *Entity, mode putMode) (*Entity, error) {
	item, err := encodeEntity(e)
	if err != nil {
		return nil, err
	}
	if err := validateRelationshipMap(e.Key, e.Relationships); err != nil {
		return nil, err
	}
	now := c.now()
	item[tables.AttrUpdated] = str(tables.FormatTime(now))
	item[tables.AttrCreated] = item[tables.AttrUpdated] // same size as any stored time
	if err := checkItemSize(e.Key, item); err != nil {
		return nil, err
	}
	if len(e.Relationships) == 0 {
		return c.putEntity(ctx, e, item, mode, now)
	}
	return c.putWithRelationships(ctx, e, item, mode, now)
}

// putWithRelationships puts the entity and, in the same round, reads the lists of the
// predicates it carries; once the put has landed it writes what changed in them.
func (c *Client) putWithRelationships(ctx context.Context, e *Entity, item map[string]types.AttributeValue, mode putMode, now time.Time) (*Entity, error) {
	predicates := slices.Sorted(maps.Keys(e.Relationships))
	lists := make([][]relationships.Entry, len(predicates))
	var stored *Entity
	err := parallel(ctx, len(predicates)+1, c.opts.MaxConcurrency+1, func(ctx context.Context, i int) error {
		var err error
		if i == len(predicates) {
			stored, err = c.putEntity(ctx, e, item, mode, now)
		} else {
			lists[i], err = c.readList(ctx, e.Key, predicates[i], true)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	plans := make([]relationships.Plan, len(predicates))
	for i, p := range predicates {
		plans[i] = relationships.PlanReplace(relationships.Key(e.Key), p, lists[i], relKeys(e.Relationships[p]))
	}
	if err := c.applyPlans(ctx, plans...); err != nil {
		return nil, fmt.Errorf("ryno: %s %s: the entity is written, its relationships not all: %w", mode, e.Key, err)
	}
	stored.Relationships = maps.Clone(e.Relationships)
	return stored, nil
}

// putEntity writes the entity item with the put's condition, retrying with what the
// stored item shows when the condition fails.
func (c *Client) putEntity(ctx context.Context, e *Entity, item map[string]types.AttributeValue, mode putMode, now time.Time) (*Entity, error) {
	x, err := c.firstExpectation(ctx, e, mode)
	if err != nil {
		return nil, err
	}
	for range maxPutAttempts {
		created := now
		if !x.absent {
			created = x.created
		}
		item[tables.AttrCreated] = str(tables.FormatTime(created))
		old, err := c.conditionalPut(ctx, item, x)
		if err == nil {
			stored := *e
			stored.Created, stored.Updated = created, now
			return &stored, nil
		}
		if !errors.Is(err, errConditionFailed) {
			return nil, fmt.Errorf("ryno: %s %s: %w", mode, e.Key, err)
		}
		if x, err = nextExpectation(e.Key, mode, old); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("%w: %s %s: the entity kept changing", ErrConflict, mode, e.Key)
}

// firstExpectation guesses the stored state: from the Created time e carries, or by
// reading it when Update has nothing to go on.
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
