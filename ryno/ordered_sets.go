package ryno

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/paging"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// An ordered set (Options.OrderedSets) is a set whose entries also hold a
// position, in the sort key of the by-object LSI (schema.OrderedSetKey): the set
// lists in order through that index, consistently when asked, one Query a page.
// Everything else is the set's: one item per object, written on its own, the
// subject read after the write. A position is the adding client's clock in
// microseconds times positionStride, and at least a stride after the last it gave,
// so concurrent Adds need no shared counter and never conflict. An Add puts the entry only where
// there is none, so an object keeps its place; ReplaceRelationships moves
// objects by writing their entries at new positions (relationships.PlanOrderedSet).

// positionClock gives the positions of an ordered set's entries: increasing within
// the client, and the clock's microseconds times positionStride across clients.
type positionClock struct {
	mu   sync.Mutex
	last int64
}

// positionStride is how many positions a microsecond holds, and how far apart
// the positions of the objects of one call are: room for up to 1,023 objects put
// between two neighbours later, with no other object moved (a Replace spreads them
// evenly; one at a time at the same place, each halves the room). Positions last
// until the year 2255.
const positionStride = 1024

// take reserves n positions positionStride apart, the first no less than floor,
// and returns the first.
func (p *positionClock) take(now time.Time, n int, floor int64) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	first := max(now.UnixMicro()*positionStride, p.last+positionStride, floor)
	p.last = first + int64(max(n-1, 0))*positionStride
	return first
}

// validateOrdered refuses an object whose entry key, with its position, would pass
// DynamoDB's limit on a sort key.
func validateOrdered(predicate string, objects []Key) error {
	for _, k := range objects {
		key := schema.OrderedSetKey(predicate, 0, k.Scope, k.Type, k.ID)
		if err := schema.ValidateKeyLength(schema.AttrPredicateObjectKey, key, schema.MaxSortKeyBytes); err != nil {
			return wrap(err, "object %s of the ordered set %s", k, predicate)
		}
	}
	return nil
}

// setItem is the item of object's entry in op's set, written by the call token;
// the entry of an ordered set takes the next position.
func (c *Client) setItem(op listOp, object Key, token string) map[string]types.AttributeValue {
	e := op.setEntry(object)
	if c.ordered[op.predicate] {
		e = relationships.OrderedSetEntry(op.relSubject(), op.predicate, relationships.Key(object), c.clock.take(c.opts.Now(), 1, 0))
	}
	return tokenItem(e, token)
}

// tokenItem is e's item, written by the call token.
func tokenItem(e relationships.Entry, token string) map[string]types.AttributeValue {
	item := e.Item()
	item[schema.AttrToken] = str(token)
	return item
}

// keepPlace makes in, the put of an entry of an ordered set by the call token,
// leave an entry that is there in its place: it writes only where there is none,
// or where an attempt of the same call (which the SDK retried) wrote it.
func keepPlace(in *dynamodb.PutItemInput, token string) {
	b := commit.Build(expression.AttributeNotExists(expression.Name(schema.AttrSubjectKey)).
		Or(expression.Name(schema.AttrToken).Equal(expression.Value(str(token)))), nil)
	in.ConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues = b.Condition, b.Names, b.Values
}

// replaceOrderedSet reads the set, then writes, in BatchWriteItem requests, the
// deletes and puts of relationships.PlanOrderedSet: the objects no longer there go,
// new objects and those out of order are put at their positions. Then it confirms
// the subject as addToSet does.
func (c *Client) replaceOrderedSet(ctx context.Context, op listOp) error {
	current, err := c.readList(ctx, op.subject, op.predicate, true)
	if err != nil {
		return err
	}
	want := relKeys(distinctKeys(op.objects))
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
	plan := relationships.PlanOrderedSet(op.relSubject(), op.predicate, ordered, want,
		c.clock.take(c.opts.Now(), len(want), floor), positionStride)
	// An entry without a position goes, unless the plan puts its object (over it).
	var ops []batching.WriteOp
	for _, e := range unplaced {
		if !slices.Contains(want, e.Object) {
			ops = append(ops, batching.DeleteOp(c.names.Relationships, e.PrimaryKey()))
		}
	}
	token := commit.NewToken()
	held := make(map[relationships.Key]bool, len(ordered))
	for _, e := range ordered {
		held[e.Object] = true
	}
	add := op
	add.objects = nil
	for _, e := range plan.Puts {
		ops = append(ops, batching.PutOp(c.names.Relationships, e.PrimaryKey(), tokenItem(e, token)))
		if !held[e.Object] {
			add.objects = append(add.objects, Key(e.Object))
		}
	}
	for _, e := range plan.Deletes {
		ops = append(ops, batching.DeleteOp(c.names.Relationships, e.PrimaryKey()))
	}
	if err := c.batch.Write(ctx, ops); err != nil {
		return err
	}
	return c.confirmSet(ctx, add, add.objects, add.objects, token)
}

// orderedQuery is the query of Relationships on an ordered set: its entries in the
// by-object LSI, in order.
func (c *Client) orderedQuery(subject Key, predicate string) pageQuery {
	in := store.KeyCondition(c.names.Relationships, c.names.RelationshipsByObject, schema.AttrSubjectKey, subject.String())
	in = store.WithSortPrefix(in, schema.AttrPredicateObjectKey, schema.OrderedSetPrefix(predicate))
	return pageQuery{
		in:    in,
		local: true,
		position: paging.Position{Attrs: []paging.Attr{
			{Name: schema.AttrSubjectKey, Fixed: subject.String()},
			{Name: schema.AttrPredicateKey, Max: schema.MaxSortKeyBytes},
			{Name: schema.AttrPredicateObjectKey, Max: schema.MaxSortKeyBytes, Valid: func(k string) bool {
				_, err := schema.ParseOrderedSetKey(predicate, k)
				return err == nil
			}},
		}},
		identity: c.names.RelationshipsByObject + "\x00" + subject.String() + "\x00" + schema.Escape(predicate),
	}
}

// orderedPage decodes a page of an ordered set's entries from the keys the
// by-object LSI projects.
func orderedPage(subject Key, predicate string, items []map[string]types.AttributeValue, cursor string) (*Page[Relationship], error) {
	page := &Page[Relationship]{Items: make([]Relationship, len(items)), Cursor: cursor}
	for i, item := range items {
		e, err := relationships.FromOrderedKeys(relationships.Key(subject), predicate, item)
		if err != nil {
			return nil, wrap(err, "decode relationship entry")
		}
		page.Items[i] = relationshipOf(e)
	}
	return page, nil
}
