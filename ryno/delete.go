package ryno

import (
	"context"
	"fmt"
	"maps"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/relationships"
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
// *ConflictError matching ErrConflict (and ErrNotFound when it does not exist).
//
// Entries pointing at the entity are found through the reverse index, which DynamoDB
// keeps eventually consistent: an entry written a moment before the Delete can be
// missed.
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
	return c.deleteEntity(ctx, k, o)
}

// deleteEntity marks k as being deleted and completes the Delete.
func (c *Client) deleteEntity(ctx context.Context, k Key, o writeOptions) error {
	s, err := c.markDeleting(ctx, k, o)
	if err != nil {
		return err
	}
	if s.Deleting == "" { // no entity: entries left from an earlier life are swept
		err = c.core.Sweep(ctx, relationships.Key(k), store.Guard{Key: relationships.Key(k), Absent: true}, nil)
	} else {
		err = c.completeDelete(ctx, k, s)
	}
	if err != nil {
		return wrap(err, "delete %s", k)
	}
	return nil
}

// WriteOption adjusts a write.
type WriteOption func(*writeOptions)

type writeOptions struct {
	version    int64
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

// onEntity returns e as a write in mode sends it with these options: IfVersion
// becomes the version the write expects.
func (o writeOptions) onEntity(e *Entity, mode putMode) (*Entity, error) {
	if mode == modeCreate && (o.version > 0 || o.cond != nil) {
		return nil, invalid("WriteOption", e.Key.String(),
			"Create writes only an entity that does not exist; IfVersion and If apply to Update and Set")
	}
	if o.version == 0 || o.version == e.Version {
		return e, nil
	}
	if e.Version != 0 {
		return nil, invalid("IfVersion", fmt.Sprint(o.version), fmt.Sprintf("differs from the entity's Version %d", e.Version))
	}
	v := *e
	v.Version = o.version
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
	if o.cond != nil && o.cond.err != nil {
		return o, o.cond.err
	}
	return o, nil
}

// markDeleting puts the tombstone on k, bumping its version, and returns the item
// of the Delete to complete: its own, or that of a Delete already in progress. The
// item is none (deleting "") when there is no entity.
func (c *Client) markDeleting(ctx context.Context, k Key, o writeOptions) (entitystate.State, error) {
	token := commit.NewToken()
	cond := expression.AttributeExists(expression.Name(schema.AttrID)).
		And(expression.AttributeNotExists(expression.Name(schema.AttrDeleting)))
	if o.version > 0 {
		cond = cond.And(expression.Name(schema.AttrVersion).Equal(expression.Value(number(o.version))))
	}
	if o.cond != nil {
		cond = cond.And(o.cond.build(c.opts.Now()))
	}
	// Removing a pending mark stops a large write still writing its index entries:
	// its chunks check the mark, so none can commit after the sweep has read.
	update := expression.Set(expression.Name(schema.AttrDeleting), expression.Value(str(token))).
		Set(expression.Name(schema.AttrToken), expression.Value(str(token))).
		Remove(expression.Name(schema.AttrPending)).
		Add(expression.Name(schema.AttrVersion), expression.Value(number(1)))
	// The entity leaves its inline indexes with the mark, as it leaves every read.
	update = updateInline(update, everySlot(nil))
	// Sending the mark again is safe: if it landed, the condition fails and the
	// stored item shows the token.
	send := c.core.UpdateSend(c.core.EntityUpdate(relationships.Key(k), commit.Build(cond, &update)))
	a := c.core.Settle(ctx, send, send)
	switch a.Outcome {
	case commit.Committed:
		return c.core.ReadStored(relationships.Key(k), a.Item)
	case commit.ConditionFailed:
		return c.afterMarkFailed(k, token, o, a.Item)
	}
	return entitystate.State{}, wrap(a.Err, "delete %s", k)
}

// afterMarkFailed says what a Delete whose mark (token) was refused does, from the
// stored item: its mark landed on an earlier attempt, another Delete is in progress,
// there is no entity, or it has another version.
func (c *Client) afterMarkFailed(k Key, token string, o writeOptions, item map[string]types.AttributeValue) (entitystate.State, error) {
	version := o.version
	s, err := c.core.ReadStored(relationships.Key(k), item)
	switch {
	case err != nil:
		return entitystate.State{}, err
	case s.Deleting == token:
		return s, nil
	case version > 0 && !s.Live():
		return entitystate.State{}, &ConflictError{Key: k, Expected: version, Missing: true, Reason: fmt.Sprintf("expected version %d, the entity does not exist", version)}
	case version > 0 && s.Version != version:
		return entitystate.State{}, &ConflictError{Key: k, Expected: version, Stored: s.Version, Reason: fmt.Sprintf("expected version %d, stored is %d", version, s.Version)}
	case o.cond != nil && s.Live():
		return entitystate.State{}, &ConditionError{Key: k, Condition: o.cond.String()}
	}
	return s, nil // deleting "" when there is no entity
}

// completeDelete completes the Delete whose tombstone s holds, or the deletion of
// the expired entity s is (putting the tombstone first): it deletes what k
// owns (Options.Owns), then sweeps what refers to k and deletes the item while the
// tombstone is there. A writer that meets the
// tombstone calls it too; every step is idempotent. The values of unique indexes
// the item records are released too: a large write cut off may have claimed them
// before writing their entries.
func (c *Client) completeDelete(ctx context.Context, k Key, s entitystate.State) error {
	if s.Deleting == "" && s.Expired {
		var err error
		if s, err = c.expire(ctx, k); err != nil || s.Deleting == "" {
			return err
		}
	}
	if err := c.cascade(ctx, k); err != nil {
		return err
	}
	g := store.Guard{Key: relationships.Key(k), Attr: schema.AttrDeleting, Token: s.Deleting}
	return c.core.Sweep(ctx, relationships.Key(k), g, c.indexes.recordClaims(k, s.Item))
}
