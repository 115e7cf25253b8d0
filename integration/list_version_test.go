package integration_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// readList reads subject's whole list under predicate in one page, and returns its
// objects and the version the page carries.
func readList(t *testing.T, db *ryno.Client, subject ryno.Key, predicate string) ([]ryno.Key, string) {
	t.Helper()
	page, err := db.Relationships(ctx, subject, predicate, ryno.PageOptions{Limit: 1000, Consistent: true})
	require.NoError(t, err)
	require.Empty(t, page.Cursor, "the list fits in one page")
	require.NotEmpty(t, page.ListVersion, "a page holding the whole list carries its version")
	objects := make([]ryno.Key, len(page.Items))
	for i, r := range page.Items {
		objects[i] = r.Object
	}
	return objects, page.ListVersion
}

// requireStale requires err to be the refusal of a write whose list is not at the
// version it required.
func requireStale(t *testing.T, err error, predicate string) {
	t.Helper()
	require.ErrorIs(t, err, ryno.ErrConflict)
	var conflict *ryno.ConflictError
	require.ErrorAs(t, err, &conflict)
	require.Equal(t, predicate, conflict.Predicate, "the error names the list")
	require.Contains(t, conflict.Error(), "version")
}

// TestAReorderFromAStaleViewIsRefusedAndKeepsWhatWasAdded reads a list and its
// version, lets another client add an object, then sends a reorder of the list as
// read: required at the version read, it fails with ErrConflict and the added object
// stays; at the version read again, it commits.
func TestAReorderFromAStaleViewIsRefusedAndKeepsWhatWasAdded(t *testing.T) {
	s := newStoreWith(t, nil)
	board := pk("board")
	a, b, c, d := pk("a"), pk("b"), pk("c"), pk("d")
	createSubjects(t, s.Client, board, a, b, c, d)
	require.NoError(t, s.ReplaceRelationships(ctx, board, "cards", []ryno.Key{a, b, c}))

	seen, stale := readList(t, s.Client, board, "cards")
	require.Equal(t, []ryno.Key{a, b, c}, seen)
	entities, err := s.RelatedEntities(ctx, board, "cards", ryno.PageOptions{Limit: 1000, Consistent: true})
	require.NoError(t, err)
	require.Len(t, entities.Items, 3)
	require.Equal(t, stale, entities.ListVersion, "RelatedEntities carries the version of the list it read")

	other := newClientOn(t, s, ryno.Options{})
	added, err := other.AddRelationships(ctx, board, "cards", []ryno.Key{d})
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{d}, added)

	s.counter.Reset()
	err = s.ReplaceRelationships(ctx, board, "cards", []ryno.Key{c, b, a}, ryno.IfListVersion(stale))
	requireStale(t, err, "cards")
	require.Zero(t, s.counter.Count("TransactWriteItems"), "the version is checked against the read: nothing is sent")
	now, fresh := readList(t, s.Client, board, "cards")
	require.Equal(t, []ryno.Key{a, b, c, d}, now, "the object added meanwhile is still there")
	require.NotEqual(t, stale, fresh)

	require.NoError(t, s.ReplaceRelationships(ctx, board, "cards", []ryno.Key{d, c, b, a}, ryno.IfListVersion(fresh)))
	require.Equal(t, []ryno.Key{d, c, b, a}, objectsOf(t, s.Client, board, "cards", 100))
	requireListExact(t, s, board, "cards")
}

// TestAnAddOrARemoveRequiringAStaleVersionWritesNothing requires the version of a
// list another client changed since: each kind of list write fails and writes
// nothing, even one with nothing to write; at the version read again, each commits.
func TestAnAddOrARemoveRequiringAStaleVersionWritesNothing(t *testing.T) {
	s := newStoreWith(t, nil)
	hub := pk("hub")
	createSubjects(t, s.Client, hub)
	require.NoError(t, s.ReplaceRelationships(ctx, hub, "follows", []ryno.Key{pk("a"), pk("b")}))
	_, stale := readList(t, s.Client, hub, "follows")
	other := newClientOn(t, s, ryno.Options{})
	require.NoError(t, changed(other.AddRelationships(ctx, hub, "follows", []ryno.Key{pk("c")})))
	want, fresh := readList(t, s.Client, hub, "follows")

	writes := []struct {
		name  string
		write func(version string) ([]ryno.Key, error)
		after []ryno.Key
	}{
		{"an add", func(v string) ([]ryno.Key, error) {
			return s.AddRelationships(ctx, hub, "follows", []ryno.Key{pk("d")}, ryno.IfListVersion(v))
		}, []ryno.Key{pk("a"), pk("b"), pk("c"), pk("d")}},
		{"an add of an object already there", func(v string) ([]ryno.Key, error) {
			return s.AddRelationships(ctx, hub, "follows", []ryno.Key{pk("a")}, ryno.IfListVersion(v))
		}, []ryno.Key{pk("a"), pk("b"), pk("c")}},
		{"a remove", func(v string) ([]ryno.Key, error) {
			return s.RemoveRelationships(ctx, hub, "follows", []ryno.Key{pk("a")}, ryno.IfListVersion(v))
		}, []ryno.Key{pk("b"), pk("c")}},
		{"a remove of an object not there", func(v string) ([]ryno.Key, error) {
			return s.RemoveRelationships(ctx, hub, "follows", []ryno.Key{pk("z")}, ryno.IfListVersion(v))
		}, []ryno.Key{pk("a"), pk("b"), pk("c")}},
	}
	for _, w := range writes {
		t.Run(w.name, func(t *testing.T) {
			require.NoError(t, s.ReplaceRelationships(ctx, hub, "follows", want)) // the same list: no change
			got, err := w.write(stale)
			requireStale(t, err, "follows")
			require.Nil(t, got)
			require.Equal(t, want, objectsOf(t, s.Client, hub, "follows", 100), "nothing was written")

			_, err = w.write(fresh)
			require.NoError(t, err)
			after, version := readList(t, s.Client, hub, "follows")
			require.Equal(t, w.after, after)
			require.Equal(t, slices.Equal(after, want), version == fresh, "the version moves with the list, and only then")
			requireListExact(t, s, hub, "follows")
			require.NoError(t, s.ReplaceRelationships(ctx, hub, "follows", want))
			_, fresh = readList(t, s.Client, hub, "follows")
		})
	}
}

// TestTheListVersionChangesWithEveryChangeOfTheList makes each kind of change to a
// list and reads its version after each: it changes with the entries, and a write
// requiring the version before is refused; a write that changes nothing leaves it.
func TestTheListVersionChangesWithEveryChangeOfTheList(t *testing.T) {
	s := newStoreWith(t, nil)
	hub := pk("hub")
	objects := pks("o", 4)
	createSubjects(t, s.Client, append([]ryno.Key{hub}, objects...)...)
	changes := []struct {
		name   string
		change func() error
		moves  bool
	}{
		{"a replace of a list never written", func() error {
			return s.ReplaceRelationships(ctx, hub, "follows", objects[:2])
		}, true},
		{"an add", func() error { return changed(s.AddRelationships(ctx, hub, "follows", objects[2:3])) }, true},
		{"an add of an object there", func() error { return changed(s.AddRelationships(ctx, hub, "follows", objects[:1])) }, false},
		{"a replace that reorders", func() error {
			return s.ReplaceRelationships(ctx, hub, "follows", []ryno.Key{objects[2], objects[0], objects[1]})
		}, true},
		{"a replace by the same list", func() error {
			return s.ReplaceRelationships(ctx, hub, "follows", []ryno.Key{objects[2], objects[0], objects[1]})
		}, false},
		{"a remove", func() error { return changed(s.RemoveRelationships(ctx, hub, "follows", objects[:1])) }, true},
		{"a set with ReplaceLists", func() error {
			_, err := s.Set(ctx, &ryno.Entity{Key: hub}, ryno.ReplaceLists(map[string][]ryno.Key{"follows": {objects[1], objects[3], objects[2]}}))
			return err
		}, true},
		{"a delete of an object sweeping its edge", func() error { return s.Delete(ctx, objects[3]) }, true},
		{"a remove emptying the list", func() error { return changed(s.RemoveRelationships(ctx, hub, "follows", objects)) }, true},
	}
	_, before := readList(t, s.Client, hub, "follows")
	neverWritten := before
	seen := map[string]string{}
	for _, ch := range changes {
		require.NoError(t, ch.change(), ch.name)
		list, after := readList(t, s.Client, hub, "follows")
		if !ch.moves {
			require.Equal(t, before, after, "%s leaves the version", ch.name)
			continue
		}
		require.NotEqual(t, before, after, "%s moves the version", ch.name)
		requireStale(t, changed(s.AddRelationships(ctx, hub, "follows", objects[:1], ryno.IfListVersion(before))), "follows")
		if len(list) > 0 {
			require.NotContains(t, seen, after, "%s: a list of other entries has another version", ch.name)
		}
		seen[after] = ch.name
		before = after
		requireListExact(t, s, hub, "follows")
	}
	require.Equal(t, neverWritten, before, "the empty list has the version of a list never written")
}

// TestTheVersionOfAListNeverWritten reads a list never written: it has the version
// of an empty list, which an Add to it may require; a list another writer wrote
// first refuses it, and a list emptied has it again.
func TestTheVersionOfAListNeverWritten(t *testing.T) {
	s := newStoreWith(t, nil)
	hub := pk("hub")
	createSubjects(t, s.Client, hub)
	objects, empty := readList(t, s.Client, hub, "follows")
	require.Empty(t, objects)
	_, likes := readList(t, s.Client, hub, "likes")
	require.NotEqual(t, empty, likes, "the version names its list")

	added, err := s.AddRelationships(ctx, hub, "follows", []ryno.Key{pk("a")}, ryno.IfListVersion(empty))
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{pk("a")}, added)
	requireStale(t, changed(s.AddRelationships(ctx, hub, "follows", []ryno.Key{pk("b")}, ryno.IfListVersion(empty))), "follows")
	requireStale(t, s.ReplaceRelationships(ctx, hub, "follows", nil, ryno.IfListVersion(empty)), "follows")
	requireStale(t, changed(s.RemoveRelationships(ctx, hub, "follows", []ryno.Key{pk("a")}, ryno.IfListVersion(empty))), "follows")
	require.Equal(t, []ryno.Key{pk("a")}, objectsOf(t, s.Client, hub, "follows", 10))

	other := newClientOn(t, s, ryno.Options{})
	require.NoError(t, changed(other.AddRelationships(ctx, hub, "likes", []ryno.Key{pk("b")})))
	requireStale(t, s.ReplaceRelationships(ctx, hub, "likes", []ryno.Key{pk("c")}, ryno.IfListVersion(likes)), "likes")
	requireStale(t, changed(s.RemoveRelationships(ctx, hub, "likes", []ryno.Key{pk("z")}, ryno.IfListVersion(likes))), "likes")

	require.NoError(t, changed(s.RemoveRelationships(ctx, hub, "follows", []ryno.Key{pk("a")})))
	_, emptied := readList(t, s.Client, hub, "follows")
	require.Equal(t, empty, emptied, "an emptied list has the version of a list never written")
	require.NoError(t, s.ReplaceRelationships(ctx, hub, "follows", []ryno.Key{pk("c")}, ryno.IfListVersion(emptied)))
	require.Equal(t, []ryno.Key{pk("c")}, objectsOf(t, s.Client, hub, "follows", 10))

	// An Add or Remove of a list with no head reads its entries, which a list
	// written before heads may hold.
	ghosts := readVersion(t, s.Client, hub, "ghosts")
	s.counter.Reset()
	require.NoError(t, changed(s.RemoveRelationships(ctx, hub, "ghosts", []ryno.Key{pk("z")}, ryno.IfListVersion(ghosts))))
	require.Equal(t, 1, s.counter.Count("Query"), "the entries of the list with no head")
}

// readVersion returns the version of subject's list under predicate.
func readVersion(t *testing.T, db *ryno.Client, subject ryno.Key, predicate string) string {
	t.Helper()
	_, v := readList(t, db, subject, predicate)
	return v
}

// TestAWriteRequiringAVersionFailsWhenTheListChangesBeforeItCommits lets another
// client change the list between a conditional write's read, which finds the list
// at the version required, and its commit: the write fails and writes nothing, even
// an Add or a Remove, which another Remove or Add would not make read again.
func TestAWriteRequiringAVersionFailsWhenTheListChangesBeforeItCommits(t *testing.T) {
	var armed atomic.Bool
	var meanwhile func()
	s := newStoreWith(t, func(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
		return dynamotest.Wrap(api, func(ctx context.Context, op string, send func(context.Context) error) error {
			if op == "TransactWriteItems" && armed.CompareAndSwap(true, false) {
				meanwhile()
			}
			return send(ctx)
		})
	})
	hub := pk("hub")
	createSubjects(t, s.Client, hub)
	other := newClientOn(t, s, ryno.Options{})
	start := []ryno.Key{pk("a"), pk("b"), pk("c")}
	tests := []struct {
		name      string
		write     func(version string) error
		meanwhile func() error
		after     []ryno.Key // the list after the change made meanwhile
	}{
		{"an add, the list changed by a remove", func(v string) error {
			return changed(s.AddRelationships(ctx, hub, "follows", []ryno.Key{pk("d")}, ryno.IfListVersion(v)))
		}, func() error { return changed(other.RemoveRelationships(ctx, hub, "follows", []ryno.Key{pk("a")})) },
			[]ryno.Key{pk("b"), pk("c")}},
		{"a remove, the list changed by an add", func(v string) error {
			return changed(s.RemoveRelationships(ctx, hub, "follows", []ryno.Key{pk("a")}, ryno.IfListVersion(v)))
		}, func() error { return changed(other.AddRelationships(ctx, hub, "follows", []ryno.Key{pk("e")})) },
			[]ryno.Key{pk("a"), pk("b"), pk("c"), pk("e")}},
		{"an add of an object there, the list changed by a remove", func(v string) error {
			return changed(s.AddRelationships(ctx, hub, "follows", []ryno.Key{pk("b")}, ryno.IfListVersion(v)))
		}, func() error { return changed(other.RemoveRelationships(ctx, hub, "follows", []ryno.Key{pk("a")})) },
			[]ryno.Key{pk("b"), pk("c")}},
		{"a replace, the list changed by an add", func(v string) error {
			return s.ReplaceRelationships(ctx, hub, "follows", []ryno.Key{pk("c"), pk("b"), pk("a")}, ryno.IfListVersion(v))
		}, func() error { return changed(other.AddRelationships(ctx, hub, "follows", []ryno.Key{pk("e")})) },
			[]ryno.Key{pk("a"), pk("b"), pk("c"), pk("e")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, s.ReplaceRelationships(ctx, hub, "follows", nil))
			require.NoError(t, s.ReplaceRelationships(ctx, hub, "follows", start))
			version := readVersion(t, s.Client, hub, "follows")
			meanwhile = func() { require.NoError(t, tt.meanwhile()) }
			armed.Store(true)
			requireStale(t, tt.write(version), "follows")
			require.False(t, armed.Load(), "the list changed before the write committed")
			require.Equal(t, tt.after, objectsOf(t, s.Client, hub, "follows", 10), "nothing of the write is there")
			requireListExact(t, s, hub, "follows")
		})
	}
}

// TestALargeReplaceRequiringAListVersionChecksItUnderItsLease replaces a list of 150
// entries, which takes a lease: at a stale version it fails and writes nothing; when
// another client adds an object between the version's check and the lease, the
// check under the lease refuses it; at the version read again it commits.
func TestALargeReplaceRequiringAListVersionChecksItUnderItsLease(t *testing.T) {
	var armed atomic.Bool
	var meanwhile func()
	s := newStoreWith(t, func(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
		return dynamotest.Wrap(api, func(ctx context.Context, op string, send func(context.Context) error) error {
			if op == "TransactWriteItems" && armed.CompareAndSwap(true, false) {
				meanwhile() // before the lease is taken
			}
			return send(ctx)
		})
	})
	board := pk("board")
	createSubjects(t, s.Client, board)
	cards := pks("card", 150)
	require.NoError(t, s.ReplaceRelationships(ctx, board, "cards", cards))
	page, err := s.Relationships(ctx, board, "cards", ryno.PageOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, page.Cursor)
	require.Empty(t, page.ListVersion, "a page of part of the list carries no version")
	_, stale := readList(t, s.Client, board, "cards")

	other := newClientOn(t, s, ryno.Options{})
	require.NoError(t, changed(other.AddRelationships(ctx, board, "cards", []ryno.Key{pk("late")})))
	reversed := slices.Clone(cards)
	slices.Reverse(reversed)
	requireStale(t, s.ReplaceRelationships(ctx, board, "cards", reversed, ryno.IfListVersion(stale)), "cards")
	want := append(slices.Clone(cards), pk("late"))
	require.Equal(t, want, objectsOf(t, s.Client, board, "cards", 1000))

	_, fresh := readList(t, s.Client, board, "cards")
	meanwhile = func() {
		require.NoError(t, changed(other.AddRelationships(ctx, board, "cards", []ryno.Key{pk("later")})))
	}
	armed.Store(true)
	s.counter.Reset()
	requireStale(t, s.ReplaceRelationships(ctx, board, "cards", reversed, ryno.IfListVersion(fresh)), "cards")
	require.False(t, armed.Load(), "the other client added meanwhile")
	require.Positive(t, s.counter.Count("TransactWriteItems"), "the Replace took the lease")
	want = append(want, pk("later"))
	require.Equal(t, want, objectsOf(t, s.Client, board, "cards", 1000), "nothing of the Replace was written")
	requireListExact(t, s, board, "cards")

	_, fresh = readList(t, s.Client, board, "cards")
	require.NoError(t, s.ReplaceRelationships(ctx, board, "cards", reversed, ryno.IfListVersion(fresh)))
	require.Equal(t, reversed, objectsOf(t, s.Client, board, "cards", 1000))
	requireListExact(t, s, board, "cards")
}

// TestAListLeftPartWayIsFinishedBeforeAWriteChecksItsVersion has a large Replace
// cut off under its lease, and reads the list part-way: once the lease expired, a
// write requiring the version before the cut write, or the part-way one, finishes
// the cut write, then fails, writing nothing of its own; at the version of the list
// finished, it commits.
func TestAListLeftPartWayIsFinishedBeforeAWriteChecksItsVersion(t *testing.T) {
	dynamotest.Parallel(t)
	const lease = 30 * time.Second
	s, subject := listStore(t, ryno.Options{})
	clk := newManualClock()
	cut := newFaultyClient(t, s, ryno.Options{ListLease: lease, MaxConcurrency: 1, Retry: ryno.RetryOptions{MaxAttempts: 1}, Now: clk.Now})
	next := newClientOn(t, s, ryno.Options{ListLease: lease, Now: clk.Now})
	require.NoError(t, s.ReplaceRelationships(ctx, subject, "follows", pks("old", 10)))
	_, before := readList(t, s.Client, subject, "follows")

	first := pks("first", 300)
	cut.faults.FailAfter("TransactWriteItems", 3, func() error { return errInjected })
	require.ErrorIs(t, cut.db.ReplaceRelationships(ctx, subject, "follows", first), errInjected)
	head, _, _ := listItems(t, s, subject, "follows")
	require.Contains(t, head, "_intent", "the cut write left its intent")
	_, partWay := readList(t, s.Client, subject, "follows")
	require.NotEqual(t, before, partWay)

	clk.Advance(lease + time.Millisecond)
	second := pks("second", 5)
	for _, v := range []string{before, partWay} {
		requireStale(t, next.ReplaceRelationships(ctx, subject, "follows", second, ryno.IfListVersion(v)), "follows")
		require.Equal(t, first, objectsOf(t, s.Client, subject, "follows", 1000), "the cut write is finished, nothing of the Replace written")
		requireListExact(t, s, subject, "follows")
	}
	_, finished := readList(t, s.Client, subject, "follows")
	require.NoError(t, next.ReplaceRelationships(ctx, subject, "follows", second, ryno.IfListVersion(finished)))
	require.Equal(t, second, objectsOf(t, s.Client, subject, "follows", 1000))
	requireListExact(t, s, subject, "follows")
}

// TestIfListVersionIsRefusedOnASetAndWhenMalformed gives IfListVersion to the writes
// of a set and an ordered set, and malformed versions to a list's: each is refused
// with ErrInvalid before any request. Listings of sets, of every predicate and of
// part of a list carry no version.
func TestIfListVersionIsRefusedOnASetAndWhenMalformed(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Sets: []string{"likes"}, OrderedSets: []string{"queue"}})
	hub := pk("hub")
	createSubjects(t, s.Client, hub)
	require.NoError(t, s.ReplaceRelationships(ctx, hub, "follows", []ryno.Key{pk("a"), pk("b")}))
	version := readVersion(t, s.Client, hub, "follows")
	for _, predicate := range []string{"likes", "queue"} {
		require.NoError(t, s.ReplaceRelationships(ctx, hub, predicate, []ryno.Key{pk("a")}))
		page, err := s.Relationships(ctx, hub, predicate, ryno.PageOptions{})
		require.NoError(t, err)
		require.Len(t, page.Items, 1)
		require.Empty(t, page.ListVersion, "a set keeps no version")
	}
	all, err := s.Relationships(ctx, hub, ryno.AllPredicates, ryno.PageOptions{})
	require.NoError(t, err)
	require.Empty(t, all.ListVersion, "a listing of every predicate carries no version")
	part, err := s.Relationships(ctx, hub, "follows", ryno.PageOptions{Limit: 1})
	require.NoError(t, err)
	require.Empty(t, part.ListVersion)
	rest, err := s.Relationships(ctx, hub, "follows", ryno.PageOptions{Cursor: part.Cursor})
	require.NoError(t, err)
	require.Empty(t, rest.ListVersion, "a page after a cursor holds part of the list")

	calls := []struct {
		name string
		call func(predicate, version string) error
	}{
		{"add", func(p, v string) error {
			return changed(s.AddRelationships(ctx, hub, p, []ryno.Key{pk("c")}, ryno.IfListVersion(v)))
		}},
		{"remove", func(p, v string) error {
			return changed(s.RemoveRelationships(ctx, hub, p, []ryno.Key{pk("a")}, ryno.IfListVersion(v)))
		}},
		{"replace", func(p, v string) error {
			return s.ReplaceRelationships(ctx, hub, p, []ryno.Key{pk("c")}, ryno.IfListVersion(v))
		}},
	}
	refused := []struct{ predicate, version string }{
		{"likes", version}, {"queue", version},
		{"follows", ""}, {"follows", "abc"}, {"follows", version[1:]}, {"follows", version + "0"},
		{"follows", "0123456789ABCDEF0123456789ABCDEF"}, {"follows", `"` + version[2:] + `"`},
	}
	for _, c := range calls {
		for _, r := range refused {
			s.counter.Reset()
			err := c.call(r.predicate, r.version)
			require.ErrorIs(t, err, ryno.ErrInvalid, "%s of %s at %q", c.name, r.predicate, r.version)
			var invalid *ryno.ValidationError
			require.ErrorAs(t, err, &invalid)
			require.Contains(t, err.Error(), "IfListVersion")
			require.Zero(t, s.counter.Total(), "%s of %s at %q sent a request", c.name, r.predicate, r.version)
		}
	}
	require.Equal(t, []ryno.Key{pk("a"), pk("b")}, objectsOf(t, s.Client, hub, "follows", 10), "nothing was written")
}

// TestAListCallRequiringAVersionIsWrittenAlone holds a write of a list while an
// unconditional Add and an Add requiring the version read before it queue for the
// list: the conditional one is not written with the other, and fails, and the
// other commits.
func TestAListCallRequiringAVersionIsWrittenAlone(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	var gate atomic.Bool
	s := newStoreWith(t, func(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
		return dynamotest.Wrap(api, func(ctx context.Context, op string, send func(context.Context) error) error {
			if op == "TransactWriteItems" && gate.CompareAndSwap(true, false) {
				close(entered)
				<-release
			}
			return send(ctx)
		})
	})
	hub := pk("hub")
	createSubjects(t, s.Client, hub)
	require.NoError(t, changed(s.AddRelationships(ctx, hub, "follows", []ryno.Key{pk("x")})))
	stale := readVersion(t, s.Client, hub, "follows")
	require.NoError(t, changed(s.AddRelationships(ctx, hub, "follows", []ryno.Key{pk("y")})))
	gate.Store(true) // holds the first write below

	first := make(chan error, 1)
	go func() { first <- changed(s.AddRelationships(ctx, hub, "follows", []ryno.Key{pk("a")})) }()
	<-entered
	plain, conditional := make(chan error, 1), make(chan error, 1)
	go func() { plain <- changed(s.AddRelationships(ctx, hub, "follows", []ryno.Key{pk("b")})) }()
	time.Sleep(20 * time.Millisecond) // the plain call queues first
	go func() {
		conditional <- changed(s.AddRelationships(ctx, hub, "follows", []ryno.Key{pk("c")}, ryno.IfListVersion(stale)))
	}()
	time.Sleep(50 * time.Millisecond) // both calls queue behind the first
	close(release)
	require.NoError(t, <-first)
	require.NoError(t, <-plain)
	requireStale(t, <-conditional, "follows")
	require.Equal(t, []ryno.Key{pk("x"), pk("y"), pk("a"), pk("b")}, objectsOf(t, s.Client, hub, "follows", 10))
	requireListExact(t, s, hub, "follows")
}
