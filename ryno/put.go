package ryno

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/indexes"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// Create stores a new entity and returns it as stored, with Version 1. It fails with
// an error matching ErrExists (and ErrConflict) when the entity exists. One PutItem
// request for an entity with no lists to write and no index entries; otherwise one
// TransactWriteItems. Of the options, only ReplaceLists applies.
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
// exist: one UpdateItem when the stored entity has the same attribute names (see
// Set). IfVersion and If add conditions; see Set for lists and indexes.
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
func (c *Client) Set(ctx context.Context, e *Entity, opts ...WriteOption) (_ *Entity, err error) {
	ctx, call, err := c.begin(ctx, "Set")
	defer call.end(&err)
	if err != nil {
		return nil, err
	}
	return c.put(ctx, e, modeSet, opts)
}

type putMode int

const (
	modeCreate putMode = iota
	modeUpdate
	modeSet
)

func (m putMode) String() string {
	return [...]string{"create", "update", "set"}[m]
}

// call is the name of the call of mode.
func (m putMode) call() string { return [...]string{"Create", "Update", "Set"}[m] }

// write is one Create, Update or Set in progress.
type write struct {
	c          *Client
	mode       putMode
	e          *Entity
	base       map[string]types.AttributeValue // the key and the user's attributes
	token      string                          // names this call's write on the item
	now        time.Time
	mine       string           // the index set this client maintains for the type
	lists      map[string][]Key // the lists to replace (ReplaceLists)
	predicates []string         // the keys of lists, sorted
	cond       *Condition       // the caller's condition (If), or nil
	// together reads the index entries in the same round as the entity item, as a
	// transaction must, and checks them against the item's record of them.
	together bool
	// byRecord says the entries read were checked against the record only, which
	// does not hold projections: the plan puts every projected entry again.
	byRecord bool
	// doubts remember contradictions between the heads and entries of lists read,
	// one per predicate.
	doubts []relationships.Doubt
}

func (c *Client) put(ctx context.Context, e *Entity, mode putMode, opts []WriteOption) (*Entity, error) {
	o, err := writeOptionsOf(mode.call(), opts)
	if err != nil {
		return nil, err
	}
	var sets map[string][]Key
	if e != nil { // newWrite refuses a nil entity
		if sets, err = c.takeSets(e.Key, &o); err != nil {
			return nil, err
		}
	}
	w, err := c.newWrite(e, mode, o)
	if err != nil {
		return nil, err
	}
	stored, err := w.run(ctx)
	if err != nil {
		return nil, err
	}
	if err := c.replaceSets(ctx, stored, sets); err != nil {
		return nil, err
	}
	return stored, nil
}

// newWrite checks e and returns its write. Everything is checked before any
// request: a plan for the Created time the entity carries (or now) fails as any
// later plan would.
func (c *Client) newWrite(e *Entity, mode putMode, o writeOptions) (*write, error) {
	base, err := encodeEntity(e)
	if err != nil {
		return nil, err
	}
	if e, err = o.onEntity(e, mode); err != nil {
		return nil, err
	}
	if err := c.validateLists(e.Key, o.lists); err != nil {
		return nil, err
	}
	w := &write{
		c: c, mode: mode, e: e, base: base, token: commit.NewToken(), now: c.now(),
		mine:       c.indexes.Set(e.Type),
		lists:      o.lists,
		predicates: slices.Sorted(maps.Keys(o.lists)),
		cond:       o.cond,
		together:   mode == modeSet, // a blind Set reads the entries beside the item
	}
	guess := entitystate.Expectation{Absent: true}
	if mode != modeCreate && !e.Created.IsZero() {
		guess = entitystate.Expectation{Created: schema.TruncateTime(e.Created)}
	}
	if _, err := w.plan(guess, nil, nil); err != nil {
		return nil, err
	}
	return w, nil
}

// indexed reports whether the write runs map functions; entryIndexed, whether it
// reads and writes index entries too (the type has indexes that are not inline).
func (w *write) indexed() bool      { return w.c.indexes.Has(w.e.Type) }
func (w *write) entryIndexed() bool { return w.c.indexes.HasEntries(w.e.Type) }

// first returns the expectation of the first attempt, and whether the entity must be
// read to complete it.
func (w *write) first() (x entitystate.Expectation, read bool) {
	switch {
	case w.mode == modeCreate:
		return entitystate.Expectation{Absent: true}, false
	case w.e.Version > 0:
		x = entitystate.Expectation{Version: w.e.Version, Created: schema.TruncateTime(w.e.Created), Carried: true, Indexes: w.mine}
		return x, w.e.Created.IsZero() // a put must know the Created time it keeps
	case w.mode == modeSet && w.cond == nil && !w.entryIndexed() && len(w.predicates) == 0:
		return entitystate.Expectation{Absent: true}, false // optimistic: one request for a new entity
	}
	// A blind Set that must know what it replaces (index entries, lists, a
	// condition) reads it first: trying a create instead would spend a failed
	// write, billed, on every existing entity.
	return entitystate.Expectation{}, true
}

// run makes attempts until one commits or fails for good. An attempt reads what its
// plan needs, plans and commits under the condition that the stored entity is still
// what it read; when the condition fails, the stored item it returns decides the next.
func (w *write) run(ctx context.Context) (*Entity, error) {
	x, read := w.first()
	pace := w.c.core.ConflictPacer()
	if in := w.upsertInput(); in != nil {
		done, next, err := w.upsert(ctx, in)
		if done != nil || err != nil {
			return done, err
		}
		x, read = next, false
		if err := pace.Wait(ctx); err != nil {
			return nil, &ConflictError{Key: w.e.Key, Reason: "concurrent writers kept changing it: " + err.Error()}
		}
	}
	for {
		snap, done, err := w.read(ctx, x, read)
		if done != nil || err != nil {
			return done, err
		}
		held, again, err := w.readyLists(ctx, snap.lists)
		if err != nil {
			return nil, err
		}
		if again {
			x, read = snap.x, false
			if err := pace.Wait(ctx); err != nil {
				if held != nil {
					return nil, held
				}
				return nil, &ConflictError{Key: w.e.Key, Expected: w.e.Version, Reason: "concurrent writers kept changing it: " + err.Error()}
			}
			continue
		}
		p, err := w.plan(snap.x, snap.entries, snap.lists)
		if err != nil {
			return nil, err
		}
		r, err := w.commit(ctx, p)
		switch {
		case r.stored != nil || err != nil:
			return r.stored, err
		case r.listsMoved: // same expectation; the lists are read again
			x = snap.x
		default:
			if err := w.conditionFailed(x, r.old); err != nil {
				return nil, err
			}
			if x, done, err = w.decideFromItem(ctx, r.old); done != nil || err != nil {
				return done, err
			}
		}
		read = false
		if err := pace.Wait(ctx); err != nil {
			return nil, &ConflictError{Key: w.e.Key, Expected: w.e.Version, Reason: "concurrent writers kept changing it: " + err.Error()}
		}
	}
}

// readyLists inspects the lists read before a plan relies on them. It finishes a
// list another writer left unfinished (or whose bookkeeping contradicts its entries)
// and reports that the lists must be read again, as they must while another writer
// holds one (held then says which) or a read is doubtful.
func (w *write) readyLists(ctx context.Context, lists []store.ListState) (held *LeaseError, again bool, err error) {
	if w.doubts == nil {
		w.doubts = make([]relationships.Doubt, len(lists))
	}
	now := w.c.opts.Now()
	for i, s := range lists {
		switch relationships.Inspect(s.Head, nil, s.Entries, true, now, &w.doubts[i]) {
		case relationships.Held:
			held, again = &LeaseError{Key: w.e.Key, Predicate: s.Head.Predicate, Until: s.Head.LeaseUntil}, true
		case relationships.Left:
			if _, err := w.c.core.WriteListLeased(ctx, nil, s.Head); err != nil {
				return nil, false, err
			}
			again = true
		case relationships.Doubtful:
			again = true
		}
	}
	return held, again, nil
}

// snapshot is what an attempt read: the expectation its commit checks, and the
// stored index entries and lists its plan diffs against.
type snapshot struct {
	x       entitystate.Expectation
	entries []map[string]types.AttributeValue
	lists   []store.ListState
}

// read reads the entity item (when getItem), the lists the write replaces and the
// stored index entries. Entries are diffed under a condition on the version, so they
// must be read after that version was seen: in the first round when the caller
// carried it or an earlier attempt saw it, after the entity item otherwise.
func (w *write) read(ctx context.Context, x entitystate.Expectation, getItem bool) (snapshot, *Entity, error) {
	snap := snapshot{x: x, lists: make([]store.ListState, len(w.predicates))}
	// An entity that does not exist has no lists: writes of a list check that
	// their subject exists, and a Delete removes its lists before the entity. The
	// transaction checks that no head exists, so a list left behind only costs a
	// retry that reads it.
	readLists := len(w.predicates) > 0 && !x.Absent
	for i, p := range w.predicates {
		snap.lists[i].Head = relationships.Head{Subject: relationships.Key(w.e.Key), Predicate: p}
	}
	entriesFirst := w.entryIndexed() && !x.Absent && (!getItem || x.Carried || w.together)
	var item map[string]types.AttributeValue
	var heads []relationships.Head
	reads := len(w.predicates) + 3
	err := batching.Parallel(ctx, reads, w.c.opts.MaxConcurrency+1, func(ctx context.Context, i int) error {
		var err error
		switch {
		case i == 0 && getItem:
			item, err = w.c.core.GetItem(ctx, relationships.Key(w.e.Key), true)
		case i == 1 && entriesFirst:
			snap.entries, err = w.c.core.ReadIndexEntries(ctx, relationships.Key(w.e.Key))
		case i == 2 && readLists:
			heads, err = w.c.core.ReadHeads(ctx, relationships.Key(w.e.Key), w.predicates)
		case i >= 3 && readLists:
			snap.lists[i-3].Entries, err = w.c.core.ReadList(ctx, relationships.Key(w.e.Key), w.predicates[i-3], true)
		}
		return err
	})
	for i, h := range heads {
		snap.lists[i].Head = h
	}
	if err != nil {
		return snap, nil, wrap(err, "%s %s", w.mode, w.e.Key)
	}
	if getItem {
		var done *Entity
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
				snap.lists[i] = store.ListState{Head: relationships.Head{Subject: relationships.Key(w.e.Key), Predicate: p}}
			}
		}
	}
	if entriesFirst && getItem && !x.Carried && !snap.x.Absent {
		w.byRecord = store.RecordMatches(item, snap.entries)
		entriesFirst = w.byRecord // otherwise read before a write the item shows: again
	}
	if w.entryIndexed() && !snap.x.Absent && !entriesFirst {
		if snap.entries, err = w.c.core.ReadIndexEntries(ctx, relationships.Key(w.e.Key)); err != nil {
			return snap, nil, wrap(err, "%s %s", w.mode, w.e.Key)
		}
	}
	return snap, nil, nil
}

// conditionFailed returns a *ConditionError when the write's condition is what
// refused it: the stored item is otherwise as the write expected.
func (w *write) conditionFailed(x entitystate.Expectation, item map[string]types.AttributeValue) error {
	if w.cond == nil {
		return nil
	}
	s, err := w.c.core.ReadStored(relationships.Key(w.e.Key), item)
	if err != nil || !s.Live() || s.Token == w.token || !x.Holds(s) {
		return nil
	}
	return &ConditionError{Key: w.e.Key, Condition: w.cond.String()}
}

// decideFromItem decides the next expectation from the stored item (nil: none), or
// that the call is done: its own earlier attempt landed, or the item refuses it.
func (w *write) decideFromItem(ctx context.Context, item map[string]types.AttributeValue) (entitystate.Expectation, *Entity, error) {
	s, err := w.c.core.ReadStored(relationships.Key(w.e.Key), item)
	if err != nil {
		return entitystate.Expectation{}, nil, err
	}
	if s.Exists() && s.Token == w.token {
		done, err := w.storedEntity(item)
		return entitystate.Expectation{}, done, err
	}
	if s.Ending() {
		if err := w.c.core.CompleteDelete(ctx, relationships.Key(w.e.Key), s); err != nil {
			return entitystate.Expectation{}, nil, wrap(err, "%s %s: completing a delete", w.mode, w.e.Key)
		}
		s = entitystate.State{}
	}
	x, err := w.decide(s)
	x.Expires, x.ExpiresKnown = s.Expires, true
	return x, nil, err
}

// decide returns the expectation of a write that found s stored, or why it must not
// write.
func (w *write) decide(s entitystate.State) (entitystate.Expectation, error) {
	k := w.e.Key
	switch {
	case w.mode == modeCreate && s.Exists():
		return entitystate.Expectation{}, fmt.Errorf("%w: %s", ErrExists, k)
	case w.mode == modeCreate:
		return entitystate.Expectation{Absent: true}, nil
	case w.e.Version > 0 && !s.Exists():
		return entitystate.Expectation{}, &ConflictError{Key: k, Expected: w.e.Version, Missing: true, Reason: fmt.Sprintf("expected version %d, the entity does not exist", w.e.Version)}
	case w.e.Version > 0 && s.Version != w.e.Version:
		return entitystate.Expectation{}, &ConflictError{Key: k, Expected: w.e.Version, Stored: s.Version, Reason: fmt.Sprintf("expected version %d, stored is %d", w.e.Version, s.Version)}
	case w.e.Version > 0 && !w.e.Created.IsZero() && !s.Created.Equal(schema.TruncateTime(w.e.Created)):
		return entitystate.Expectation{}, &ConflictError{Key: k, Expected: w.e.Version, Stored: s.Version, Reason: "the entity was deleted and created again"}
	case !s.Exists() && w.mode == modeUpdate:
		return entitystate.Expectation{}, notFound(k)
	case !s.Exists():
		return entitystate.Expectation{Absent: true}, nil
	}
	if unknown := store.UnknownIndexes(s.Indexes, w.mine); len(unknown) > 0 {
		return entitystate.Expectation{}, &UnknownIndexError{Key: k, Indexes: unknown}
	}
	x := entitystate.Expect(s)
	if x.Pending = s.Pending != ""; x.Pending {
		x.Left = store.RecordEntries(relationships.Key(k), s.Item)
	}
	return x, nil
}

// putPlan is what one attempt commits.
type putPlan struct {
	x        entitystate.Expectation
	item     map[string]types.AttributeValue // the entity item to put
	entries  []indexentries.Entry            // the index entries it emits
	entryOps []batching.WriteOp              // index entries to put and delete
	lists    []relationships.Change          // the lists it replaces
	claims   []indexentries.Claim            // values of unique indexes it claims
	releases []indexentries.Claim            // and those it gives up
}

// plan builds the item a write meeting x puts, and the changes to the index entries
// and lists read. It checks what DynamoDB would refuse.
func (w *write) plan(x entitystate.Expectation, storedEntries []map[string]types.AttributeValue, lists []store.ListState) (*putPlan, error) {
	x.Now = w.now
	if w.cond != nil {
		x.Cond = w.cond.build
	}
	created := w.now
	if !x.Absent && !x.Created.IsZero() {
		created = x.Created
	}
	item := maps.Clone(w.base)
	item[schema.AttrCreated] = str(schema.FormatTime(created))
	item[schema.AttrUpdated] = str(schema.FormatTime(w.now))
	item[schema.AttrVersion] = number(x.Next())
	item[schema.AttrToken] = str(w.token)
	item[schema.AttrShape] = str(store.ShapeOf(w.base))
	if w.mine != "" {
		item[schema.AttrIndexes] = str(w.mine)
	}
	p := &putPlan{x: x, item: item}
	if w.indexed() {
		emitted, err := emitEntries(w.c.indexes, item, created, w.now)
		if err != nil {
			return nil, err
		}
		inline, entries, err := w.c.indexes.InlineSplit(w.e.Type, emitted)
		if err != nil {
			return nil, err
		}
		indexes.PutInline(item, inline)
		item[schema.AttrIndexEntries] = indexes.Record(entries)
		if p.entryOps, err = indexes.Ops(w.c.core.Names.IndexEntries, storedEntries, entries); err != nil {
			return nil, err
		}
		p.entries = entries
		held := store.ParseEntries(storedEntries)
		if x.Pending {
			held = append(held, x.Left...)
		}
		p.claims, p.releases = w.c.indexes.ClaimChanges(held, entries)
		if store.RecordsNewExpiry(x, entitystate.ExpiresOf(item)) {
			p.claims = w.c.indexes.UniqueClaims(entries) // each claim records the holder's expiry
		}
		if w.byRecord {
			p.entryOps = append(p.entryOps, store.ProjectedPuts(w.c.core.Names.IndexEntries, entries)...)
		}
	}
	if err := checkItemSize(w.e.Key, item); err != nil {
		return nil, err
	}
	for i, s := range lists {
		p.lists = append(p.lists, relationships.ChangeReplace(s.Head, s.Entries, relKeys(w.lists[w.predicates[i]])))
	}
	return p, nil
}

// commitResult is how a commit ended: written, or refused by the condition with the
// item then stored, or refused by a list another writer changed since it was read.
type commitResult struct {
	stored     *Entity
	old        map[string]types.AttributeValue
	listsMoved bool
}

// transaction returns the actions that commit the plan in one transaction: the
// entity, its index entries and claims, its lists.
func (w *write) transaction(p *putPlan) *actions.Transaction {
	t := &actions.Transaction{}
	t.Add(w.c.core.PutAction(p.item, p.x), actions.Role{Kind: actions.RoleEntity}, schema.ItemSize(p.item))
	t.MarkChecked(relationships.Key(w.e.Key)) // the put checks the entity
	for _, op := range batching.LastWriteWins(p.entryOps) {
		t.Add(actions.Items([]batching.WriteOp{op})[0], actions.Role{Kind: actions.RoleIndex}, op.Size())
	}
	actions.AddClaims(t, w.c.core.Names.IndexEntries, p.claims, p.releases, entitystate.ExpiresOf(p.item))
	for _, ch := range p.lists {
		actions.AddChange(t, w.c.core.ListTables(), ch, w.c.opts.CheckObjects, w.c.opts.Now())
	}
	return t
}

// commit writes the plan: one conditional PutItem when only the entity changes, one
// transaction when everything fits in one, the large path otherwise.
func (w *write) commit(ctx context.Context, p *putPlan) (commitResult, error) {
	if len(p.entryOps) == 0 && len(p.lists) == 0 && len(p.claims)+len(p.releases) == 0 && !p.x.Pending {
		return w.result(w.c.core.PutItem(ctx, relationships.Key(w.e.Key), p.item, p.x, w.token), p)
	}
	t := w.transaction(p)
	if p.x.Pending || !t.Fits() {
		return w.commitLarge(ctx, p)
	}
	a := w.c.core.Transact(ctx, t.Actions, commit.NewToken())
	if a.Outcome == commit.ConditionFailed && a.Action > 0 {
		r := store.Refusal(t, a)
		switch {
		case r.Missing != nil:
			return commitResult{}, wrap(r.Missing, "%s %s", w.mode, w.e.Key)
		case r.Role.Kind == actions.RoleClaim && r.Role.Release: // another entity holds it: not ours to release
			p.releases = slices.DeleteFunc(p.releases, func(cl indexentries.Claim) bool { return cl == r.Role.Claim })
			return w.commit(ctx, p)
		case r.Role.Kind == actions.RoleClaim:
			return w.claimRefused(ctx, r.Role.Claim, a.Item)
		}
		return commitResult{listsMoved: true}, nil
	}
	return w.result(a, p)
}

// claimRefused is the result of a commit refused by the claim of cl, held as item:
// another try once the value's holder is found to have ended (see freeHeld), the
// holder's *UniqueError otherwise.
func (w *write) claimRefused(ctx context.Context, cl indexentries.Claim, item map[string]types.AttributeValue) (commitResult, error) {
	freed, err := w.c.core.FreeHeld(ctx, cl, item)
	if err == nil && !freed {
		err = uniqueTaken(cl, item)
	}
	if err != nil {
		return commitResult{}, wrap(err, "%s %s", w.mode, w.e.Key)
	}
	return commitResult{listsMoved: true}, nil // same expectation, planned again
}

func (w *write) result(a commit.Attempt, p *putPlan) (commitResult, error) {
	switch {
	case a.Outcome == commit.Committed:
		e, err := w.storedEntity(p.item)
		return commitResult{stored: e}, err
	case a.Outcome == commit.ConditionFailed && a.Action == 0:
		return commitResult{old: a.Item}, nil
	}
	return commitResult{}, wrap(a.Err, "%s %s", w.mode, w.e.Key)
}

// storedEntity returns the entity as the item written stores it.
func (w *write) storedEntity(item map[string]types.AttributeValue) (*Entity, error) {
	return decodeEntity(item)
}
