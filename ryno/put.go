package ryno

import (
	"context"

	"github.com/rynodb/rynodb/internal/writes"
)

// Create stores a new entity and returns it as stored, with Version 1. It fails with
// an error matching ErrExists (and ErrConflict) when the entity exists. Of the
// options, only ReplaceLists applies. It sends one PutItem (one round), inline index
// values included, or one TransactWriteItems when it also writes index entries or
// lists; the sets of ReplaceLists follow, as ReplaceRelationships writes them (see
// docs/relationships.md).
func (c *Client) Create(ctx context.Context, e *Entity, opts ...WriteOption) (_ *Entity, err error) {
	ctx, call, err := c.begin(ctx, "Create")
	defer call.end(&err)
	if err != nil {
		return nil, err
	}
	return c.put(ctx, e, modeCreate, opts)
}

// Update replaces the attributes and metadata of an existing entity, keeping its
// Created time, and returns it as stored. When e carries a Version (it was read from
// the store), the stored entity must still have it: otherwise the call fails with a
// *ConflictError matching ErrConflict and writes nothing. Without a Version it
// replaces whatever is stored, and fails with ErrNotFound when the entity does not
// exist. IfVersion, IfCreated and If add conditions; see Set for lists and indexes.
// It sends one PutItem (one round) when e carries its Version and Created, or one
// UpdateItem (one round) without a Version when the stored entity has the same
// attribute names; otherwise, and for index entries and lists, what Set sends,
// except that a blind Update of an indexed type reads its entries after the item: 3
// rounds.
func (c *Client) Update(ctx context.Context, e *Entity, opts ...WriteOption) (_ *Entity, err error) {
	ctx, call, err := c.begin(ctx, "Update")
	defer call.end(&err)
	if err != nil {
		return nil, err
	}
	return c.put(ctx, e, modeUpdate, opts)
}

// Set stores the entity whether or not it exists (an upsert), keeping the Created
// time of an existing one, and returns it as stored. When e carries a Version, the
// stored entity must still have it, as for Update.
//
// Without a Version, an entity of a type without indexes, written with no lists and
// no condition, is one UpdateItem when it is new or the stored one has the same
// attribute names (and metadata or not): nothing of the stored item can survive it.
// Otherwise the refused update returns the stored item, and the entity is put under
// its version. A Set without a Version that the update cannot make (index entries,
// lists, a condition) reads the item first, with its entries and lists in the same
// round, so that it never spends a write an existing entity refuses.
//
// Lists are written only when asked for with ReplaceLists: e.Relationships, filled
// by Get, is never written back. The entity, the changes to its index entries and
// to its lists commit in one TransactWriteItems when they fit in one (100 actions, 4
// MB), so no reader sees one without the others. Larger changes are written after the
// entity, and converge: a write that is cut off is completed by the next write of
// the entity, since differences are computed from the tables.
//
// It sends one PutItem (one round) when e carries its Version and Created; a Version
// without Created reads the item first (a GetItem, one more round). Without a
// Version it sends one UpdateItem (one round) for a new entity or one of the same
// attribute names, and a PutItem after it when the update is refused. Index entries
// (not inline) are read first, one Query, beside the GetItem of a blind Set, then
// everything commits in one TransactWriteItems (a PutItem when no entry changes): 2
// rounds. Lists add to that first round one BatchGetItem of their heads and a Query
// per list (and per 1 MB page). Each attempt lost to another writer adds its reads
// and its commit, within Options.Conflicts. See docs/entities.md and docs/cost.md.
func (c *Client) Set(ctx context.Context, e *Entity, opts ...WriteOption) (_ *Entity, err error) {
	ctx, call, err := c.begin(ctx, "Set")
	defer call.end(&err)
	if err != nil {
		return nil, err
	}
	return c.put(ctx, e, modeSet, opts)
}

type putMode = writes.PutMode

const (
	modeCreate = writes.PutCreate
	modeUpdate = writes.PutUpdate
	modeSet    = writes.PutSet
)

// calls names the call of each mode.
var calls = [...]string{modeCreate: "Create", modeUpdate: "Update", modeSet: "Set"}

func (c *Client) put(ctx context.Context, e *Entity, mode putMode, opts []WriteOption) (*Entity, error) {
	o, err := writeOptionsOf(calls[mode], opts)
	if err != nil {
		return nil, err
	}
	var sets map[string][]Key
	if e != nil { // putOf refuses a nil entity
		if sets, err = c.takeSets(e.Key, &o); err != nil {
			return nil, err
		}
	}
	p, err := c.putOf(e, mode, o)
	if err != nil {
		return nil, err
	}
	p.Sets = sets
	item, err := c.writes.Write(ctx, p)
	if err != nil {
		return nil, c.partialWrite(p.Key, item, err)
	}
	return decodeEntity(item)
}

// putOf checks e and returns its write, before any request.
func (c *Client) putOf(e *Entity, mode putMode, o writeOptions) (writes.Put, error) {
	base, err := encodeEntity(e)
	if err != nil {
		return writes.Put{}, err
	}
	if e, err = o.onEntity(e, mode); err != nil {
		return writes.Put{}, err
	}
	if err := c.validateLists(e.Key, o.lists); err != nil {
		return writes.Put{}, err
	}
	return writes.Put{Mode: mode, Key: e.Key, Version: e.Version, Created: e.Created,
		IfCreated: !o.created.IsZero(), Base: base, Lists: ownLists(o.lists), Cond: o.cond.store()}, nil
}

// ownLists is a copy of lists that the caller's slices do not share; nil for nil.
func ownLists(lists map[string][]Key) map[string][]Key {
	if lists == nil {
		return nil
	}
	own := make(map[string][]Key, len(lists))
	for p, objects := range lists {
		own[p] = ownKeys(objects)
	}
	return own
}
