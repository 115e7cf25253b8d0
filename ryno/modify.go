package ryno

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/store"
)

// Modify reads the entity k, calls fn to change it, and writes it back under the
// condition that it is still the version read: a read-modify-write that loses no
// concurrent update. When another writer got there first, Modify reads the entity
// again and calls fn again, after a backoff with jitter, within Options.Conflicts;
// then it fails with a *ConflictError. fn may be called several times, so it must
// only change e. An error from fn ends Modify with that error, and nothing is
// written. It returns the entity as stored.
//
// fn may change the attributes and the metadata; not the key. The options are those
// of Update: with IfVersion, a conflict is final. With IfCreated, the entity must be
// the life created then, read and written: finding another life, or none, is final
// too, a *ConflictError matching ErrNotFound, and fn is not called on it. Each
// attempt reads the entity strongly consistently, then writes as Update does: one
// GetItem then one PutItem (2 rounds) for an entity with no index entries or lists
// to write; index entries add a Query between them, and the write becomes one
// TransactWriteItems (3 rounds). A conflict adds an attempt.
func (c *Client) Modify(ctx context.Context, k Key, fn func(e *Entity) error, opts ...WriteOption) (_ *Entity, err error) {
	ctx, call, err := c.begin(ctx, "Modify")
	defer call.end(&err)
	if err != nil {
		return nil, err
	}
	if err := k.Validate(); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, invalid("Modify", k.String(), "needs a function")
	}
	o, err := writeOptionsOf("Modify", opts)
	if err != nil {
		return nil, err
	}
	sets, err := c.takeSets(k, &o)
	if err != nil {
		return nil, err
	}
	if err := c.validateLists(k, o.lists); err != nil {
		return nil, err
	}
	stored, err := c.modify(ctx, k, o, fn)
	if err != nil {
		return nil, err
	}
	if err := c.core.ReplaceSets(ctx, k, sets); err != nil {
		return nil, &PartialWriteError{Entity: stored, Err: err}
	}
	return stored, nil
}

// modify is Modify with its options read.
func (c *Client) modify(ctx context.Context, k Key, o writeOptions, fn func(e *Entity) error) (*Entity, error) {
	if o.version > 0 { // another version will not come back
		return c.modifyOnce(ctx, k, o, fn)
	}
	giveUp := func(conflict, err error) error {
		last := conflict.(*ConflictError)
		gaveUp := store.KeptChanging(k, "", 0, err)
		gaveUp.Stored, gaveUp.Missing = last.Stored, last.Missing
		return gaveUp
	}
	return batching.Attempts(ctx, c.core.ConflictPacer(), giveUp, func(ctx context.Context) (*Entity, batching.Step, error) {
		stored, err := c.modifyOnce(ctx, k, o, fn)
		var conflict *ConflictError
		if !errors.As(err, &conflict) { // the store's conflicts, of lists, too
			return stored, batching.Done, err
		}
		if conflict.Missing && !o.created.IsZero() { // nor will the life IfCreated names
			return nil, batching.Done, err
		}
		return nil, batching.Retry, conflict
	})
}

// modifyOnce reads k, applies fn and writes it under the version read, which must be
// version when not 0, and the life read, which must be IfCreated's when given.
func (c *Client) modifyOnce(ctx context.Context, k Key, o writeOptions, fn func(e *Entity) error) (*Entity, error) {
	version := o.version
	e, err := c.getToWrite(ctx, k)
	if errors.Is(err, ErrNotFound) {
		if gone := o.life(k, time.Time{}); gone != nil {
			return nil, gone
		}
		if version > 0 { // IfVersion's refusal, as Update's
			return nil, &ConflictError{Key: k, Expected: version, Missing: true,
				Reason: fmt.Sprintf("expected version %d, the entity does not exist", version)}
		}
	}
	if err != nil {
		return nil, err
	}
	if err := o.life(k, e.Created); err != nil {
		return nil, err
	}
	if version > 0 && e.Version != version {
		return nil, &ConflictError{Key: k, Expected: version, Stored: e.Version,
			Reason: fmt.Sprintf("expected version %d, stored is %d", version, e.Version)}
	}
	read, created := e.Version, e.Created
	if err := fn(e); err != nil {
		return nil, err
	}
	if e.Key != k {
		return nil, invalid("Entity.Key", e.Key.String(), "Modify must not change the key of "+k.String())
	}
	e.Version, e.Created = read, created
	o.version = 0 // checked above; the write expects the version read
	p, err := c.putOf(e, modeUpdate, o)
	if err != nil {
		return nil, err
	}
	item, err := c.core.Write(ctx, p)
	if err != nil {
		return nil, c.partialWrite(p.Key, item, err)
	}
	return decodeEntity(item)
}

// getToWrite reads the entity k for a write that goes on from what it reads.
func (c *Client) getToWrite(ctx context.Context, k Key) (*Entity, error) {
	item, err := c.core.ReadLive(ctx, k)
	if err != nil {
		return nil, err
	}
	return decodeStored(k, item)
}
