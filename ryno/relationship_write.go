package ryno

import (
	"context"
	"maps"
	"slices"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/lists"
	"github.com/rynodb/rynodb/internal/relationships"
)

// AddRelationships appends to the subject's list under predicate each of objects it
// does not hold yet, in order, after every entry present when it commits; an object
// already there, or repeated in objects, is added once. It returns the objects it
// added, so a caller can keep a count without asking first. The subject must exist
// (ErrNotFound otherwise); with CheckObjects, so must every object added.
//
// It reads the list's head, the markers of the objects and the subject in one
// BatchGetItem, then commits the entries, the markers and the head in one
// TransactWriteItems whose conditions make that read hold: 2 requests in 2 rounds,
// while the change fits in one transaction (about 48 objects). When another writer
// changed the list meanwhile, it reads and tries again (Options.Conflicts), then
// fails with a *ConflictError naming the list; when that writer committed, it
// combines with the other writers' calls instead: it posts itself on the list's
// head (an UpdateItem) and polls it for its result, or commits the calls waiting
// there in one transaction (docs/relationships.md, Writers in many processes).
// Too many objects for one transaction
// take a lease on the list instead, and more transactions. IfListVersion makes it
// require the list as read. To a set or an ordered set it sends a PutItem per object
// in parallel, then one GetItem of the subject: 2 rounds. No objects, no request.
// See docs/relationships.md.
func (c *Client) AddRelationships(ctx context.Context, subject Key, predicate string, objects []Key, opts ...ListOption) (_ []Key, err error) {
	ctx, call, err := c.begin(ctx, "AddRelationships")
	defer call.end(&err)
	if err != nil {
		return nil, err
	}
	ch, err := c.listCall(ctx, lists.Add, subject, predicate, objects, opts)
	return slices.Clone(ch.Added), err
}

// RemoveRelationships deletes every entry of the subject's list under predicate that
// points at one of objects and was there when it commits; objects not in the list
// are ignored. It returns the objects it removed. The subject must exist
// (ErrNotFound otherwise). IfListVersion makes it require the list as read. It sends
// what AddRelationships sends: one BatchGetItem, then one TransactWriteItems (2
// rounds) while the change fits in one transaction. From a set or an ordered set it
// sends a DeleteItem per object beside one GetItem of the subject: one round.
func (c *Client) RemoveRelationships(ctx context.Context, subject Key, predicate string, objects []Key, opts ...ListOption) (_ []Key, err error) {
	ctx, call, err := c.begin(ctx, "RemoveRelationships")
	defer call.end(&err)
	if err != nil {
		return nil, err
	}
	ch, err := c.listCall(ctx, lists.Remove, subject, predicate, objects, opts)
	return slices.Clone(ch.Removed), err
}

// ReplaceRelationships makes the subject's list under predicate exactly objects, in
// order, as of its commit; an object may appear more than once, and no objects clear
// the list. It reads the head and the whole list in one parallel round, then writes
// only the entries that change, with the markers and the head, in one transaction
// conditional on the list being the one read. The subject must exist (ErrNotFound
// otherwise); with CheckObjects, so must every object written. It sends one
// BatchGetItem (the head and the subject) beside a Query of the list (one per 1 MB
// page), then one TransactWriteItems: 3 requests in 2 rounds while the change fits
// in one transaction; beyond, it writes under a lease. A set or an ordered set is
// one Query, ceil(d/25) BatchWriteItem in parallel for d objects changed, then one
// GetItem of the subject: 3 rounds (see docs/relationships.md).
//
// A Replace made from a list read earlier (a reorder sent by a client) would drop
// what other writers added since; IfListVersion with the version the list was read
// at (Page.ListVersion) makes it fail with ErrConflict instead, writing nothing.
func (c *Client) ReplaceRelationships(ctx context.Context, subject Key, predicate string, objects []Key, opts ...ListOption) (err error) {
	ctx, call, err := c.begin(ctx, "ReplaceRelationships")
	defer call.end(&err)
	if err != nil {
		return err
	}
	_, err = c.listCall(ctx, lists.Replace, subject, predicate, objects, opts)
	return err
}

// ListOption adjusts one list write.
type ListOption func(*listOptions)

// listOptions are what the options of one list write set.
type listOptions struct {
	checkObjects bool
	version      string // IfListVersion's, when pinned
	pinned       bool
}

// CheckObjects makes a list write check that every object it writes an edge to
// exists, in the same transaction: an edge to a missing entity, or one being
// deleted, is refused with an error matching ErrNotFound that names it. It overrides
// Options.CheckObjects for one call.
func CheckObjects(on bool) ListOption {
	return func(o *listOptions) { o.checkObjects = on }
}

// IfListVersion makes a list write commit only over the list at version v, as a
// listing read it (Page.ListVersion): otherwise it fails with a *ConflictError
// (ErrConflict) and writes nothing. A reorder sent from a stale view then cannot
// drop an object another writer added meanwhile: an HTTP service sends the version
// as the list's ETag and takes If-Match back into IfListVersion.
//
// The version names the list's entries, objects and positions, so it changes with
// every change of them (an Add, a Remove, a Replace, a Set with ReplaceLists, a
// Delete of an object sweeping its edge), and a list back to the entries it had
// has its version again. The check sends no request more when the list has a
// head, which the write reads and conditions anyway: an Add or Remove that changes
// nothing adds a check of the head to its transaction, and one of a list with no
// head reads its entries (a Query). The write goes alone, never batched with other
// calls on the list (as with CheckObjects); one too large for a transaction checks
// the version under its lease. An Add or Remove of no objects returns at once, as
// without it.
//
// A set or an ordered set keeps no version: the option on one is refused with a
// *ValidationError (ErrInvalid) before any request, as is a v that is not a
// version (an empty one included).
func IfListVersion(v string) ListOption {
	return func(o *listOptions) { o.version, o.pinned = v, true }
}

// listCall validates and runs one list write. Adding or removing no objects is
// done before any request. A failed write changed nothing it reports.
func (c *Client) listCall(ctx context.Context, kind lists.Kind, subject Key, predicate string, objects []Key, opts []ListOption) (relationships.Change, error) {
	if err := c.validateList(subject, predicate, objects); err != nil {
		return relationships.Change{}, err
	}
	o := listOptions{checkObjects: c.opts.CheckObjects}
	for _, opt := range opts {
		opt(&o)
	}
	op := lists.Op{Kind: kind, Subject: subject, Predicate: predicate, Objects: ownKeys(objects),
		CheckObjects: o.checkObjects, IfVersion: o.version, Pinned: o.pinned}
	if err := c.validateVersion(op); err != nil {
		return relationships.Change{}, err
	}
	if kind != lists.Replace && len(objects) == 0 {
		return relationships.Change{}, nil
	}
	ch, err := c.lists.WriteRelationships(ctx, op)
	if err != nil {
		return relationships.Change{}, wrap(err, "%s %s -%s->", kind, subject, predicate)
	}
	return ch, nil
}

// validateVersion checks the version op requires, if any: a version, of a list.
func (c *Client) validateVersion(op lists.Op) error {
	switch {
	case !op.Pinned:
		return nil
	case c.core.Sets[op.Predicate]:
		return invalid("IfListVersion", op.Predicate, "is a set, which keeps no version: each of its objects is written on its own")
	case !relationships.ValidVersion(op.IfVersion):
		return invalid("IfListVersion", op.IfVersion, "is not the version of a list (Page.ListVersion)")
	}
	return nil
}

// validateList checks a list write of objects to subject's list under predicate;
// an ordered set's keys also hold a position.
func (c *Client) validateList(subject Key, predicate string, objects []Key) error {
	if err := relationships.Validate(subject, predicate, ownKeys(objects)); err != nil {
		return err
	}
	if c.core.Ordered[predicate] {
		return validateOrdered(predicate, objects)
	}
	return nil
}

// validateLists checks every list a write replaces; sets are not written there.
func (c *Client) validateLists(subject Key, lists map[string][]Key) error {
	for _, predicate := range slices.Sorted(maps.Keys(lists)) {
		if err := c.validateList(subject, predicate, lists[predicate]); err != nil {
			return wrap(err, "ReplaceLists[%q]", predicate)
		}
		if err := c.listsOnly("ReplaceLists", predicate); err != nil {
			return err
		}
	}
	return nil
}

// ownKeys returns a copy of keys, never nil, for the store to hold: the caller's
// slice may change once the call returns.
func ownKeys(keys []Key) []Key { return append(make([]Key, 0, len(keys)), keys...) }

// checkEntityAlso is checkEntity with the condition also, when not nil, in the same
// check.
func (c *Client) checkEntityAlso(t *actions.Transaction, k Key, role actions.Role, also *Condition) {
	if also == nil {
		c.lists.CheckEntity(t, k, role)
		return
	}
	now := c.opts.Now()
	cond := also.build(now)
	actions.CheckEntity(t, c.core.Names.Entities, k, role, now, &cond)
}
