package ryno

import (
	"context"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/relationships"
)

// Get returns the entity with key k, or an error wrapping ErrNotFound. It sends one
// GetItem (one round). WithRelationships adds a Query per predicate asked for (one
// for every predicate), in the same round, and one more for each further 1 MB page
// of a list. An entity of a type whose reads check its owners (Owns.ObjectType)
// adds a Query beside the GetItem, then a BatchGetItem, a Query and a round per
// level of owners (see docs/deletes.md).
func (c *Client) Get(ctx context.Context, k Key, opts ...GetOption) (_ *Entity, err error) {
	ctx, call, err := c.begin(ctx, "Get")
	defer call.end(&err)
	if err != nil {
		return nil, err
	}
	if err := k.Validate(); err != nil {
		return nil, err
	}
	o := getOptionsOf(opts)
	if err := o.validate(); err != nil {
		return nil, err
	}
	return c.get(ctx, k, o)
}

// get reads the entity k as o asks.
func (c *Client) get(ctx context.Context, k Key, o getOptions) (*Entity, error) {
	if !o.relationships {
		return c.getEntity(ctx, k, o.read(c))
	}
	return c.getWithRelationships(ctx, k, o.predicates, o.read(c))
}

// GetOption asks Get for more than the entity item.
type GetOption func(*getOptions)

type getOptions struct {
	relationships bool
	predicates    []string
	strong        bool
	projection    Projection
	// records, when set, reads the record of index values too, and is handed each
	// entity item read.
	records func(item map[string]types.AttributeValue)
}

// getOptionsOf returns the options opts set.
func getOptionsOf(opts []GetOption) getOptions {
	var o getOptions
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// consistent reports whether reads are strongly consistent: asked for by the call,
// or by Options.ConsistentRead.
func (o getOptions) consistent(c *Client) bool { return o.strong || c.opts.ConsistentRead }

// read is how the call reads entity items.
func (o getOptions) read(c *Client) entityRead {
	return entityRead{consistent: o.consistent(c), projection: o.projection, records: o.records != nil, sharded: c.sharded(), inspect: o.records}
}

func (o getOptions) validate() error {
	for _, p := range o.predicates {
		if err := relationships.ValidatePredicate(p); err != nil {
			return err
		}
	}
	return o.projection.validate("Project")
}

// Consistent makes Get or BatchGet read strongly consistently: the result reflects
// every write that completed before the call. It costs twice the read units of an
// eventually consistent read. Options.ConsistentRead makes it the default.
func Consistent() GetOption {
	return func(o *getOptions) { o.strong = true }
}

// Project makes Get, BatchGet or GetByUnique (and GetAs, GetByUniqueAs) return
// only what p names of the entity, marked partial: see Projection.
func Project(p Projection) GetOption {
	return func(o *getOptions) { o.projection = p }
}

// WithRelationships makes Get fill Entity.Relationships with the lists of the given
// predicates, or of every predicate when none is given. A predicate asked for that
// has no entries gets an empty list.
func WithRelationships(predicates ...string) GetOption {
	return func(o *getOptions) {
		o.relationships = true
		o.predicates = append(o.predicates, predicates...)
	}
}

func (c *Client) getEntity(ctx context.Context, k Key, r entityRead) (*Entity, error) {
	item, err := c.getVisible(ctx, k, r)
	if err != nil {
		return nil, err
	}
	if r.inspect != nil {
		r.inspect(item)
	}
	return r.decode(k, item)
}

// getVisible reads the entity item of k as r asks, or fails with ErrNotFound when
// a reader sees none.
func (c *Client) getVisible(ctx context.Context, k Key, r entityRead) (map[string]types.AttributeValue, error) {
	if c.core.ChecksOwners(k.Type) {
		return c.getChecked(ctx, k, r)
	}
	item, err := c.core.GetEntity(ctx, k, r.options())
	if err != nil {
		return nil, err
	}
	if item == nil || c.core.Hidden(item) {
		return nil, notFound(k)
	}
	return item, nil
}

// getWithRelationships reads the entity and its lists in one parallel round.
func (c *Client) getWithRelationships(ctx context.Context, k Key, predicates []string, r entityRead) (*Entity, error) {
	reads := predicates
	if len(reads) == 0 {
		reads = []string{""} // one query for every predicate
	}
	lists := make([][]relationships.Entry, len(reads))
	var e *Entity
	err := batching.Parallel(ctx, len(reads)+1, c.opts.MaxConcurrency+1, func(ctx context.Context, i int) error {
		var err error
		if i == 0 {
			e, err = c.getEntity(ctx, k, r)
		} else {
			lists[i-1], err = c.lists.ReadList(ctx, k, reads[i-1], r.consistent)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	e.Relationships = make(map[string][]Key, len(predicates))
	for _, p := range predicates {
		e.Relationships[p] = []Key{}
	}
	for _, list := range lists {
		relationships.SortOrdered(list)
		for p, objects := range relationships.ByPredicate(list) {
			e.Relationships[p] = slices.Clone(objects)
		}
	}
	return e, nil
}

// BatchGet returns the entities with keys, in the order of keys, with nil where an
// entity does not exist. Any number of keys, each distinct key read once. When some
// keys could not be read the error is a *BatchError naming them. When some items
// were read but cannot be decoded, BatchGet returns the others with an
// *UnreadableError naming those, nil in their place. Of the options, only Consistent
// applies. It sends ceil(n/100) BatchGetItem for n distinct keys, in parallel: one
// round while they are at most Options.MaxConcurrency. Keys DynamoDB leaves
// unprocessed are asked for again, and entities whose reads check their owners add
// rounds as in Get.
func (c *Client) BatchGet(ctx context.Context, keys []Key, opts ...GetOption) (_ []*Entity, err error) {
	ctx, call, err := c.begin(ctx, "BatchGet")
	defer call.end(&err)
	if err != nil {
		return nil, err
	}
	o := getOptionsOf(opts)
	if o.relationships {
		return nil, invalid("BatchGet", "WithRelationships", "reads no relationships; use Get")
	}
	if err := o.projection.validate("Project"); err != nil {
		return nil, err
	}
	for i, k := range keys {
		if err := k.Validate(); err != nil {
			return nil, wrap(err, "keys[%d]", i)
		}
	}
	r := o.read(c)
	items, err := c.readVisible(ctx, keys, r)
	if err != nil {
		return nil, err
	}
	entities, bad, err := c.decodeVisible(ctx, keys, items, r)
	if err != nil {
		return nil, err
	}
	return entities, unreadableOrNil(bad)
}

// readVisible reads the entity items of keys, in the order of keys, with nil for an
// entity missing, being deleted or expired: ceil(n/100) BatchGetItem requests in
// parallel, each distinct key once.
func (c *Client) readVisible(ctx context.Context, keys []Key, r entityRead) ([]map[string]types.AttributeValue, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	items, err := c.core.BatchReadEntities(ctx, ownKeys(keys), r.options())
	if err != nil {
		return nil, err
	}
	for i, item := range items {
		if item != nil && c.core.Hidden(item) {
			items[i] = nil
		}
	}
	return items, nil
}

// decodeVisible decodes items, read by keys, nil staying nil, and leaves out (as
// nil) those an owner hides (Owns.ObjectType). Those it cannot read are nil too,
// and bad names them.
func (c *Client) decodeVisible(ctx context.Context, keys []Key, items []map[string]types.AttributeValue, r entityRead) (entities []*Entity, bad *UnreadableError, err error) {
	entities = make([]*Entity, len(items))
	bad = &UnreadableError{}
	for i, item := range items {
		if item == nil {
			continue
		}
		// Decoded per position: duplicate keys must not share one mutable entity.
		e, err := decodeEntity(item)
		if err != nil {
			bad.Items = append(bad.Items, UnreadableItem{Key: keys[i], Err: err})
			continue
		}
		r.projection.apply(e)
		entities[i] = e
	}
	if err := c.dropOwnerHidden(ctx, entities, bad, r.consistent); err != nil {
		return nil, nil, err
	}
	return entities, bad, nil
}

func notFound(k Key) error { return fmt.Errorf("%w: %s", ErrNotFound, k) }
