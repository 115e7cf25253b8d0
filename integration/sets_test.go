package integration_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/ryno"
)

// setPredicate is the predicate the tests of this file declare a set.
const setPredicate = "likes"

func setStore(t *testing.T, opts ryno.Options) *store {
	t.Helper()
	opts.Sets = []string{setPredicate}
	return newStoreOpts(t, nil, opts)
}

func TestASetHoldsEachObjectOnceInKeyOrder(t *testing.T) {
	s := setStore(t, ryno.Options{ConsistentRead: true})
	fan := pk("fan")
	createSubjects(t, s.Client, fan)

	added, err := s.AddRelationships(ctx, fan, setPredicate, []ryno.Key{pk("c"), pk("a"), pk("c")})
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{pk("c"), pk("a")}, added, "each object once, in the order given")
	added, err = s.AddRelationships(ctx, fan, setPredicate, []ryno.Key{pk("a"), pk("b")})
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{pk("b")}, added, "a was there")
	require.Equal(t, []ryno.Key{pk("a"), pk("b"), pk("c")}, objectsOf(t, s.Client, fan, setPredicate, 2), "in object key order")

	n, err := s.CountRelationships(ctx, fan, setPredicate)
	require.NoError(t, err)
	require.Equal(t, 3, n)
	has, err := s.HasRelationship(ctx, fan, setPredicate, pk("b"))
	require.NoError(t, err)
	require.True(t, has)
	require.Equal(t, []ryno.Key{fan}, subjectsPointingAt(t, s.Client, pk("b")))
	page, err := s.Relationships(ctx, fan, setPredicate, ryno.PageOptions{})
	require.NoError(t, err)
	for _, r := range page.Items {
		require.Zero(t, r.Index, "a set has no positions")
	}

	removed, err := s.RemoveRelationships(ctx, fan, setPredicate, []ryno.Key{pk("b"), pk("z")})
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{pk("b")}, removed, "z was not there")
	require.NoError(t, s.ReplaceRelationships(ctx, fan, setPredicate, []ryno.Key{pk("d"), pk("a"), pk("d")}))
	require.Equal(t, []ryno.Key{pk("a"), pk("d")}, objectsOf(t, s.Client, fan, setPredicate, 10))
	head, markers, entries := listItems(t, s, fan, setPredicate)
	require.Nil(t, head, "a set keeps no head")
	require.Empty(t, markers, "nor markers")
	require.Len(t, entries, 2)
	for _, e := range entries {
		require.NotContains(t, e, schema.AttrPredicateObjectKey, "its key finds it by object: no by-object index entry to write")
	}
	require.NoError(t, s.ReplaceRelationships(ctx, fan, setPredicate, nil))
	require.Empty(t, objectsOf(t, s.Client, fan, setPredicate, 10))

	progress, err := s.Check(ctx, ryno.CheckOptions{})
	require.NoError(t, err)
	require.Zero(t, progress.Orphans)
	require.Zero(t, progress.Traces)
}

func TestASetWriteOfOneObjectWritesOneItem(t *testing.T) {
	s := setStore(t, ryno.Options{})
	fan := pk("fan")
	createSubjects(t, s.Client, fan)
	s.counter.Reset()

	_, err := s.AddRelationships(ctx, fan, setPredicate, []ryno.Key{pk("a")})
	require.NoError(t, err)
	require.Equal(t, map[string]int{"PutItem": 1, "GetItem": 1}, requests(s.counter),
		"the entry, then the subject read consistently")
	_, err = s.RemoveRelationships(ctx, fan, setPredicate, []ryno.Key{pk("a")})
	require.NoError(t, err)
	require.Equal(t, map[string]int{"DeleteItem": 1, "GetItem": 1}, requests(s.counter),
		"the entry deleted beside the subject read")
	require.NoError(t, s.ReplaceRelationships(ctx, fan, setPredicate, pks("o", 30)))
	require.Equal(t, map[string]int{"Query": 1, "BatchWriteItem": 2, "GetItem": 1}, requests(s.counter),
		"the set read, 30 puts in batches of 25, the subject read")
}

func TestASetWriteRefusesAMissingSubjectAndLeavesNothing(t *testing.T) {
	dynamotest.Parallel(t)
	s := setStore(t, ryno.Options{})
	ghost := pk("ghost")
	_, err := s.AddRelationships(ctx, ghost, setPredicate, pks("o", 3))
	require.ErrorIs(t, err, ryno.ErrNotFound)
	_, err = s.RemoveRelationships(ctx, ghost, setPredicate, pks("o", 1))
	require.ErrorIs(t, err, ryno.ErrNotFound)
	require.ErrorIs(t, s.ReplaceRelationships(ctx, ghost, setPredicate, pks("o", 2)), ryno.ErrNotFound)
	requireNothingOf(t, s, ghost, false)
	require.Zero(t, entryCount(t, s.raw, s.Names().Relationships), "no entry written, or each taken back")
}

func TestASetWriteMeetingADeleteCutOffCompletesIt(t *testing.T) {
	s := setStore(t, ryno.Options{})
	gone := pk("gone")
	createSubjects(t, s.Client, gone)
	_, err := s.AddRelationships(ctx, gone, setPredicate, pks("o", 3))
	require.NoError(t, err)
	// The tombstone of a Delete cut off right after it.
	_, err = s.raw.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.Names().Entities), Key: rawKey(gone),
		UpdateExpression:          aws.String("SET #d = :t"),
		ExpressionAttributeNames:  map[string]string{"#d": schema.AttrDeleting},
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": str("cut")},
	})
	require.NoError(t, err)

	_, err = s.AddRelationships(ctx, gone, setPredicate, []ryno.Key{pk("late")})
	require.ErrorIs(t, err, ryno.ErrNotFound)
	requireNothingOf(t, s, gone, true)
}

func TestASetWithCheckObjectsRefusesAMissingObjectAndTakesItsWritesBack(t *testing.T) {
	s := setStore(t, ryno.Options{CheckObjects: true})
	fan := pk("fan")
	createSubjects(t, s.Client, fan, pk("a"), pk("b"))
	_, err := s.AddRelationships(ctx, fan, setPredicate, []ryno.Key{pk("a")})
	require.NoError(t, err)

	_, err = s.AddRelationships(ctx, fan, setPredicate, []ryno.Key{pk("a"), pk("b"), pk("nobody")})
	require.ErrorIs(t, err, ryno.ErrNotFound)
	require.ErrorContains(t, err, pk("nobody").String())
	require.Equal(t, []ryno.Key{pk("a")}, objectsOf(t, s.Client, fan, setPredicate, 10),
		"b and nobody taken back; a, there before, stays")
}

// TestReplaceListsWritesSetsAfterTheEntity: Create, Update, Set and Modify write a
// set named in ReplaceLists as ReplaceRelationships does, once the entity is
// written; a transaction refuses it before any request.
func TestReplaceListsWritesSetsAfterTheEntity(t *testing.T) {
	s := setStore(t, ryno.Options{ConsistentRead: true})
	fan := pk("fan")

	s.counter.Reset()
	e, err := s.Set(ctx, &ryno.Entity{Key: fan}, ryno.ReplaceLists(map[string][]ryno.Key{setPredicate: pks("o", 10)}))
	require.NoError(t, err)
	require.Equal(t, map[string]int{"UpdateItem": 1, "Query": 1, "BatchWriteItem": 1, "GetItem": 1}, requests(s.counter),
		"the entity (a blind Set: one UpdateItem), then the set: its read, the difference in one batch, the subject's check")
	require.Equal(t, pks("o", 10), objectsOf(t, s.Client, fan, setPredicate, 4))

	e, err = s.Update(ctx, e, ryno.ReplaceLists(map[string][]ryno.Key{setPredicate: {pk("o0003"), pk("new")}, "follows": {pk("x"), pk("y")}}))
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{pk("new"), pk("o0003")}, objectsOf(t, s.Client, fan, setPredicate, 10))
	require.Equal(t, []ryno.Key{pk("x"), pk("y")}, objectsOf(t, s.Client, fan, "follows", 10), "the list commits with the entity")
	requireListExact(t, s, fan, "follows")

	m, err := s.Modify(ctx, fan, func(e *ryno.Entity) error { e.Attributes["n"] = 1; return nil },
		ryno.ReplaceLists(map[string][]ryno.Key{setPredicate: nil}))
	require.NoError(t, err)
	require.Empty(t, objectsOf(t, s.Client, fan, setPredicate, 10))
	require.Equal(t, e.Version+1, m.Version, "each call wrote the entity once")

	_, err = s.Create(ctx, &ryno.Entity{Key: pk("other")}, ryno.ReplaceLists(map[string][]ryno.Key{setPredicate: {fan}}))
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{pk("other")}, subjectsPointingAt(t, s.Client, fan))

	s.counter.Reset()
	_, err = s.Transact(ctx, ryno.TxSet(&ryno.Entity{Key: fan}, ryno.ReplaceLists(map[string][]ryno.Key{setPredicate: {pk("a")}})))
	require.ErrorIs(t, err, ryno.ErrInvalid, "a transaction writes sets with TxAddRelationships and TxRemoveRelationships")
	require.Empty(t, requests(s.counter), "refused before any request")

	_, err = ryno.New(s.raw, ryno.Options{TablePrefix: s.Names().Prefix, Sets: []string{""}})
	require.ErrorIs(t, err, ryno.ErrInvalid)
}

// TestASetThatFailsAfterItsEntityIsAPartialWrite: the entity is written, the set is
// not; the error holds the entity, and the same call again completes the set.
func TestASetThatFailsAfterItsEntityIsAPartialWrite(t *testing.T) {
	faults := (*dynamotest.Faults)(nil)
	s := newStoreOpts(t, func(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
		faults = dynamotest.NewFaults(api)
		return faults
	}, ryno.Options{Sets: []string{setPredicate}, Retry: ryno.RetryOptions{MaxAttempts: 1}})
	fan := pk("fan")
	faults.FailAfter("BatchWriteItem", 0, func() error { return errInjected })
	lists := ryno.ReplaceLists(map[string][]ryno.Key{setPredicate: pks("o", 3)})
	_, err := s.Set(ctx, &ryno.Entity{Key: fan, Attributes: map[string]any{"name": "Fan"}}, lists)
	var partial *ryno.PartialWriteError
	require.ErrorAs(t, err, &partial)
	require.ErrorIs(t, err, errInjected)
	require.Equal(t, fan, partial.Entity.Key)
	got, err := s.Get(ctx, fan)
	require.NoError(t, err)
	require.Equal(t, "Fan", got.Attributes["name"], "the entity is written")
	require.Empty(t, objectsOf(t, s.Client, fan, setPredicate, 10), "the set is not")

	faults.Clear()
	_, err = s.Set(ctx, &ryno.Entity{Key: fan, Attributes: map[string]any{"name": "Fan"}}, lists)
	require.NoError(t, err)
	require.Equal(t, pks("o", 3), objectsOf(t, s.Client, fan, setPredicate, 10))
}

func TestDeleteSweepsTheSetsPointingAtTheEntity(t *testing.T) {
	dynamotest.Parallel(t)
	s := setStore(t, ryno.Options{})
	gone := pk("gone")
	fans := pks("fan", 120)
	createSubjects(t, s.Client, slices.Concat([]ryno.Key{gone, pk("x")}, fans)...)
	for _, f := range fans {
		_, err := s.AddRelationships(ctx, f, setPredicate, []ryno.Key{pk("x"), gone})
		require.NoError(t, err)
	}
	_, err := s.AddRelationships(ctx, gone, setPredicate, fans)
	require.NoError(t, err)

	s.counter.Reset()
	require.NoError(t, s.Delete(ctx, gone))
	require.Equal(t, map[string]int{"UpdateItem": 1, "Query": 3, "GetItem": 1, "DeleteItem": 241}, requests(s.counter),
		"the tombstone; the index entries (none) and the partition, the entries pointing at it; "+
			"the tombstone read again after them; each of the 240 set entries deleted alone, at 1 WCU "+
			"where a transaction bills 2; the entity")
	requireNothingOf(t, s, gone, true)
	for _, f := range fans[:10] {
		require.Equal(t, []ryno.Key{pk("x")}, objectsOf(t, s.Client, f, setPredicate, 10))
	}
	require.Equal(t, 120, entryCount(t, s.raw, s.Names().Relationships), "each fan keeps x")
}

// TestAddsToOneSetNeverConflict has 8 writers add to one set at once, each its own
// objects and some shared ones, over many rounds: every call succeeds at once, and
// the set holds each object once.
func TestAddsToOneSetNeverConflict(t *testing.T) {
	dynamotest.Parallel(t)
	const writers, rounds = 8, 15
	s := setStore(t, ryno.Options{Conflicts: ryno.RetryOptions{MaxAttempts: 1}})
	fan := pk("fan")
	createSubjects(t, s.Client, fan)
	var want []ryno.Key
	for round := range rounds {
		start := make(chan struct{})
		var wg sync.WaitGroup
		errs := make([]error, writers)
		for w := range writers {
			objects := []ryno.Key{pk(fmt.Sprintf("r%02d-w%d", round, w)), pk(fmt.Sprintf("r%02d-shared", round))}
			wg.Go(func() {
				<-start
				_, errs[w] = s.AddRelationships(ctx, fan, setPredicate, objects)
			})
			want = append(want, objects[0])
		}
		want = append(want, pk(fmt.Sprintf("r%02d-shared", round)))
		close(start)
		wg.Wait()
		require.NoError(t, errors.Join(errs...), "round %d", round)
	}
	slices.SortFunc(want, func(a, b ryno.Key) int { return strings.Compare(a.String(), b.String()) })
	require.Equal(t, want, objectsOf(t, s.Client, fan, setPredicate, 100))
}

// TestAddsRacingADeleteLeaveNothingOfTheSubject races writers adding to a set
// against the Delete of its subject, over many rounds: each Add either succeeded
// before the Delete (and was swept) or fails with ErrNotFound, and nothing of the
// subject is left.
func TestAddsRacingADeleteLeaveNothingOfTheSubject(t *testing.T) {
	dynamotest.Parallel(t)
	addsRacingADelete(t, setStore(t, ryno.Options{}), setPredicate, 12)
}

// addsRacingADelete races Adds to predicate's set against the Delete of its
// subject, for rounds rounds.
func addsRacingADelete(t *testing.T, s *store, predicate string, rounds int) {
	t.Helper()
	const writers = 6
	for round := range rounds {
		subject := pk(fmt.Sprintf("doomed%02d", round))
		createSubjects(t, s.Client, subject)
		start := make(chan struct{})
		var wg sync.WaitGroup
		errs := make([]error, writers+1)
		for w := range writers {
			wg.Go(func() {
				<-start
				for i := range 4 {
					_, err := s.AddRelationships(ctx, subject, predicate, []ryno.Key{pk(fmt.Sprintf("w%d-%d", w, i))})
					if err != nil && !errors.Is(err, ryno.ErrNotFound) {
						errs[w] = err
					}
				}
			})
		}
		wg.Go(func() {
			<-start
			errs[writers] = s.Delete(ctx, subject)
		})
		close(start)
		wg.Wait()
		require.NoError(t, errors.Join(errs...), "round %d", round)
		requireNothingOf(t, s, subject, false)
		_, _, entries := listItems(t, s, subject, predicate)
		require.Empty(t, entries, "round %d: nothing of the deleted subject", round)
	}
}

func TestCheckRepairsTheSetOfAMissingSubject(t *testing.T) {
	s := setStore(t, ryno.Options{})
	ghost := pk("ghost")
	e := relationships.SetEntry(ghost, setPredicate, pk("a"))
	_, err := s.raw.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.Names().Relationships), Item: e.Item()})
	require.NoError(t, err)

	progress, err := s.Check(ctx, ryno.CheckOptions{})
	require.NoError(t, err)
	require.Equal(t, 1, progress.Orphans, "the entry of a missing subject")
	_, err = s.Check(ctx, ryno.CheckOptions{Repair: true})
	require.NoError(t, err)
	require.Zero(t, entryCount(t, s.raw, s.Names().Relationships))
}

// TestASetInATransactionReportsWhatChangedAtTheCommit writes a set in transactions
// beside other operations: each reports the objects it changed, a missing object is
// refused with CheckObjects, and a racing writer of the same object makes the
// transaction read again rather than report a change it did not make.
func TestASetInATransactionReportsWhatChangedAtTheCommit(t *testing.T) {
	dynamotest.Parallel(t)
	s := setStore(t, ryno.Options{CheckObjects: true})
	fan, post := pk("fan"), pk("post")
	createSubjects(t, s.Client, fan)

	results, err := s.Transact(ctx, ryno.TxCreate(&ryno.Entity{Key: post}), ryno.TxAddRelationships(fan, setPredicate, []ryno.Key{post}))
	require.NoError(t, err, "an object created in the same transaction is checked by its create")
	require.Equal(t, []ryno.Key{post}, results[1].Changed)
	createSubjects(t, s.Client, pk("other"))

	results, err = s.Transact(ctx, ryno.TxAddRelationships(fan, setPredicate, []ryno.Key{post, pk("other"), post}))
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{pk("other")}, results[0].Changed, "post was there")
	results, err = s.Transact(ctx, ryno.TxAddRelationships(fan, setPredicate, []ryno.Key{post}))
	require.NoError(t, err)
	require.Empty(t, results[0].Changed, "there already")
	results, err = s.Transact(ctx, ryno.TxRemoveRelationships(fan, setPredicate, []ryno.Key{post, pk("nobody")}))
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{post}, results[0].Changed)
	require.Equal(t, []ryno.Key{pk("other")}, objectsOf(t, s.Client, fan, setPredicate, 10))

	_, err = s.Transact(ctx, ryno.TxAddRelationships(fan, setPredicate, []ryno.Key{pk("nobody")}))
	require.ErrorIs(t, err, ryno.ErrNotFound, "CheckObjects")
	_, err = s.Transact(ctx, ryno.TxAddRelationships(pk("ghost"), setPredicate, []ryno.Key{post}))
	require.ErrorIs(t, err, ryno.ErrNotFound, "no subject")
	require.Equal(t, []ryno.Key{pk("other")}, objectsOf(t, s.Client, fan, setPredicate, 10))

	// Eight transactions add one object at once: exactly one reports it.
	const writers = 8
	var wg sync.WaitGroup
	changed := make([][]ryno.Key, writers)
	errs := make([]error, writers)
	start := make(chan struct{})
	for w := range writers {
		wg.Go(func() {
			<-start
			r, err := s.Transact(ctx, ryno.TxAddRelationships(fan, setPredicate, []ryno.Key{post}))
			errs[w] = err
			if err == nil {
				changed[w] = r[0].Changed
			}
		})
	}
	close(start)
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	n := 0
	for _, c := range changed {
		n += len(c)
	}
	require.Equal(t, 1, n, "one transaction added it")
}

// heldDeletes holds every conditional DeleteItem of relationship entries until
// release is closed, and says when the first arrives: a sweep paused after its
// read, as a process stalled by a long pause or a slow network would be.
type heldDeletes struct {
	ryno.DynamoDBAPI
	table   string
	arrived chan struct{}
	release chan struct{}
	once    sync.Once
}

func (h *heldDeletes) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	if aws.ToString(in.TableName) == h.table && in.ConditionExpression != nil {
		h.once.Do(func() { close(h.arrived) })
		<-h.release
	}
	return h.DynamoDBAPI.DeleteItem(ctx, in, opts...)
}

// TestALateSweepOfASetLeavesTheEntriesOfANewLife pauses a Delete whose sweep
// deletes set entries one request each, after it read them; meanwhile another
// writer completes the Delete, the entity is created anew and an object added to
// its set again. When the paused requests land, each finds the entry written
// since, with another token, and leaves it.
func TestALateSweepOfASetLeavesTheEntriesOfANewLife(t *testing.T) {
	dynamotest.Parallel(t)
	s := setStore(t, ryno.Options{})
	hub := pk("hub")
	objects := pks("o", 110) // more than one transaction: the sweep fences each delete
	createSubjects(t, s.Client, hub)
	require.NoError(t, s.ReplaceRelationships(ctx, hub, setPredicate, objects))

	held := &heldDeletes{DynamoDBAPI: s.raw, table: s.Names().Relationships, arrived: make(chan struct{}), release: make(chan struct{})}
	stalled, err := ryno.New(held, ryno.Options{TablePrefix: s.Names().Prefix, Sets: []string{setPredicate}})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- stalled.Delete(ctx, hub) }()
	select {
	case <-held.arrived:
	case err := <-done:
		t.Fatalf("the Delete ended before its fenced deletes: %v", err)
	}

	other := newClientOn(t, s, ryno.Options{Sets: []string{setPredicate}})
	require.NoError(t, other.Delete(ctx, hub), "the next writer completes the Delete")
	createSubjects(t, other, hub)
	_, err = other.AddRelationships(ctx, hub, setPredicate, objects[:3])
	require.NoError(t, err)

	close(held.release)
	require.NoError(t, <-done, "the stalled Delete finds its guard gone, and stops")
	require.Equal(t, objects[:3], objectsOf(t, s.Client, hub, setPredicate, 10), "the new life's entries are all there")
}

// TestACleanupOfAnEntityCreatedAnewChangesNothing cleans up after an entity that
// exists (created anew after the item a stream record names was removed): its own
// set, too large for one transaction, the sets pointing at it and its list stay
// whole. The deletes of set entries beyond one transaction carry only the token
// each entry had when read, so they go only once the sweep has seen the entity still
// missing after its read.
func TestACleanupOfAnEntityCreatedAnewChangesNothing(t *testing.T) {
	dynamotest.Parallel(t)
	s := setStore(t, ryno.Options{})
	k, fans := pk("anew"), pks("fan", 30)
	objects := pks("o", 110)
	createSubjects(t, s.Client, append([]ryno.Key{k}, fans...)...)
	_, err := s.AddRelationships(ctx, k, setPredicate, objects)
	require.NoError(t, err)
	require.NoError(t, s.ReplaceRelationships(ctx, k, "follows", objects[:3]))
	for _, f := range fans {
		require.NoError(t, changed(s.AddRelationships(ctx, f, setPredicate, []ryno.Key{k})))
	}

	require.NoError(t, s.Cleanup(ctx, k))
	n, err := s.CountRelationships(ctx, k, setPredicate)
	require.NoError(t, err)
	require.Equal(t, len(objects), n, "the entity's own set")
	require.Equal(t, objects[:3], objectsOf(t, s.Client, k, "follows", 10))
	for _, f := range fans {
		has, err := s.HasRelationship(ctx, f, setPredicate, k)
		require.NoError(t, err)
		require.True(t, has, "%s still likes the entity", f)
	}
}

// TestAFailedReplaceTakesBackOnlyWhatItCreated runs a ReplaceRelationships with
// CheckObjects that names a missing object, and holds it once it has read the set
// while another client adds one of the objects it would put. The Add returns first,
// having added the object; the Replace then fails on the missing object, which it
// found before writing anything: the entry the Add created stays.
func TestAFailedReplaceTakesBackOnlyWhatItCreated(t *testing.T) {
	for _, ordered := range []bool{false, true} {
		t.Run(fmt.Sprintf("ordered %v", ordered), func(t *testing.T) {
			opts := ryno.Options{CheckObjects: true}
			predicate := setPredicate
			if ordered {
				predicate = orderedPredicate
				opts.OrderedSets = []string{predicate}
			} else {
				opts.Sets = []string{predicate}
			}
			s := newStoreOpts(t, nil, opts)
			fan, a, x := pk("fan"), pk("a"), pk("x")
			createSubjects(t, s.Client, fan, a, x)
			_, err := s.AddRelationships(ctx, fan, predicate, []ryno.Key{a})
			require.NoError(t, err)

			var armed atomic.Bool
			read, release := make(chan struct{}), make(chan struct{})
			var once sync.Once
			held := dynamotest.Wrap(s.raw, func(ctx context.Context, op string, send func(context.Context) error) error {
				err := send(ctx)
				if armed.Load() && op == "Query" {
					once.Do(func() { close(read); <-release })
				}
				return err
			})
			opts.TablePrefix = s.Names().Prefix
			r, err := ryno.New(held, opts)
			require.NoError(t, err)
			armed.Store(true)
			replace := background(func() error {
				return r.ReplaceRelationships(ctx, fan, predicate, []ryno.Key{a, x, pk("nobody")})
			})
			wait(t, read, "the Replace's read of the set")
			added, err := s.AddRelationships(ctx, fan, predicate, []ryno.Key{x})
			require.NoError(t, err)
			require.Equal(t, []ryno.Key{x}, added)
			close(release)

			err = result(t, replace, "the Replace")
			require.ErrorIs(t, err, ryno.ErrNotFound)
			require.ErrorContains(t, err, pk("nobody").String())
			has, err := s.HasRelationship(ctx, fan, predicate, x)
			require.NoError(t, err)
			require.True(t, has, "the Add, which returned, added x; the failed Replace did not create its entry")
		})
	}
}

// TestARefusedReplaceWritesNothing replaces a list of each kind holding a, b and c
// with c and an object that does not exist, under CheckObjects: the call is refused
// with ErrNotFound and the list is as it was, a and b included.
func TestARefusedReplaceWritesNothing(t *testing.T) {
	for _, kind := range []string{"list", "set", "ordered set"} {
		t.Run(kind, func(t *testing.T) {
			opts := ryno.Options{CheckObjects: true, ConsistentRead: true}
			switch kind {
			case "set":
				opts.Sets = []string{setPredicate}
			case "ordered set":
				opts.OrderedSets = []string{setPredicate}
			}
			s := newStoreOpts(t, nil, opts)
			fan, a, b, c := pk("fan"), pk("a"), pk("b"), pk("c")
			createSubjects(t, s.Client, fan, a, b, c)
			require.NoError(t, s.ReplaceRelationships(ctx, fan, setPredicate, []ryno.Key{a, b, c}))

			err := s.ReplaceRelationships(ctx, fan, setPredicate, []ryno.Key{c, pk("missing")})
			require.ErrorIs(t, err, ryno.ErrNotFound)
			require.ErrorContains(t, err, pk("missing").String())
			require.Equal(t, []ryno.Key{a, b, c}, objectsOf(t, s.Client, fan, setPredicate, 10), "the list as it was")
			_, _, entries := listItems(t, s, fan, setPredicate)
			require.Len(t, entries, 3, "no entry written or left behind")
		})
	}
}

// TestAReplaceStandsBeforeADeleteOfItsObject holds a ReplaceRelationships with
// CheckObjects after it found its objects, until a Delete of one of them has
// ended: the Replace then puts an entry the Delete's sweep could not see. It stands,
// as if it came before the Delete, and takes back that entry: the set ends without
// the deleted object and nothing refers to it.
func TestAReplaceStandsBeforeADeleteOfItsObject(t *testing.T) {
	for _, ordered := range []bool{false, true} {
		t.Run(fmt.Sprintf("ordered %v", ordered), func(t *testing.T) {
			opts := ryno.Options{CheckObjects: true, ConsistentRead: true}
			if ordered {
				opts.OrderedSets = []string{setPredicate}
			} else {
				opts.Sets = []string{setPredicate}
			}
			s := newStoreOpts(t, nil, opts)
			fan, a, b, x := pk("fan"), pk("a"), pk("b"), pk("x")
			createSubjects(t, s.Client, fan, a, b, x)
			require.NoError(t, s.ReplaceRelationships(ctx, fan, setPredicate, []ryno.Key{a, b}))

			var armed atomic.Bool
			writing, release := make(chan struct{}), make(chan struct{})
			var once sync.Once
			held := dynamotest.Wrap(s.raw, func(ctx context.Context, op string, send func(context.Context) error) error {
				if armed.Load() && (op == "PutItem" || op == "BatchWriteItem") {
					once.Do(func() { close(writing); <-release })
				}
				return send(ctx)
			})
			opts.TablePrefix = s.Names().Prefix
			r, err := ryno.New(held, opts)
			require.NoError(t, err)
			armed.Store(true)
			replace := background(func() error { return r.ReplaceRelationships(ctx, fan, setPredicate, []ryno.Key{a, x}) })
			wait(t, writing, "the Replace's first write")
			require.NoError(t, s.Delete(ctx, x))
			close(release)

			require.NoError(t, result(t, replace, "the Replace"))
			require.Equal(t, []ryno.Key{a}, objectsOf(t, s.Client, fan, setPredicate, 10))
			require.Empty(t, subjectsPointingAt(t, s.Client, x), "no entry refers to the deleted object")
			progress, err := s.Check(ctx, ryno.CheckOptions{})
			require.NoError(t, err)
			require.Zero(t, progress.Orphans)
		})
	}
}
