package integration_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/ryno"
)

// orderedPredicate is the predicate the tests of this file declare an ordered set.
const orderedPredicate = "cards"

func orderedStore(t *testing.T, opts ryno.Options) *store {
	t.Helper()
	opts.OrderedSets = []string{orderedPredicate}
	return newStoreOpts(t, nil, opts)
}

// orderedObjects lists the ordered set of subject both ways, paging with limit,
// and returns it in its order once both agree.
func orderedObjects(t *testing.T, db *ryno.Client, subject ryno.Key, limit int) []ryno.Key {
	t.Helper()
	forward := objectsOf(t, db, subject, orderedPredicate, limit)
	var backward []ryno.Key
	for r, err := range db.AllRelationships(ctx, subject, orderedPredicate, ryno.PageOptions{Limit: limit, Descending: true, Consistent: true}) {
		require.NoError(t, err)
		backward = append(backward, r.Object)
	}
	slices.Reverse(backward)
	require.Equal(t, forward, backward, "Descending lists the same set backwards")
	return forward
}

func TestAnOrderedSetListsItsObjectsInTheOrderAdded(t *testing.T) {
	s := orderedStore(t, ryno.Options{ConsistentRead: true})
	board := pk("board")
	createSubjects(t, s.Client, board, pk("a"), pk("b"), pk("c"))

	added, err := s.AddRelationships(ctx, board, orderedPredicate, []ryno.Key{pk("c"), pk("a"), pk("c")})
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{pk("c"), pk("a")}, added, "each object once, in the order given")
	added, err = s.AddRelationships(ctx, board, orderedPredicate, []ryno.Key{pk("a"), pk("b")})
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{pk("b")}, added, "a was there")
	for _, limit := range []int{1, 2, 10} {
		require.Equal(t, []ryno.Key{pk("c"), pk("a"), pk("b")}, orderedObjects(t, s.Client, board, limit), "limit %d: the order added, a in its first place", limit)
	}
	added, err = s.AddRelationships(ctx, board, orderedPredicate, []ryno.Key{pk("c")})
	require.NoError(t, err)
	require.Empty(t, added)
	require.Equal(t, []ryno.Key{pk("c"), pk("a"), pk("b")}, orderedObjects(t, s.Client, board, 10), "c added again keeps its place, first")

	e, err := s.Get(ctx, board, ryno.WithRelationships(orderedPredicate))
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{pk("c"), pk("a"), pk("b")}, e.Relationships[orderedPredicate], "Get reads the set in its order")
	related, err := s.RelatedEntities(ctx, board, orderedPredicate, ryno.PageOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"c", "a", "b"}, []string{related.Items[0].ID, related.Items[1].ID, related.Items[2].ID})
	n, err := s.CountRelationships(ctx, board, orderedPredicate)
	require.NoError(t, err)
	require.Equal(t, 3, n)
	has, err := s.HasRelationship(ctx, board, orderedPredicate, pk("a"))
	require.NoError(t, err)
	require.True(t, has)
	require.Equal(t, []ryno.Key{board}, subjectsPointingAt(t, s.Client, pk("a")))

	removed, err := s.RemoveRelationships(ctx, board, orderedPredicate, []ryno.Key{pk("a"), pk("z")})
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{pk("a")}, removed)
	_, err = s.AddRelationships(ctx, board, orderedPredicate, []ryno.Key{pk("a")})
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{pk("c"), pk("b"), pk("a")}, orderedObjects(t, s.Client, board, 2), "added again, a comes last")

	head, markers, entries := listItems(t, s, board, orderedPredicate)
	require.Nil(t, head, "an ordered set keeps no head")
	require.Empty(t, markers, "nor markers")
	for _, item := range entries {
		require.True(t, schema.IsOrderedSetKey(strS(t, item, schema.AttrPredicateObjectKey)), "its position is in the by-object index's key")
	}

	progress, err := s.Check(ctx, ryno.CheckOptions{})
	require.NoError(t, err)
	require.Zero(t, progress.Orphans)
	require.Zero(t, progress.Traces)
}

func strS(t *testing.T, item map[string]types.AttributeValue, name string) string {
	t.Helper()
	v, ok := item[name].(*types.AttributeValueMemberS)
	require.True(t, ok, "%s is a string", name)
	return v.Value
}

// TestReplaceSetsTheOrderOfAnOrderedSet replaces an ordered set with random
// orders of random objects: it lists exactly as replaced, each time, and a
// replace that keeps the order of what was there writes only what changes.
func TestReplaceSetsTheOrderOfAnOrderedSet(t *testing.T) {
	dynamotest.Parallel(t)
	s := orderedStore(t, ryno.Options{ConsistentRead: true})
	board := pk("board")
	createSubjects(t, s.Client, board)
	r := rand.New(rand.NewPCG(7, 11))
	pool := pks("card", 30)
	for round := range 25 {
		want := slices.Clone(pool)
		r.Shuffle(len(want), func(i, j int) { want[i], want[j] = want[j], want[i] })
		want = want[:r.IntN(len(want))]
		require.NoError(t, s.ReplaceRelationships(ctx, board, orderedPredicate, want))
		got := orderedObjects(t, s.Client, board, 7)
		if len(want) == 0 {
			require.Empty(t, got, "round %d", round)
			continue
		}
		require.Equal(t, want, got, "round %d", round)
	}

	require.NoError(t, s.ReplaceRelationships(ctx, board, orderedPredicate, pks("o", 20)))
	before := positions(t, s, board)
	s.counter.Reset()
	want := slices.Concat(pks("o", 20)[:5], pks("o", 20)[10:], pks("new", 5))
	require.NoError(t, s.ReplaceRelationships(ctx, board, orderedPredicate, want))
	require.Equal(t, map[string]int{"Query": 1, "BatchWriteItem": 1, "GetItem": 1}, requests(s.counter),
		"the set read, 5 deletes and 5 puts in one batch, the subject read")
	after := positions(t, s, board)
	for _, k := range want[:15] {
		require.Equal(t, before[k], after[k], "%s kept its entry", k)
	}
	require.Equal(t, want, orderedObjects(t, s.Client, board, 100))
}

// positions reads the position of each object of board's ordered set.
func positions(t *testing.T, s *store, board ryno.Key) map[ryno.Key]string {
	t.Helper()
	_, _, entries := listItems(t, s, board, orderedPredicate)
	out := map[ryno.Key]string{}
	for _, item := range entries {
		k := ryno.Key{Scope: strS(t, item, schema.AttrObjectScope), Type: strS(t, item, schema.AttrObjectType), ID: strS(t, item, schema.AttrObjectID)}
		out[k] = strS(t, item, schema.AttrPredicateObjectKey)
	}
	return out
}

func TestAnOrderedSetWriteOfOneObjectWritesOneItem(t *testing.T) {
	s := orderedStore(t, ryno.Options{})
	board := pk("board")
	createSubjects(t, s.Client, board)
	s.counter.Reset()

	_, err := s.AddRelationships(ctx, board, orderedPredicate, []ryno.Key{pk("a")})
	require.NoError(t, err)
	require.Equal(t, map[string]int{"PutItem": 1, "GetItem": 1}, requests(s.counter), "the entry, then the subject read consistently")
	added, err := s.AddRelationships(ctx, board, orderedPredicate, []ryno.Key{pk("a")})
	require.NoError(t, err)
	require.Empty(t, added, "there already: the put's condition kept its place")
	require.Equal(t, map[string]int{"PutItem": 1, "GetItem": 1}, requests(s.counter))
	_, err = s.RemoveRelationships(ctx, board, orderedPredicate, []ryno.Key{pk("a")})
	require.NoError(t, err)
	require.Equal(t, map[string]int{"DeleteItem": 1, "GetItem": 1}, requests(s.counter), "the entry deleted beside the subject read")
	_, err = s.Relationships(ctx, board, orderedPredicate, ryno.PageOptions{Consistent: true})
	require.NoError(t, err, "the by-object index is local: it reads consistently")
	require.Equal(t, map[string]int{"Query": 1}, requests(s.counter), "a page is one Query")
}

// TestAddsToOneOrderedSetNeverConflict has 8 writers add to one ordered set at
// once, each its own objects and a shared one, round after round, with no retry
// allowed: every call succeeds, the set holds each object once, and every object
// of a round lists before those of the next.
func TestAddsToOneOrderedSetNeverConflict(t *testing.T) {
	dynamotest.Parallel(t)
	const writers, rounds = 8, 15
	s := orderedStore(t, ryno.Options{Conflicts: ryno.RetryOptions{MaxAttempts: 1}, ConsistentRead: true})
	board := pk("board")
	createSubjects(t, s.Client, board)
	var want [][]ryno.Key
	for round := range rounds {
		start := make(chan struct{})
		var wg sync.WaitGroup
		errs := make([]error, writers)
		var these []ryno.Key
		for w := range writers {
			objects := []ryno.Key{pk(fmt.Sprintf("r%02d-w%d", round, w)), pk(fmt.Sprintf("r%02d-shared", round))}
			wg.Go(func() {
				<-start
				_, errs[w] = s.AddRelationships(ctx, board, orderedPredicate, objects)
			})
			these = append(these, objects[0])
		}
		want = append(want, append(these, pk(fmt.Sprintf("r%02d-shared", round))))
		close(start)
		wg.Wait()
		require.NoError(t, errors.Join(errs...), "round %d", round)
	}
	got := orderedObjects(t, s.Client, board, 50)
	require.Len(t, got, rounds*(writers+1))
	for round, these := range want {
		part := got[round*(writers+1) : (round+1)*(writers+1)]
		require.ElementsMatch(t, these, part, "round %d lists after round %d and before round %d", round, round-1, round+1)
	}
}

// TestAddsRacingADeleteLeaveNothingOfAnOrderedSet races Adds against the Delete of
// the ordered set's subject: each Add succeeded before the Delete (and was swept)
// or fails with ErrNotFound, and nothing of the subject is left.
func TestAddsRacingADeleteLeaveNothingOfAnOrderedSet(t *testing.T) {
	dynamotest.Parallel(t)
	addsRacingADelete(t, orderedStore(t, ryno.Options{}), orderedPredicate, 10)
}

func TestDeleteSweepsTheOrderedSetsPointingAtTheEntity(t *testing.T) {
	dynamotest.Parallel(t)
	s := orderedStore(t, ryno.Options{})
	gone := pk("gone")
	boards := pks("board", 60)
	createSubjects(t, s.Client, slices.Concat([]ryno.Key{gone, pk("x")}, boards)...)
	for _, b := range boards {
		_, err := s.AddRelationships(ctx, b, orderedPredicate, []ryno.Key{gone, pk("x")})
		require.NoError(t, err)
	}
	_, err := s.AddRelationships(ctx, gone, orderedPredicate, boards)
	require.NoError(t, err)

	require.NoError(t, s.Delete(ctx, gone))
	requireNothingOf(t, s, gone, true)
	for _, b := range boards[:5] {
		require.Equal(t, []ryno.Key{pk("x")}, objectsOf(t, s.Client, b, orderedPredicate, 10))
	}
	require.Equal(t, 60, entryCount(t, s.raw, s.Names().Relationships), "each board keeps x")
}

func TestAnOrderedSetInTransactionsAndReplaceLists(t *testing.T) {
	s := orderedStore(t, ryno.Options{ConsistentRead: true})
	board := pk("board")
	createSubjects(t, s.Client, board, pk("a"))

	results, err := s.Transact(ctx, ryno.TxCreate(&ryno.Entity{Key: pk("b")}), ryno.TxAddRelationships(board, orderedPredicate, []ryno.Key{pk("b"), pk("a")}))
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{pk("b"), pk("a")}, results[1].Changed)
	results, err = s.Transact(ctx, ryno.TxAddRelationships(board, orderedPredicate, []ryno.Key{pk("a"), pk("c")}))
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{pk("c")}, results[0].Changed, "a was there")
	require.Equal(t, []ryno.Key{pk("b"), pk("a"), pk("c")}, orderedObjects(t, s.Client, board, 2))

	_, err = s.Set(ctx, &ryno.Entity{Key: pk("board2")}, ryno.ReplaceLists(map[string][]ryno.Key{orderedPredicate: {pk("z"), pk("y"), pk("x")}}))
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{pk("z"), pk("y"), pk("x")}, orderedObjects(t, s.Client, pk("board2"), 2))
}

func TestOrderedSetsRefuseBadInputBeforeAnyRequest(t *testing.T) {
	s := orderedStore(t, ryno.Options{})
	_, err := ryno.New(s.raw, ryno.Options{TablePrefix: "x_", Sets: []string{"p"}, OrderedSets: []string{"p"}})
	require.ErrorIs(t, err, ryno.ErrInvalid)
	require.ErrorContains(t, err, "a set or an ordered set")

	long := ryno.Key{Scope: "acme", Type: "person", ID: strings.Repeat("x", 1000)}
	s.counter.Reset()
	_, err = s.AddRelationships(ctx, pk("board"), orderedPredicate, []ryno.Key{long})
	require.ErrorIs(t, err, ryno.ErrInvalid, "the key with its position passes 1,024 bytes")
	_, err = s.Transact(ctx, ryno.TxAddRelationships(pk("board"), orderedPredicate, []ryno.Key{long}))
	require.ErrorIs(t, err, ryno.ErrInvalid)
	require.Empty(t, requests(s.counter), "nothing sent")
}

// TestAReplaceRacingAddsKeepsItsOrder races a Replace of an ordered set with Adds
// of other objects, round after round: the objects of the Replace always list in
// the order it gave, each object once, and an Add's object is there unless the
// Replace read the set after it landed (and so removed it).
func TestAReplaceRacingAddsKeepsItsOrder(t *testing.T) {
	const adders, rounds = 4, 12
	s := orderedStore(t, ryno.Options{ConsistentRead: true})
	board := pk("board")
	createSubjects(t, s.Client, board)
	r := rand.New(rand.NewPCG(3, 5))
	pool := pks("card", 20)
	for round := range rounds {
		want := slices.Clone(pool)
		r.Shuffle(len(want), func(i, j int) { want[i], want[j] = want[j], want[i] })
		want = want[:10+r.IntN(10)]
		start := make(chan struct{})
		var wg sync.WaitGroup
		errs := make([]error, adders+1)
		wg.Go(func() {
			<-start
			errs[adders] = s.ReplaceRelationships(ctx, board, orderedPredicate, want)
		})
		for a := range adders {
			wg.Go(func() {
				<-start
				_, errs[a] = s.AddRelationships(ctx, board, orderedPredicate, []ryno.Key{pk(fmt.Sprintf("r%02d-a%d", round, a))})
			})
		}
		close(start)
		wg.Wait()
		require.NoError(t, errors.Join(errs...), "round %d", round)

		got := orderedObjects(t, s.Client, board, 7)
		seen := map[ryno.Key]bool{}
		var replaced []ryno.Key
		for _, k := range got {
			require.False(t, seen[k], "round %d: %s listed twice", round, k)
			seen[k] = true
			if slices.Contains(want, k) {
				replaced = append(replaced, k)
			} else {
				require.True(t, strings.HasPrefix(k.ID, fmt.Sprintf("r%02d-a", round)), "round %d: %s is neither replaced nor added this round", round, k)
			}
		}
		require.Equal(t, want, replaced, "round %d: the Replace's objects, all, in its order", round)
	}
}

// TestReplaceGivesPositionsToEntriesWrittenWithoutThem has a client that declares
// the predicate a plain set write two entries, which the ordered listing does not
// see; a Replace under the declaration puts the one it keeps at its place and
// deletes the other.
func TestReplaceGivesPositionsToEntriesWrittenWithoutThem(t *testing.T) {
	s := orderedStore(t, ryno.Options{ConsistentRead: true})
	board := pk("board")
	createSubjects(t, s.Client, board)
	plain := newClientOn(t, s, ryno.Options{Sets: []string{orderedPredicate}})
	_, err := plain.AddRelationships(ctx, board, orderedPredicate, []ryno.Key{pk("kept"), pk("dropped")})
	require.NoError(t, err)
	require.Empty(t, orderedObjects(t, s.Client, board, 10), "entries without a position are not in the order")

	require.NoError(t, s.ReplaceRelationships(ctx, board, orderedPredicate, []ryno.Key{pk("new"), pk("kept")}))
	require.Equal(t, []ryno.Key{pk("new"), pk("kept")}, orderedObjects(t, s.Client, board, 10))
	_, _, entries := listItems(t, s, board, orderedPredicate)
	require.Len(t, entries, 2, "the entry of dropped is gone, and kept has one entry")
}

// TestAReplaceMovingAnObjectOfAnOrderedSetOfASubjectDeletedMeanwhileLeavesNothing
// holds a Replace that moves an object already in the ordered set (it puts the
// object's entry again, at its new position) until a Delete of the subject has
// returned: the Replace finds the subject missing and takes back every entry it
// put, the moved one included.
func TestAReplaceMovingAnObjectOfAnOrderedSetOfASubjectDeletedMeanwhileLeavesNothing(t *testing.T) {
	gate := newHeldRequest("BatchWriteItem")
	s := orderedStore(t, ryno.Options{})
	w := mustNew(t, gate.wrap(s.raw), s.Names().Prefix, nil, ryno.Options{OrderedSets: []string{orderedPredicate}})
	subject, x, y := pk("board"), pk("x"), pk("y")
	createSubjects(t, s.Client, subject, x, y)
	_, err := s.AddRelationships(ctx, subject, orderedPredicate, []ryno.Key{x, y})
	require.NoError(t, err)

	gate.armed.Store(true)
	replace := background(func() error { return w.ReplaceRelationships(ctx, subject, orderedPredicate, []ryno.Key{y, x}) })
	wait(t, gate.held, "the Replace's writes")
	require.NoError(t, s.Delete(ctx, subject))
	close(gate.release)
	require.ErrorIs(t, result(t, replace, "the Replace"), ryno.ErrNotFound)
	requireNothingOf(t, s, subject, false)
	_, _, entries := listItems(t, s, subject, orderedPredicate)
	require.Empty(t, entries, "the entries of the ordered set")
}
