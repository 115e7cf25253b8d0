package ryno

import (
	"context"
	"errors"
	"fmt"
)

// Modify reads the entity k, calls fn to change it, and writes it back under the
// condition that it is still the version read: a read-modify-write that loses no
// concurrent update. When another writer got there first, Modify reads the entity
// again and calls fn again, after a backoff with jitter, within Options.Conflicts;
// then it fails with a *ConflictError. fn may be called several times, so it must
// only change e. An error from fn ends Modify with that error, and nothing is
// written. It returns the entity as stored.
//
// fn may change the attributes, the metadata and the relationships to write (as for
// Update); not the key. Each attempt reads the entity strongly consistently, then
// writes as Update does: one GetItem and one PutItem for an entity with no index
// entries or lists to write.
func (c *Client) Modify(ctx context.Context, k Key, fn func(e *Entity) error) (*Entity, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, invalid("Modify", k.String(), "needs a function")
	}
	return c.modify(ctx, k, nil, fn)
}

// modify is Modify with a condition on the entity as read.
func (c *Client) modify(ctx context.Context, k Key, cond *Condition, fn func(e *Entity) error) (*Entity, error) {
	pace := c.conflictPacer()
	for {
		stored, err := c.modifyOnce(ctx, k, writeOptions{cond: cond}, fn)
		var conflict *ConflictError
		if !errors.As(err, &conflict) {
			return stored, err
		}
		if err := pace.wait(ctx); err != nil {
			return nil, &ConflictError{Key: k, Stored: conflict.Stored, Missing: conflict.Missing,
				Reason: "concurrent writers kept changing it: " + err.Error()}
		}
	}
}

// modifyOnce reads k, applies fn and writes it under the version read, which must be
// version when not 0.
func (c *Client) modifyOnce(ctx context.Context, k Key, o writeOptions, fn func(e *Entity) error) (*Entity, error) {
	version := o.version
	e, err := c.getEntity(ctx, k, true)
	if err != nil {
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
	w, err := c.newWrite(e, modeUpdate)
	if err != nil {
		return nil, err
	}
	w.cond = o.cond
	return w.run(ctx)
}
