package writes

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/lists"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// PutMode is which write of a whole entity a Put is.
type PutMode int

const (
	PutCreate PutMode = iota // the entity must not exist
	PutUpdate                // the entity must exist
	PutSet                   // either
)

func (m PutMode) String() string {
	return [...]string{"create", "update", "set"}[m]
}

// Put is one Create, Update or Set of an entity, checked and encoded by package
// ryno.
type Put struct {
	Mode    PutMode
	Key     store.Key
	Version int64     // the version the writer carries: the stored one must have it (0: none)
	Created time.Time // the Created time the entity carries (zero: none)
	// IfCreated makes the write require the life Created names even without a
	// Version; with one, a Created carried is required anyway.
	IfCreated bool
	// Base is the entity's item without the store's bookkeeping: its key, scope,
	// type, user attributes, metadata and expiry.
	Base map[string]types.AttributeValue
	// Lists are the lists to replace with the entity (ReplaceLists), by predicate.
	Lists map[string][]store.Key
	// Sets are the sets to replace once the entity is written, by predicate.
	Sets map[string][]store.Key
	Cond store.Condition // the caller's condition (If), or nil
	// Restore, when set, writes the entity with the timestamps and version it had
	// (an import), instead of the clock's and the next version.
	Restore *Restored
}

// Restored is what an imported entity keeps of the store it was exported from.
type Restored struct {
	Created, Updated time.Time
	// Version is kept unless the stored entity's next version is higher: a version
	// never goes back, so a writer holding an older one is still refused.
	Version int64
	// Same says the stored entity is this one, written by an import cut off before
	// its lists: the write completes it at its version (Put.Version must be it).
	Same bool
}

// Write stores the entity of p and returns its item as stored. Everything is
// checked before any request. When the entity is written but a later step fails
// (index entries beyond one transaction, a list, a set), it returns the item as
// stored together with the error: the same write again completes the rest.
func (c *Writer) Write(ctx context.Context, p Put) (map[string]types.AttributeValue, error) {
	w, err := c.newWrite(p)
	if err != nil {
		return nil, err
	}
	item, err := w.run(ctx)
	if err != nil {
		return item, err // an item: the entity is written, the rest is not
	}
	c.core.Shapes.Learn(p.Key.Type, store.ShapeNames(p.Base))
	if err := c.ReplaceSets(ctx, p.Key, p.Sets); err != nil {
		// The entity is written: the same call again completes the sets.
		return item, err
	}
	return item, nil
}

// ReplaceSets replaces each of the sets of the entity k with its objects, in
// parallel, once the entity is written.
func (c *Writer) ReplaceSets(ctx context.Context, k store.Key, sets map[string][]store.Key) error {
	predicates := slices.Sorted(maps.Keys(sets))
	return batching.Parallel(ctx, len(predicates), c.core.MaxConcurrency, func(ctx context.Context, i int) error {
		p := predicates[i]
		op := lists.Op{Kind: lists.Replace, Subject: k, Predicate: p, Objects: sets[p], CheckObjects: c.core.CheckObjects}
		if _, err := c.lists.WriteSet(ctx, op); err != nil {
			return errs.Wrap(err, "replace the set %s of %s", p, k)
		}
		return nil
	})
}

// write is one Create, Update or Set in progress.
type write struct {
	c *Writer
	Put
	token      string // names this call's write on the item
	now        time.Time
	mine       string   // the index set this client maintains for the type
	predicates []string // the keys of Lists, sorted
	// together reads the index entries in the same round as the entity item, as a
	// transaction must, and checks them against the item's record of them.
	together bool
	// byRecord says the entries read were checked against the record only, which
	// does not hold projections: the plan puts every projected entry again.
	byRecord bool
	// listsLeft says a commit expecting no entity met one of the lists it replaces
	// stored (an earlier life's, which time to live removed alone): from then on an
	// attempt reads the lists, whatever it expects of the entity.
	listsLeft bool
	// doubts remember contradictions between the heads and entries of lists read,
	// one per predicate.
	doubts []relationships.Doubt
	// createdAttr is the stored form of the Created the write carries, once a
	// refusal showed it in another layout than the store's: the condition of the
	// next attempt pins it.
	createdAttr string
}

// newWrite returns the write of p, after checking that a plan for the Created time
// it carries (or now) holds: any later plan would fail as it does.
func (c *Writer) newWrite(p Put) (*write, error) {
	w := &write{
		c: c, Put: p, token: commit.NewToken(), now: schema.TruncateTime(c.core.Now()),
		mine:       c.core.Indexes.Set(p.Key.Type),
		predicates: slices.Sorted(maps.Keys(p.Lists)),
		together:   p.Mode == PutSet, // a blind Set reads the entries beside the item
	}
	guess := entitystate.Expectation{Absent: true}
	if p.Mode != PutCreate && !p.Created.IsZero() {
		guess = entitystate.Expectation{Created: schema.TruncateTime(p.Created)}
	}
	if _, err := w.plan(guess, nil, nil); err != nil {
		return nil, err
	}
	return w, nil
}

// indexed reports whether the write runs map functions; entryIndexed, whether it
// reads and writes index entries too (the type has indexes that are not inline).
func (w *write) indexed() bool      { return w.c.core.Indexes.Has(w.Key.Type) }
func (w *write) entryIndexed() bool { return w.c.core.Indexes.HasEntries(w.Key.Type) }

// first returns the expectation of the first attempt, and whether the entity must be
// read to complete it.
func (w *write) first() (x entitystate.Expectation, read bool) {
	switch {
	case w.Mode == PutCreate:
		return entitystate.Expectation{Absent: true}, false
	case w.Version > 0:
		x = entitystate.Expectation{Version: w.Version, Created: schema.TruncateTime(w.Created), CreatedAttr: w.createdAttr, Carried: true, Indexes: w.mine}
		return x, w.Created.IsZero() // a put must know the Created time it keeps
	case w.Mode == PutSet && w.Cond == nil && !w.IfCreated && !w.entryIndexed() && len(w.predicates) == 0:
		return entitystate.Expectation{Absent: true}, false // optimistic: one request for a new entity
	}
	// A blind Set that must know what it replaces (index entries, lists, a
	// condition) reads it first: trying a create instead would spend a failed
	// write, billed, on every existing entity.
	return entitystate.Expectation{}, true
}

// conflict is the error of a write whose attempts ran out, for err.
func (w *write) conflict(err error) error {
	return store.KeptChanging(w.Key, "", w.Version, err)
}

// run makes attempts until one commits or fails for good. An attempt reads what its
// plan needs, plans and commits under the condition that the stored entity is still
// what it read; when the condition fails, the stored item it returns decides the next.
func (w *write) run(ctx context.Context) (map[string]types.AttributeValue, error) {
	x, read := w.first()
	in := w.upsertInput()
	giveUp := func(held, err error) error {
		if held != nil { // the last attempt found a list another writer holds
			return held
		}
		return w.conflict(err)
	}
	return batching.Attempts(ctx, w.c.core.ConflictPacer(), giveUp, func(ctx context.Context) (map[string]types.AttributeValue, batching.Step, error) {
		if in != nil { // the first attempt of a write that needs no read
			done, next, err := w.upsert(ctx, in)
			if done != nil || err != nil {
				return done, batching.Done, err
			}
			in, x, read = nil, next, false
			return nil, batching.Retry, nil
		}
		snap, done, err := w.read(ctx, x, read)
		if done != nil || err != nil {
			return done, batching.Done, err
		}
		held, again, err := w.readyLists(ctx, snap.lists)
		if err != nil {
			return nil, batching.Done, err
		}
		if again {
			x, read = snap.x, false
			if held != nil {
				return nil, batching.Retry, held
			}
			return nil, batching.Retry, nil
		}
		p, err := w.plan(snap.x, snap.entries, snap.lists)
		if err != nil {
			return nil, batching.Done, err
		}
		r, err := w.commit(ctx, p)
		switch {
		case r.stored != nil || err != nil:
			return r.stored, batching.Done, err
		case r.listsMoved: // same expectation; the lists are read again
			x = snap.x
		default:
			if err := w.conditionFailed(x, r.old); err != nil {
				return nil, batching.Done, err
			}
			if x, done, err = w.decideFromItem(ctx, r.old); done != nil || err != nil {
				return done, batching.Done, err
			}
		}
		read = false
		return nil, batching.Retry, nil
	})
}

// snapshot is what an attempt read: the expectation its commit checks, and the
// stored index entries and lists its plan diffs against.
type snapshot struct {
	x       entitystate.Expectation
	entries []map[string]types.AttributeValue
	lists   []lists.State
}

// read reads the entity item (when getItem), the lists the write replaces and the
// stored index entries. Entries are diffed under a condition on the version, so they
// must be read after that version was seen: in the first round when the caller
// carried it or an earlier attempt saw it, after the entity item otherwise.
func (w *write) read(ctx context.Context, x entitystate.Expectation, getItem bool) (snapshot, map[string]types.AttributeValue, error) {
	snap := snapshot{x: x, lists: make([]lists.State, len(w.predicates))}
	// An entity that does not exist has no lists: writes of a list check that
	// their subject exists, and a Delete removes its lists before the entity. The
	// transaction checks that no head exists, so a list left behind only costs a
	// retry that reads it.
	readLists := len(w.predicates) > 0 && (!x.Absent || w.listsLeft)
	for i, p := range w.predicates {
		snap.lists[i].Head = relationships.Head{Subject: w.Key, Predicate: p}
	}
	entriesFirst := w.entryIndexed() && !x.Absent && (!getItem || x.Carried || w.together)
	var item map[string]types.AttributeValue
	var heads []relationships.Head
	reads := len(w.predicates) + 3
	err := batching.Parallel(ctx, reads, w.c.core.MaxConcurrency+1, func(ctx context.Context, i int) error {
		var err error
		switch {
		case i == 0 && getItem:
			item, err = w.c.core.GetItem(ctx, w.Key, true)
		case i == 1 && entriesFirst:
			snap.entries, err = w.c.core.ReadIndexEntries(ctx, w.Key)
		case i == 2 && readLists:
			heads, err = w.c.lists.ReadHeads(ctx, w.Key, w.predicates)
		case i >= 3 && readLists:
			snap.lists[i-3].Entries, err = w.c.lists.ReadList(ctx, w.Key, w.predicates[i-3], true)
		}
		return err
	})
	for i, h := range heads {
		snap.lists[i].Head = h
	}
	if err != nil {
		return snap, nil, errs.Wrap(err, "%s %s", w.Mode, w.Key)
	}
	if getItem {
		var done map[string]types.AttributeValue
		if snap.x, done, err = w.decideFromItem(ctx, item); done != nil || err != nil {
			return snap, done, err
		}
		if snap.x.Absent {
			// No entity: entries read beside the item are none of its own, and the
			// write puts every entry it emits, as a create does.
			snap.entries = nil
		}
		if snap.x.Absent && item != nil {
			// The decision completed the Delete it found, which swept the lists
			// read beside the item: they are none now.
			for i, p := range w.predicates {
				snap.lists[i] = lists.State{Head: relationships.Head{Subject: w.Key, Predicate: p}}
			}
		}
	}
	// Entries read beside the item are its own when the caller saw its version
	// before the call, but a version carried without Created may be another life's
	// same number, written after the entries were read: the record tells.
	if entriesFirst && getItem && (!x.Carried || x.Created.IsZero()) && !snap.x.Absent {
		w.byRecord = recordMatches(item, snap.entries)
		entriesFirst = w.byRecord // otherwise read before a write the item shows: again
	}
	if w.entryIndexed() && !snap.x.Absent && !entriesFirst {
		if snap.entries, err = w.c.core.ReadIndexEntries(ctx, w.Key); err != nil {
			return snap, nil, errs.Wrap(err, "%s %s", w.Mode, w.Key)
		}
	}
	return snap, nil, nil
}

// conditionFailed returns a *ConditionError when the write's condition is what
// refused it: the stored item is otherwise as the write expected.
func (w *write) conditionFailed(x entitystate.Expectation, item map[string]types.AttributeValue) error {
	if w.Cond == nil {
		return nil
	}
	if x.Absent && item == nil { // still missing: the condition refused the creation
		return &entity.ConditionError{Key: w.Key, Condition: w.Cond.String()}
	}
	s, err := w.c.core.ReadStored(w.Key, item)
	if err != nil || !s.Live() || s.Token == w.token || !x.Holds(s) {
		return nil
	}
	return &entity.ConditionError{Key: w.Key, Condition: w.Cond.String()}
}

// decideFromItem decides the next expectation from the stored item (nil: none), or
// that the call is done (the item it returns is not nil): its own earlier attempt
// landed, or the item refuses it.
func (w *write) decideFromItem(ctx context.Context, item map[string]types.AttributeValue) (entitystate.Expectation, map[string]types.AttributeValue, error) {
	s, err := w.c.core.ReadStored(w.Key, item)
	if err != nil {
		return entitystate.Expectation{}, nil, err
	}
	if s.Exists() && s.Token == w.token {
		return entitystate.Expectation{}, item, nil
	}
	if s.Ending() {
		if err := w.c.core.Deletes.CompleteDelete(ctx, w.Key, s); err != nil {
			return entitystate.Expectation{}, nil, errs.Wrap(err, "%s %s: completing a delete", w.Mode, w.Key)
		}
		s = entitystate.State{}
	}
	x, err := w.decide(s)
	x.Expires, x.ExpiresKnown = s.Expires, true
	return x, nil, err
}

// decide returns the expectation of a write that found s stored, or why it must not
// write. When s holds the Created the write carries in another layout than the
// store's, it remembers that form, which the next attempt's condition pins.
func (w *write) decide(s entitystate.State) (entitystate.Expectation, error) {
	k, v := w.Key, w.Version
	life := store.OtherLife(k, v, w.life(), s.Life())
	switch {
	case w.Mode == PutCreate && s.Exists():
		return entitystate.Expectation{}, fmt.Errorf("%w: %s", errs.ErrExists, k)
	case w.Mode == PutCreate:
		return entitystate.Expectation{Absent: true}, nil
	case s.Exists() && s.Unreadable != nil: // the put would have to invent its Created
		return entitystate.Expectation{}, store.Unreadable(k, s.Unreadable)
	case life != nil:
		return entitystate.Expectation{}, life
	case v > 0 && !s.Exists():
		return entitystate.Expectation{}, &entity.ConflictError{Key: k, Expected: v, Missing: true, Reason: fmt.Sprintf("expected version %d, the entity does not exist", v)}
	case v > 0 && s.Version != v:
		return entitystate.Expectation{}, &entity.ConflictError{Key: k, Expected: v, Stored: s.Version, Reason: fmt.Sprintf("expected version %d, stored is %d", v, s.Version)}
	case !s.Exists() && w.Mode == PutUpdate:
		return entitystate.Expectation{}, store.NotFound(k)
	case !s.Exists():
		return entitystate.Expectation{Absent: true}, nil
	}
	if v > 0 && !w.Created.IsZero() {
		w.createdAttr = s.CreatedAttr
	}
	if unknown := UnknownIndexes(s.Indexes, w.mine); len(unknown) > 0 {
		return entitystate.Expectation{}, &entity.UnknownIndexError{Key: k, Indexes: unknown}
	}
	x := entitystate.Expect(s)
	if x.Pending = s.Pending != ""; x.Pending {
		x.Left = store.RecordEntries(k, s.Item)
	}
	return x, nil
}

// life returns the Created time of the life of its key the write requires (zero:
// any): the one it carries with a version, or under IfCreated.
func (w *write) life() time.Time {
	if w.Version > 0 || w.IfCreated {
		return w.Created
	}
	return time.Time{}
}
