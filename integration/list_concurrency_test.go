package integration_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// The sequential model of one relationship list: its objects in order. Add appends
// the objects not there, once each; Remove takes every entry of its objects out;
// Replace sets the list. Each reports what it changed.

type listKind int

const (
	listAdd listKind = iota
	listRemove
	listReplace
	listRead
)

type listInput struct {
	kind    listKind
	objects string // the objects' ids, joined: a comparable value
}

type listOutput struct {
	changed string // Add, Remove: the ids reported; Read: the list
	failed  bool   // gave up after its attempts: changed nothing
}

func ids(keys []ryno.Key) string {
	s := ""
	for _, k := range keys {
		s += k.ID + ","
	}
	return s
}

func split(s string) []string {
	var out []string
	start := 0
	for i := range s {
		if s[i] == ',' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

var listModel = porcupine.Model{
	Init: func() any { return "" },
	Step: func(state, input, output any) (bool, any) {
		list, in, out := split(state.(string)), input.(listInput), output.(listOutput)
		if out.failed {
			return in.kind != listRead, state
		}
		objects := split(in.objects)
		switch in.kind {
		case listAdd:
			var added []string
			for _, o := range objects {
				if !slices.Contains(list, o) && !slices.Contains(added, o) {
					added = append(added, o)
				}
			}
			return out.changed == join(added), join(append(list, added...))
		case listRemove:
			var removed []string
			for _, o := range objects {
				if slices.Contains(list, o) && !slices.Contains(removed, o) {
					removed = append(removed, o)
				}
			}
			kept := slices.DeleteFunc(slices.Clone(list), func(o string) bool { return slices.Contains(objects, o) })
			return out.changed == join(removed), join(kept)
		case listReplace:
			return true, in.objects
		}
		return out.changed == state.(string), state
	},
	DescribeOperation: func(input, output any) string { return fmt.Sprintf("%+v -> %+v", input, output) },
}

func join(ids []string) string {
	s := ""
	for _, id := range ids {
		s += id + ","
	}
	return s
}

// listCall runs one call on the list and returns its outcome for the model.
func listCall(t *testing.T, db *ryno.Client, subject ryno.Key, in listInput) listOutput {
	var objects []ryno.Key
	for _, id := range split(in.objects) {
		objects = append(objects, pk(id))
	}
	var changed []ryno.Key
	var err error
	switch in.kind {
	case listAdd:
		changed, err = db.AddRelationships(ctx, subject, "follows", objects)
	case listRemove:
		changed, err = db.RemoveRelationships(ctx, subject, "follows", objects)
	case listReplace:
		err = db.ReplaceRelationships(ctx, subject, "follows", objects)
	case listRead:
		page, perr := db.Relationships(ctx, subject, "follows", ryno.PageOptions{Limit: 100})
		err = perr
		if err == nil {
			for _, r := range page.Items {
				changed = append(changed, r.Object)
			}
		}
	}
	if errors.Is(err, ryno.ErrConflict) {
		return listOutput{failed: true}
	}
	require.NoError(t, err)
	return listOutput{changed: ids(changed)}
}

// listStore returns a store with strongly consistent reads, and a subject that
// exists.
func listStore(t *testing.T, opts ryno.Options) (*store, ryno.Key) {
	t.Helper()
	opts.ConsistentRead = true
	s := newStoreOpts(t, nil, opts)
	subject := pk("hub")
	createSubjects(t, s.Client, subject)
	return s, subject
}

func TestConcurrentAddsAddEachObjectOnce(t *testing.T) {
	dynamotest.Parallel(t)
	const goroutines, adds, pool, rounds = 8, 20, 30, 20
	s, _ := listStore(t, ryno.Options{})
	for round := range rounds {
		subject := pk(fmt.Sprint("hub", round))
		createSubjects(t, s.Client, subject)
		reported := make([][]ryno.Key, goroutines)
		race(goroutines, func(g int) {
			r := rand.New(rand.NewPCG(uint64(round), uint64(g)))
			objects := make([]ryno.Key, adds)
			for i := range objects {
				objects[i] = pk(fmt.Sprint("o", r.IntN(pool)))
			}
			var err error
			reported[g], err = s.AddRelationships(ctx, subject, "follows", objects)
			require.NoError(t, err)
		})
		list := objectsOf(t, s.Client, subject, "follows", 7)
		counts := map[ryno.Key]int{}
		for _, o := range list {
			counts[o]++
		}
		for o, n := range counts {
			require.Equal(t, 1, n, "round %d: %s is in the list once", round, o.ID)
		}
		added := slices.Concat(reported...)
		require.ElementsMatch(t, list, added, "round %d: each object reported added by exactly one Add", round)
		count, err := s.CountRelationships(ctx, subject, "follows")
		require.NoError(t, err)
		require.Len(t, list, count, "the head counts the list")
		requireListExact(t, s, subject, "follows")
	}
}

func TestConcurrentListWritesAreLinearizable(t *testing.T) {
	for _, each := range []bool{false, true} {
		name := map[bool]string{false: "one client", true: "a client each"}[each]
		t.Run(name, func(t *testing.T) { concurrentListWritesAreLinearizable(t, each) })
	}
}

// concurrentListWritesAreLinearizable runs the rounds of
// TestConcurrentListWritesAreLinearizable through one client, or a client for
// each goroutine (whose calls combine on the list's head, as processes' do).
func concurrentListWritesAreLinearizable(t *testing.T, clientEach bool) {
	dynamotest.Parallel(t)
	const clients, calls, rounds, pool = 6, 8, 20, 8
	s, _ := listStore(t, ryno.Options{})
	dbs := make([]*ryno.Client, clients)
	for c := range dbs {
		dbs[c] = s.Client
		if clientEach {
			dbs[c] = newClientOn(t, s, ryno.Options{ConsistentRead: true})
		}
	}
	start := time.Now()
	now := func() int64 { return time.Since(start).Nanoseconds() }
	for round := range rounds {
		subject := pk(fmt.Sprint("hub", round))
		createSubjects(t, s.Client, subject)
		var mu sync.Mutex
		var history []porcupine.Operation
		race(clients, func(c int) {
			r := rand.New(rand.NewPCG(uint64(round), uint64(c)))
			for range calls {
				ids := make([]string, 1+r.IntN(3))
				for i := range ids {
					ids[i] = fmt.Sprint("o", r.IntN(pool))
				}
				in := listInput{kind: listKind(r.IntN(4)), objects: join(ids)}
				begin := now()
				out := listCall(t, dbs[c], subject, in)
				end := now()
				mu.Lock()
				history = append(history, porcupine.Operation{ClientId: c, Input: in, Call: begin, Output: out, Return: end})
				mu.Unlock()
			}
		})
		final := listInput{kind: listRead}
		begin := now()
		history = append(history, porcupine.Operation{ClientId: clients, Input: final, Call: begin,
			Output: listCall(t, s.Client, subject, final), Return: now()})
		result := porcupine.CheckOperationsTimeout(listModel, history, 30*time.Second)
		require.Equal(t, porcupine.Ok, result, "round %d: the calls on the list are not linearizable", round)
		requireListExact(t, s, subject, "follows")
	}
}

func TestConcurrentReplacesLeaveOneOfTheirLists(t *testing.T) {
	dynamotest.Parallel(t)
	const writers, rounds = 6, 20
	s, subject := listStore(t, ryno.Options{})
	for round := range rounds {
		lists := make([][]ryno.Key, writers)
		race(writers, func(g int) {
			r := rand.New(rand.NewPCG(uint64(round), uint64(g)))
			lists[g] = make([]ryno.Key, 5+r.IntN(11))
			for i := range lists[g] {
				lists[g][i] = pk(fmt.Sprint("o", r.IntN(20)))
			}
			require.NoError(t, s.ReplaceRelationships(ctx, subject, "follows", lists[g]))
		})
		got := objectsOf(t, s.Client, subject, "follows", 10)
		require.Contains(t, lists, got, "round %d: the list is one of those submitted", round)
		requireListExact(t, s, subject, "follows")
	}
}

func TestConcurrentLargeReplacesLeaveOneOfTheirLists(t *testing.T) {
	s, subject := listStore(t, ryno.Options{})
	for round := range 20 {
		a := pks(fmt.Sprint("a", round, "-"), 300)
		b := pks(fmt.Sprint("b", round, "-"), 300)
		race(2, func(g int) {
			require.NoError(t, s.ReplaceRelationships(ctx, subject, "follows", [][]ryno.Key{a, b}[g]))
		})
		got := objectsOf(t, s.Client, subject, "follows", 100)
		require.True(t, slices.Equal(got, a) || slices.Equal(got, b), "round %d: the list is one of the two", round)
		requireListExact(t, s, subject, "follows")
	}
}

func TestALeaseLeftByAWriterCutOffIsTakenOver(t *testing.T) {
	dynamotest.Parallel(t)
	const lease = 30 * time.Second
	s, subject := listStore(t, ryno.Options{})
	clk := newManualClock()
	// One chunk at a time, so that the cut writer is cut half-way.
	cut := newFaultyClient(t, s, ryno.Options{ListLease: lease, MaxConcurrency: 1, Retry: ryno.RetryOptions{MaxAttempts: 1}, Now: clk.Now})
	next := newClientOn(t, s, ryno.Options{ListLease: lease, Now: clk.Now})
	impatient := newClientOn(t, s, ryno.Options{Now: clk.Now, Conflicts: ryno.RetryOptions{MaxAttempts: 2, BaseDelay: time.Millisecond}})
	first := pks("first", 300)
	require.NoError(t, s.ReplaceRelationships(ctx, subject, "follows", pks("old", 10)))

	// The first writer takes the lease, records its intent, writes one chunk and is
	// cut off.
	cut.faults.FailAfter("TransactWriteItems", 3, func() error { return errInjected })
	err := cut.db.ReplaceRelationships(ctx, subject, "follows", first)
	require.ErrorIs(t, err, errInjected)
	head, _, entries := listItems(t, s, subject, "follows")
	require.Contains(t, head, "_lease", "the lease is left behind")
	require.Contains(t, head, "_intent", "the intent is recorded whole")
	require.NotEmpty(t, entries, "the cut write wrote some entries")
	require.Less(t, len(entries), 300, "the cut write did not write them all")

	// While the lease lives, other writers wait, then give up with an error that
	// names the list and when the lease expires.
	_, err = impatient.AddRelationships(ctx, subject, "follows", []ryno.Key{pk("early")})
	require.ErrorIs(t, err, ryno.ErrConflict, "the list is held")
	var held *ryno.LeaseError
	require.ErrorAs(t, err, &held)
	require.Equal(t, subject, held.Key)
	require.Equal(t, "follows", held.Predicate)
	require.True(t, held.Until.Equal(clk.Now().Add(lease)), "the lease expires at %v, not %v", clk.Now().Add(lease), held.Until)

	// Once it expired, the next writer takes the list over, finishes the cut write
	// and applies its own.
	clk.Advance(lease + time.Millisecond)
	second := pks("second", 150)
	require.NoError(t, next.ReplaceRelationships(ctx, subject, "follows", second))
	require.Equal(t, second, objectsOf(t, s.Client, subject, "follows", 100))
	requireListExact(t, s, subject, "follows")

	// Small writes work again.
	added, err := s.AddRelationships(ctx, subject, "follows", []ryno.Key{pk("late")})
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{pk("late")}, added)
	requireListExact(t, s, subject, "follows")
}

// faultyClient is a client on the tables of a store whose requests go through
// faults, as another process that fails would.
type faultyClient struct {
	db     *ryno.Client
	faults *dynamotest.Faults
}

func newFaultyClient(t *testing.T, s *store, opts ryno.Options) faultyClient {
	t.Helper()
	faults := dynamotest.NewFaults(s.raw)
	return faultyClient{db: mustNew(t, faults, s.Names().Prefix, opts.Indexes, opts), faults: faults}
}

// requireNothingOf checks that nothing of the entity k is left: no item, no item
// in its partition of the relationship entries table (lists, heads, markers), no
// index entry; and, when incoming, no entry pointing at it.
func requireNothingOf(t *testing.T, s *store, k ryno.Key, incoming bool) {
	t.Helper()
	items := entityItems(t, s.raw, s.Names())
	require.NotContains(t, items, k.String(), "the entity item")
	for _, p := range []string{"follows", "likes"} {
		head, markers, entries := listItems(t, s, k, p)
		require.Nil(t, head, "the head of its list %s", p)
		require.Empty(t, markers, "the markers of its list %s", p)
		require.Empty(t, entries, "the entries of its list %s", p)
	}
	for key := range indexItems(t, s.raw, s.Names()) {
		require.NotContains(t, key, k.String()+" ", "an index entry of it")
	}
	if incoming {
		require.Empty(t, subjectsPointingAt(t, s.Client, k), "an edge to it")
	}
}

func TestADeleteRacingWritesLeavesNothingOfItsOwn(t *testing.T) {
	dynamotest.Parallel(t)
	for _, checks := range []bool{false, true} {
		t.Run(fmt.Sprint("object checks ", checks), func(t *testing.T) {
			const rounds = 20
			s := newStoreOpts(t, nil, ryno.Options{Indexes: mixedIndexes, CheckObjects: checks})
			fans := pks("fan", 3)
			createSubjects(t, s.Client, slices.Concat(fans, pks("o", 3), pks("more", 4), pks("l", 5))...)
			for round := range rounds {
				k := person(fmt.Sprint("target", round), nil).Key
				_, err := s.Set(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"age": 1, "email": "t@example.com"}}, ryno.ReplaceLists(map[string][]ryno.Key{"follows": pks("o", 3)}))
				require.NoError(t, err)
				race(7, func(g int) {
					var err error
					switch g {
					case 0:
						err = s.Delete(ctx, k)
					case 1:
						_, err = s.AddRelationships(ctx, k, "follows", pks("more", 4))
					case 2:
						err = s.ReplaceRelationships(ctx, k, "likes", pks("l", 5))
					case 3:
						_, err = s.Patch(ctx, k, ryno.Patch{Add: map[string]any{"age": 1}})
					case 4:
						_, err = s.Update(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"age": 7}})
					case 5, 6: // other subjects point at it
						_, err = s.AddRelationships(ctx, fans[g-4], "follows", []ryno.Key{k})
					}
					if err != nil && !errors.Is(err, ryno.ErrNotFound) && !errors.Is(err, ryno.ErrConflict) {
						t.Errorf("writer %d: %v", g, err)
					}
				})
				_, err = s.Get(ctx, k, ryno.Consistent())
				require.ErrorIs(t, err, ryno.ErrNotFound, "round %d: nothing recreates it", round)
				requireNothingOf(t, s, k, checks)
				requireIndexExact(t, s)
				for _, f := range fans {
					requireListExact(t, s, f, "follows")
				}
			}
		})
	}
}

func TestASetAfterADeleteCreatesANewEntityWithItsLists(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: mixedIndexes})
	for round := range 20 {
		k := person(fmt.Sprint("target", round), nil).Key
		_, err := s.Set(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"age": 1}}, ryno.ReplaceLists(map[string][]ryno.Key{"follows": pks("o", 3)}))
		require.NoError(t, err)
		race(2, func(g int) {
			var err error
			if g == 0 {
				err = s.Delete(ctx, k)
			} else {
				_, err = s.Set(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"age": 2, "email": "new@example.com"}}, ryno.ReplaceLists(map[string][]ryno.Key{"likes": pks("n", 2)}))
			}
			require.NoError(t, err)
		})
		if _, err := s.Get(ctx, k, ryno.Consistent()); errors.Is(err, ryno.ErrNotFound) {
			requireNothingOf(t, s, k, false)
		} else {
			require.NoError(t, err)
			requireListExact(t, s, k, "likes")
			requireListExact(t, s, k, "follows")
		}
		requireIndexExact(t, s)
	}
}

func TestObjectChecksRefuseAnEdgeToAMissingEntity(t *testing.T) {
	s, subject := listStore(t, ryno.Options{})
	createSubjects(t, s.Client, pk("real"))
	_, err := s.AddRelationships(ctx, subject, "follows", []ryno.Key{pk("real"), pk("ghost")}, ryno.CheckObjects(true))
	require.ErrorIs(t, err, ryno.ErrNotFound)
	require.ErrorContains(t, err, "acme:person:ghost", "the error names the missing object")
	require.Empty(t, objectsOf(t, s.Client, subject, "follows", 10), "nothing was written")

	err = s.ReplaceRelationships(ctx, subject, "follows", []ryno.Key{pk("ghost")}, ryno.CheckObjects(true))
	require.ErrorIs(t, err, ryno.ErrNotFound)
	_, err = s.AddRelationships(ctx, subject, "follows", []ryno.Key{pk("ghost")})
	require.NoError(t, err, "off by default: a list may name entities created later")

	checked := newClientOn(t, s, ryno.Options{CheckObjects: true})
	_, err = checked.Set(ctx, &ryno.Entity{Key: pk("other")}, ryno.ReplaceLists(map[string][]ryno.Key{"follows": {pk("ghost2")}}))
	require.ErrorIs(t, err, ryno.ErrNotFound, "Set checks its lists' objects with the client option")
	_, err = checked.Get(ctx, pk("other"))
	require.ErrorIs(t, err, ryno.ErrNotFound, "nothing was written, the entity neither")

	_, err = s.AddRelationships(ctx, pk("nobody"), "follows", []ryno.Key{pk("real")})
	require.ErrorIs(t, err, ryno.ErrNotFound, "the subject must exist")
}

// TestObjectChecksOfAWriteTooLargeForOneTransaction replaces a list by 120 objects
// with CheckObjects: a write under a lease, which reads its objects in batches. All
// existing, the list is written; one missing among them, nothing is.
func TestObjectChecksOfAWriteTooLargeForOneTransaction(t *testing.T) {
	s, subject := listStore(t, ryno.Options{})
	objects := make([]ryno.Key, 120)
	for i := range objects {
		objects[i] = pk(fmt.Sprint("o", i))
	}
	createSubjects(t, s.Client, objects...)
	require.NoError(t, s.ReplaceRelationships(ctx, subject, "follows", objects, ryno.CheckObjects(true)))
	require.Equal(t, objects, objectsOf(t, s.Client, subject, "follows", 200))

	other := pk("other")
	createSubjects(t, s.Client, other)
	err := s.ReplaceRelationships(ctx, other, "follows", append(objects[:119:119], pk("ghost")), ryno.CheckObjects(true))
	require.ErrorIs(t, err, ryno.ErrNotFound)
	require.ErrorContains(t, err, "acme:person:ghost")
	require.Empty(t, objectsOf(t, s.Client, other, "follows", 200))
	requireListExact(t, s, other, "follows")
}

func TestAWriterMeetingADeleteCutOffCompletesIt(t *testing.T) {
	dynamotest.Parallel(t)
	writes := map[string]func(db *ryno.Client, k ryno.Key) error{
		"AddRelationships": func(db *ryno.Client, k ryno.Key) error {
			_, err := db.AddRelationships(ctx, k, "follows", []ryno.Key{pk("x")})
			require.ErrorIs(t, err, ryno.ErrNotFound)
			return nil
		},
		"Update": func(db *ryno.Client, k ryno.Key) error {
			_, err := db.Update(ctx, &ryno.Entity{Key: k})
			require.ErrorIs(t, err, ryno.ErrNotFound)
			return nil
		},
		"Set": func(db *ryno.Client, k ryno.Key) error {
			_, err := db.Set(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"age": 2}})
			return err
		},
	}
	for name, write := range writes {
		t.Run(name, func(t *testing.T) {
			s, _ := listStore(t, ryno.Options{Indexes: mixedIndexes})
			cut := newFaultyClient(t, s, ryno.Options{Indexes: mixedIndexes, MaxConcurrency: 1, Retry: ryno.RetryOptions{MaxAttempts: 1}})
			k := pk("doomed")
			_, err := s.Set(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"age": 1, "email": "d@example.com"}}, ryno.ReplaceLists(map[string][]ryno.Key{"follows": pks("o", 120)}))
			require.NoError(t, err)

			cut.faults.FailAfter("TransactWriteItems", 1, func() error { return errInjected })
			require.ErrorIs(t, cut.db.Delete(ctx, k), errInjected)
			head, _, entries := listItems(t, s, k, "follows")
			require.True(t, head != nil || len(entries) > 0, "the delete was cut off half-way")

			require.NoError(t, write(s.Client, k))
			if name == "Set" {
				requireListExact(t, s, k, "follows")
				require.Empty(t, objectsOf(t, s.Client, k, "follows", 10), "the new entity has none of the old lists")
			} else {
				requireNothingOf(t, s, k, false)
			}
			requireIndexExact(t, s)
		})
	}
}

// TestWritersOfOneListInOneClientNeverGiveUp has 8 goroutines of one client mix
// single Adds and Removes on one list, with the default Conflicts, over many
// rounds: no call gives up, an object all of them add in a round is reported added
// by exactly one, the list ends as the calls' own objects say, and the calls shared
// transactions.
func TestWritersOfOneListInOneClientNeverGiveUp(t *testing.T) {
	const writers, rounds = 8, 12
	s, subject := listStore(t, ryno.Options{})
	var calls int
	var want []ryno.Key
	s.counter.Reset()
	for round := range rounds {
		start := make(chan struct{})
		var wg sync.WaitGroup
		errs := make([]error, writers)
		sharedAdds := make([]int, writers)
		shared := pk(fmt.Sprintf("r%02d-shared", round))
		for w := range writers {
			own := pk(fmt.Sprintf("r%02d-w%d", round, w))
			gone := pk(fmt.Sprintf("r%02d-w%d-gone", round, w))
			wg.Go(func() {
				<-start
				for _, step := range []struct {
					add     bool
					objects []ryno.Key
				}{{true, []ryno.Key{gone}}, {true, []ryno.Key{own, shared}}, {false, []ryno.Key{gone}}} {
					var changed []ryno.Key
					var err error
					if step.add {
						changed, err = s.AddRelationships(ctx, subject, "follows", step.objects)
					} else {
						changed, err = s.RemoveRelationships(ctx, subject, "follows", step.objects)
					}
					switch {
					case err != nil:
						errs[w] = errors.Join(errs[w], err)
					case step.add && slices.Contains(changed, shared):
						sharedAdds[w]++
					case !slices.Equal(changed, step.objects[:1]):
						errs[w] = errors.Join(errs[w], fmt.Errorf("%v changed %v", step.objects, changed))
					}
				}
			})
			want = append(want, own)
		}
		want = append(want, shared)
		close(start)
		wg.Wait()
		calls += 3 * writers
		require.NoError(t, errors.Join(errs...), "round %d", round)
		total := 0
		for _, n := range sharedAdds {
			total += n
		}
		require.Equal(t, 1, total, "round %d: one call added the shared object", round)
	}
	got := objectsOf(t, s.Client, subject, "follows", 500)
	require.ElementsMatch(t, want, got)
	requireListExact(t, s, subject, "follows")
	require.Less(t, s.counter.Count("TransactWriteItems"), calls, "calls waiting for the list were written together")
}

// TestWritersOfOneListInManyClientsNeverGiveUp has 8 clients, as 8 processes would
// be, each in a goroutine, mix single Adds and Removes on one list with the default
// Conflicts, starting each round together: the clients race for the list's head
// and retry, but no call gives up, each call reports exactly the objects it changed,
// and the list ends as the calls say.
func TestWritersOfOneListInManyClientsNeverGiveUp(t *testing.T) {
	const writers, rounds = 8, 10
	s, subject := listStore(t, ryno.Options{})
	var retries atomic.Int64
	clients := make([]*ryno.Client, writers)
	for w := range clients {
		clients[w] = newClientOn(t, s, ryno.Options{ConsistentRead: true, OnCall: func(_ context.Context, r ryno.CallReport) {
			retries.Add(int64(r.Retries))
		}})
	}
	var want []ryno.Key
	for round := range rounds {
		start := make(chan struct{})
		var wg sync.WaitGroup
		errs := make([]error, writers)
		for w, db := range clients {
			kept := pk(fmt.Sprintf("r%02d-w%d", round, w))
			gone := pk(fmt.Sprintf("r%02d-w%d-gone", round, w))
			want = append(want, kept)
			wg.Go(func() {
				<-start
				for _, step := range []struct {
					add    bool
					object ryno.Key
				}{{true, gone}, {true, kept}, {false, gone}, {false, kept}, {true, kept}} {
					var changed []ryno.Key
					var err error
					if step.add {
						changed, err = db.AddRelationships(ctx, subject, "follows", []ryno.Key{step.object})
					} else {
						changed, err = db.RemoveRelationships(ctx, subject, "follows", []ryno.Key{step.object})
					}
					switch {
					case err != nil:
						errs[w] = errors.Join(errs[w], err)
					case !slices.Equal(changed, []ryno.Key{step.object}):
						errs[w] = errors.Join(errs[w], fmt.Errorf("add %t of %s changed %v", step.add, step.object, changed))
					}
				}
			})
		}
		close(start)
		wg.Wait()
		require.NoError(t, errors.Join(errs...), "round %d", round)
	}
	require.ElementsMatch(t, want, objectsOf(t, s.Client, subject, "follows", 500))
	requireListExact(t, s, subject, "follows")
	require.Positive(t, retries.Load(), "the clients raced for the list and retried")
}

// TestACallQueuedForABusyListMayGiveUpWhileItWaits holds the first writer of a list
// in its transaction while two more calls queue for the list: the one whose context
// ends returns at once and writes nothing, the other is written after the first.
func TestACallQueuedForABusyListMayGiveUpWhileItWaits(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	s := newStoreWith(t, func(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
		return dynamotest.Wrap(api, func(ctx context.Context, op string, send func(context.Context) error) error {
			if op == "TransactWriteItems" {
				once.Do(func() { close(entered); <-release })
			}
			return send(ctx)
		})
	})
	subject := pk("hub")
	createSubjects(t, s.Client, subject)
	once = sync.Once{} // the gate is for the list writes

	first := make(chan error, 1)
	go func() {
		_, err := s.AddRelationships(ctx, subject, "follows", []ryno.Key{pk("a")})
		first <- err
	}()
	<-entered
	waiting, cancel := context.WithCancel(ctx)
	gaveUp := make(chan error, 1)
	go func() {
		_, err := s.AddRelationships(waiting, subject, "follows", []ryno.Key{pk("b")})
		gaveUp <- err
	}()
	later := make(chan []ryno.Key, 1)
	go func() {
		added, err := s.AddRelationships(ctx, subject, "follows", []ryno.Key{pk("c")})
		assert.NoError(t, err)
		later <- added
	}()
	time.Sleep(50 * time.Millisecond) // both calls queue behind the first
	cancel()
	require.ErrorIs(t, <-gaveUp, context.Canceled, "the call whose context ended returns while the list is busy")
	close(release)
	require.NoError(t, <-first)
	require.Equal(t, []ryno.Key{pk("c")}, <-later)
	require.Equal(t, []ryno.Key{pk("a"), pk("c")}, objectsOf(t, s.Client, subject, "follows", 10))
	requireListExact(t, s, subject, "follows")
}
