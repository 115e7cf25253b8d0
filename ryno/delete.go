package ryno

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// Delete removes the entity with key k with everything that refers to it: its index
// entries, its own relationship entries and the relationship entries pointing at it.
// Deleting an entity that does not exist is not an error.
//
// Delete first marks the entity as being deleted (a tombstone), in one request: from
// then on it reads as missing, and every write of it fails its condition. Then it
// reads what refers to the entity, one page at a time, and deletes it in
// transactions that check the mark is still there; the entity item goes last, in the
// same transaction when everything fits in one. A Delete cut off half-way leaves the
// mark, and the next write of the entity, or Delete called again, completes it.
//
// With IfVersion, the entity must have that version: otherwise the call fails with a
// *ConflictError matching ErrConflict (and ErrNotFound when it does not exist). With
// IfCreated, it must be that life: otherwise the *ConflictError matches ErrNotFound.
//
// Entries pointing at the entity are found through the reverse index, which DynamoDB
// keeps eventually consistent: an entry written a moment before the Delete can be
// missed.
//
// It sends 5 requests in 3 rounds for an entity nothing refers to: one UpdateItem
// (the tombstone), 3 Queries in parallel (the entries pointing at it, its own
// entries, its index entries), one DeleteItem; for a missing entity, the refused
// UpdateItem and the Queries (2 rounds). What refers to the entity goes in one
// TransactWriteItems with the entity, in place of the DeleteItem, while it fits (99
// items); beyond, in parallel transactions of 99 before the DeleteItem (50 edges each
// way: 9 requests in 4 rounds). More pages add Queries and rounds, a set's entries a
// DeleteItem each, and what the entity owns about 6 rounds per level (see
// docs/deletes.md). With InBackground it returns after the UpdateItem when the
// entity exists.
func (c *Client) Delete(ctx context.Context, k Key, opts ...WriteOption) (err error) {
	ctx, call, err := c.begin(ctx, "Delete")
	defer call.end(&err)
	if err != nil {
		return err
	}
	if err := k.Validate(); err != nil {
		return err
	}
	o, err := writeOptionsOf("Delete", opts)
	if err == nil {
		err = o.withoutLists("Delete")
	}
	if err != nil {
		return err
	}
	if o.background {
		return c.deleteInBackground(ctx, k, o)
	}
	return c.core.DeleteEntity(ctx, k, o.expect())
}

// WriteOption adjusts a write.
type WriteOption func(*writeOptions)

type writeOptions struct {
	version    int64
	created    time.Time // IfCreated; zero when not given
	cond       *Condition
	lists      map[string][]Key // ReplaceLists; nil when not given
	background bool             // InBackground
}

// ReplaceLists makes Create, Update, Set or Modify (and TxCreate, TxUpdate, TxSet)
// replace the entity's list under each predicate of lists with the objects given, in
// order; an empty list clears it, and predicates absent are left alone. The lists
// commit with the entity in one transaction when they fit in one. A set
// (Options.Sets) is replaced after the entity is written, as ReplaceRelationships
// replaces it; when that fails the call returns a *PartialWriteError holding the
// entity, and the same call again completes it. A transaction refuses a set: write
// it with TxAddRelationships and TxRemoveRelationships. Entity.Relationships is
// never written: it only reports what Get read.
func ReplaceLists(lists map[string][]Key) WriteOption {
	return func(o *writeOptions) {
		if o.lists == nil {
			o.lists = make(map[string][]Key, len(lists))
		}
		maps.Copy(o.lists, lists)
	}
}

// IfVersion makes a write require the stored entity to have version v (for an HTTP
// service, its If-Match). A write that finds another version, or no entity, fails
// with a *ConflictError and writes nothing.
func IfVersion(v int64) WriteOption {
	return func(o *writeOptions) { o.version = v }
}

// IfCreated makes a write require the stored entity to be the life of its key
// created at t (Entity.Created, to the millisecond). It applies wherever IfVersion
// does: Update, Set, Patch, Modify, Delete, the typed writes but CreateAs, and
// their operations in Transact. An entity deleted and created again starts at
// version 1 again, so a version alone, an HTTP ETag say, does not tell its lives
// apart: with IfCreated, a write carrying one life's version fails on another life
// at that version. A write that finds another life, or no entity, fails with a
// *ConflictError matching ErrNotFound too, and writes nothing; Modify does not try
// again. Without IfVersion it requires the life and takes any of its versions.
func IfCreated(t time.Time) WriteOption {
	return func(o *writeOptions) { o.created = t }
}

// onEntity returns e as a write in mode sends it with these options: IfVersion
// becomes the version the write expects, IfCreated the life.
func (o writeOptions) onEntity(e *Entity, mode putMode) (*Entity, error) {
	if mode == modeCreate && (o.version > 0 || !o.created.IsZero() || o.cond != nil) {
		return nil, invalid("WriteOption", e.Key.String(),
			"Create writes only an entity that does not exist; IfVersion, IfCreated and If apply to Update and Set")
	}
	if o.version == 0 && o.created.IsZero() {
		return e, nil
	}
	v := *e
	if o.version != 0 {
		if e.Version != 0 && e.Version != o.version {
			return nil, invalid("IfVersion", fmt.Sprint(o.version), fmt.Sprintf("differs from the entity's Version %d", e.Version))
		}
		v.Version = o.version
	}
	if !o.created.IsZero() {
		if !e.Created.IsZero() && !schema.TruncateTime(e.Created).Equal(o.created) {
			return nil, invalid("IfCreated", o.created.String(), fmt.Sprintf("differs from the entity's Created %s", e.Created))
		}
		v.Created = o.created
	}
	return &v, nil
}

// withoutLists refuses ReplaceLists for op, which writes no list.
func (o writeOptions) withoutLists(op string) error {
	if o.lists != nil {
		return invalid("ReplaceLists", "", "applies to Create, Update, Set and Modify, not to "+op)
	}
	return nil
}

// writeOptionsOf returns the options of call.
func writeOptionsOf(call string, opts []WriteOption) (writeOptions, error) {
	var o writeOptions
	for _, opt := range opts {
		opt(&o)
	}
	if o.background && call != "Delete" {
		return o, invalid("InBackground", "", "applies to Delete, not to "+call)
	}
	if o.version < 0 {
		return o, invalid("IfVersion", fmt.Sprint(o.version), "must not be negative")
	}
	if !o.created.IsZero() {
		if schema.ValidateTime(o.created) != nil {
			return o, invalid("IfCreated", o.created.UTC().String(), "is no Created time: its year is outside 1..9999")
		}
		o.created = schema.TruncateTime(o.created) // as stored
	}
	if err := o.cond.validIfAny(); err != nil {
		return o, err
	}
	return o, nil
}

// life is the refusal of a write with o that finds k live since created (zero:
// missing), when IfCreated names another life; nil otherwise.
func (o writeOptions) life(k Key, created time.Time) error {
	return store.OtherLife(k, o.version, o.created, created)
}

// expect is what a Delete with o requires of the stored entity.
func (o writeOptions) expect() store.Expect {
	return store.Expect{Version: o.version, Created: o.created, Cond: o.cond.store()}
}
