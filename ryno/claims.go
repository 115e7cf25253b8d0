package ryno

import (
	"context"
	"errors"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/indexes"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// UniqueError reports a write refused because another entity holds a value of a
// unique index: Index and Value (as the map function emitted it) name it, Owner is
// the entity holding it. It matches ErrExists (and so ErrConflict). It is package
// entity's type.
type UniqueError = entity.UniqueError

// LookupUnique returns the key of the entity holding value in the unique index in,
// or an error matching ErrNotFound when none does. One GetItem of the value's claim,
// strongly consistent with Consistent() or Options.ConsistentRead; of the options,
// only Consistent applies. A claim records its holder's expiry (Entity.Expires):
// once that has passed, a second GetItem reads the holder, and a value whose holder
// has expired is held by none.
func (c *Client) LookupUnique(ctx context.Context, si ScopedIndex, value indexing.Value, opts ...GetOption) (_ Key, err error) {
	ctx, call, err := c.begin(ctx, "LookupUnique")
	defer call.end(&err)
	if err != nil {
		return Key{}, err
	}
	o := getOptionsOf(opts)
	if o.relationships {
		return Key{}, invalid("LookupUnique", "WithRelationships", "reads no relationships; use GetByUnique")
	}
	if !o.projection.whole() {
		return Key{}, invalid("LookupUnique", "Project", "reads no entity; use GetByUnique")
	}
	if _, err := c.uniqueIndex(si, value); err != nil {
		return Key{}, err
	}
	return c.lookupUnique(ctx, si, value, o.consistent(c))
}

// uniqueIndex returns the unique index si names, after checking si and value.
func (c *Client) uniqueIndex(si ScopedIndex, value indexing.Value) (indexes.Def[Entity], error) {
	ix, ok := c.indexes.ByName(si.Index)
	switch {
	case !ok:
		return ix, errUnregistered(si.Index)
	case !ix.Unique:
		return ix, invalid("index", si.Index, "is not unique")
	}
	if err := schema.ValidateComponent("scope", si.Scope); err != nil {
		return ix, err
	}
	return ix, value.Validate()
}

// lookupUnique reads the claim of value in si and returns the key it names.
func (c *Client) lookupUnique(ctx context.Context, si ScopedIndex, value indexing.Value, consistent bool) (Key, error) {
	k, err := c.core.LookupUnique(ctx, si.Scope, si.Index, value, consistent)
	return k, err
}

// GetByUnique returns the entity holding value in the unique index in, or an
// error matching ErrNotFound: two requests, the claim then the entity, each strongly
// consistent with Consistent() or Options.ConsistentRead. It never returns an entity
// that does not emit the value as read: when the claim's entity gave the value up
// (or is gone) between the two reads, it reads the claim once more, and fails with
// ErrNotFound when the value moved again.
func (c *Client) GetByUnique(ctx context.Context, in ScopedIndex, value indexing.Value, opts ...GetOption) (_ *Entity, err error) {
	ctx, call, err := c.begin(ctx, "GetByUnique")
	defer call.end(&err)
	if err != nil {
		return nil, err
	}
	o := getOptionsOf(opts)
	if err := o.validate(); err != nil {
		return nil, err
	}
	ix, err := c.uniqueIndex(in, value)
	if err != nil {
		return nil, err
	}
	for range 2 {
		k, err := c.lookupUnique(ctx, in, value, o.consistent(c))
		if err != nil {
			return nil, err
		}
		e, held, err := c.getHolder(ctx, k, o, ix, value)
		switch {
		case errors.Is(err, ErrNotFound):
			continue
		case held || err != nil:
			return e, err
		}
	}
	return nil, store.Unheld(in.Scope, in.Index, value)
}

// getHolder reads the entity k as o asks, and reports whether it emits value in
// ix as read. Read in part, the entity's record of the values its writer emitted
// tells; an entity without one is read whole for its map function, then cut down.
func (c *Client) getHolder(ctx context.Context, k Key, o getOptions, ix indexes.Def[Entity], value indexing.Value) (*Entity, bool, error) {
	if o.projection.whole() {
		e, err := c.get(ctx, k, o)
		if err != nil {
			return nil, false, err
		}
		held, err := emits(ix, e, value)
		return e, held, err
	}
	var held, known bool
	o.records = func(item map[string]types.AttributeValue) {
		held, known = store.RecordSelects(item, ix.Name, func(v indexing.Value) bool { return v.Encoding() == value.Encoding() })
	}
	e, err := c.get(ctx, k, o)
	if err != nil || known {
		return e, held && err == nil, err
	}
	whole := o
	whole.projection, whole.records = Projection{}, nil
	e, held, err = c.getHolder(ctx, k, whole, ix, value)
	o.projection.apply(e)
	return e, held, err
}

// emits reports whether ix's map function emits value for e: whether e, as read,
// still holds the value's claim.
func emits(ix indexes.Def[Entity], e *Entity, value indexing.Value) (bool, error) {
	if e.Type != ix.Type {
		return false, nil
	}
	view := *e
	view.Relationships = nil // as a write's map function sees it
	values, err := indexentries.Emit(ix.Name, func(emit func(indexing.Value)) { ix.Map(view, emit) })
	if err != nil {
		return false, wrap(err, "get %s by %s", e.Key, ix.Name)
	}
	return slices.ContainsFunc(values, func(v indexing.Value) bool { return v.Encoding() == value.Encoding() }), nil
}
