package integration_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/ryno"
)

// seedInterleaved writes, directly to the table, 200 entries pointing at object: 60
// "follows" and 140 "likes". Entry i comes from its own subject s<i> and has position
// i, so within a predicate the reverse index orders the entries by i. The follows are spread unevenly: a
// quarter of the first 40 entries, none of the next 100, then 50 of the last 60. It
// returns the entries of each predicate in index order.
func seedInterleaved(t *testing.T, s *store, object ryno.Key) map[string][]ryno.Relationship {
	t.Helper()
	byPredicate := map[string][]ryno.Relationship{}
	var reqs []types.WriteRequest
	for i := range 200 {
		predicate := "likes"
		if i < 40 && i%4 == 0 || i >= 140 && i%6 != 0 {
			predicate = "follows"
		}
		r := ryno.Relationship{Subject: pk(fmt.Sprintf("s%03d", i)), Predicate: predicate, Index: i, Object: object}
		byPredicate[predicate] = append(byPredicate[predicate], r)
		e := relationships.Entry{Subject: r.Subject, Predicate: predicate, Index: i, Object: object}
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: e.Item()}})
	}
	require.Len(t, byPredicate["follows"], 60)
	require.Len(t, byPredicate["likes"], 140)
	for chunk := range slices.Chunk(reqs, 25) {
		out, err := s.raw.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{s.Names().Relationships: chunk}})
		require.NoError(t, err)
		require.Empty(t, out.UnprocessedItems)
	}
	return byPredicate
}

// pages pages through a listing and returns its pages, checking that only the last
// has no cursor.
func pages[T any](t *testing.T, p ryno.PageOptions, page func(ryno.PageOptions) (*ryno.Page[T], error)) [][]T {
	t.Helper()
	var all [][]T
	for {
		pg, err := page(p)
		require.NoError(t, err)
		all = append(all, pg.Items)
		if pg.Cursor == "" {
			return all
		}
		p.Cursor = pg.Cursor
		require.Less(t, len(all), 1000, "paging must end")
	}
}

// collect returns what seq yields, failing the test on an error.
func collect[T any](t *testing.T, seq iter.Seq2[T, error]) []T {
	t.Helper()
	var items []T
	for it, err := range seq {
		require.NoError(t, err)
		items = append(items, it)
	}
	return items
}

func TestReverseRelationshipsOfOnePredicateComeInFullPages(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreWith(t, nil)
	object := pk("star")
	follows := seedInterleaved(t, s, object)["follows"]

	for _, limit := range []int{1, 7, 20, 25, 30, 60, 100} {
		for _, descending := range []bool{false, true} {
			t.Run(fmt.Sprintf("limit %d descending %t", limit, descending), func(t *testing.T) {
				want := slices.Clone(follows)
				if descending {
					slices.Reverse(want)
				}
				s.counter.Reset()
				got := pages(t, ryno.PageOptions{Limit: limit, Descending: descending}, func(p ryno.PageOptions) (*ryno.Page[ryno.Relationship], error) {
					return s.ReverseRelationships(ctx, object, "follows", p)
				})
				require.Equal(t, map[string]int{"Query": len(got)}, requests(s.counter),
					"one Query per page: the key selects the predicate, other predicates are not read")

				for i, page := range got[:len(got)-1] {
					require.Len(t, page, limit, "page %d of %d is short but not the last", i, len(got))
				}
				last := got[len(got)-1]
				require.NotEmpty(t, last, "the page before the last would have had no cursor")
				require.LessOrEqual(t, len(last), limit)
				require.Equal(t, want, slices.Concat(got...), "every follows entry once, in subject order")
			})
		}
	}
}

func TestReverseRelationshipsPageEndingAtTheLastMatchHasNoCursor(t *testing.T) {
	s := newStoreWith(t, nil)
	object := pk("star")
	follows := seedInterleaved(t, s, object)["follows"]

	page, err := s.ReverseRelationships(ctx, object, "follows", ryno.PageOptions{Limit: 59})
	require.NoError(t, err)
	require.Equal(t, follows[:59], page.Items)
	require.NotEmpty(t, page.Cursor, "one follows entry is left")

	page, err = s.ReverseRelationships(ctx, object, "follows", ryno.PageOptions{Limit: 59, Cursor: page.Cursor})
	require.NoError(t, err)
	require.Equal(t, follows[59:], page.Items)
	require.Empty(t, page.Cursor, "the page ends at the last follows entry; likes entries come after it")

	page, err = s.ReverseRelationships(ctx, object, "follows", ryno.PageOptions{Limit: 60})
	require.NoError(t, err)
	require.Equal(t, follows, page.Items)
	require.Empty(t, page.Cursor)
}

func TestReverseRelationshipsWithoutAMatchAreOneEmptyPage(t *testing.T) {
	s := newStoreWith(t, nil)
	object := pk("star")
	seedInterleaved(t, s, object)
	tests := []struct {
		name      string
		object    ryno.Key
		predicate string
	}{
		{"a predicate nobody uses for the object", object, "blocks"},
		{"a predicate that is a prefix of one in use", object, "follow"},
		{"an object nothing points at", pk("nobody"), "follows"},
		{"an object nothing points at, every predicate", pk("nobody"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, limit := range []int{1, 100} {
				page, err := s.ReverseRelationships(ctx, tt.object, tt.predicate, ryno.PageOptions{Limit: limit})
				require.NoError(t, err)
				require.Empty(t, page.Items)
				require.Empty(t, page.Cursor)
			}
		})
	}
}

func TestReverseRelationshipsOfEveryPredicateOneQueryPerPage(t *testing.T) {
	s := newStoreWith(t, nil)
	object := pk("star")
	byPredicate := seedInterleaved(t, s, object)
	// By predicate, then subject: s000 to s199 are also in index order.
	want := slices.Concat(byPredicate["follows"], byPredicate["likes"])

	var got []ryno.Relationship
	p := ryno.PageOptions{Limit: 25}
	for {
		page, err := s.ReverseRelationships(ctx, object, "", p)
		require.NoError(t, err)
		require.Equal(t, map[string]int{"Query": 1}, requests(s.counter))
		got = append(got, page.Items...)
		if page.Cursor == "" {
			break
		}
		require.Len(t, page.Items, 25)
		p.Cursor = page.Cursor
	}
	require.Equal(t, want, got)
}

func TestReverseCursorsOnlyContinueTheirOwnQuery(t *testing.T) {
	s := newStoreWith(t, nil)
	object := pk("star")
	seedInterleaved(t, s, object)
	fan := pk("fan")
	_, err := s.Set(ctx, &ryno.Entity{Key: fan}, ryno.ReplaceLists(map[string][]ryno.Key{"follows": {pk("x"), pk("y")}}))
	require.NoError(t, err)

	cursor := func(page *ryno.Page[ryno.Relationship], err error) string {
		t.Helper()
		require.NoError(t, err)
		require.NotEmpty(t, page.Cursor)
		return page.Cursor
	}
	first := ryno.PageOptions{Limit: 1}
	follows := cursor(s.ReverseRelationships(ctx, object, "follows", first))
	unfiltered := cursor(s.ReverseRelationships(ctx, object, "", first))
	outgoing := cursor(s.Relationships(ctx, fan, "follows", first))

	tests := []struct {
		name      string
		object    ryno.Key
		predicate string
		p         ryno.PageOptions
	}{
		{"an unfiltered cursor for one predicate", object, "follows", ryno.PageOptions{Cursor: unfiltered}},
		{"a cursor of one predicate for every predicate", object, "", ryno.PageOptions{Cursor: follows}},
		{"a cursor of one predicate for another", object, "likes", ryno.PageOptions{Cursor: follows}},
		{"a cursor for the other direction", object, "follows", ryno.PageOptions{Cursor: follows, Descending: true}},
		{"a cursor of another object", pk("other"), "follows", ryno.PageOptions{Cursor: follows}},
		{"a cursor of outgoing relationships", object, "follows", ryno.PageOptions{Cursor: outgoing}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.counter.Reset()
			_, err := s.ReverseRelationships(ctx, tt.object, tt.predicate, tt.p)
			require.ErrorIs(t, err, ryno.ErrInvalidCursor)
			require.Zero(t, s.counter.Total())
		})
	}

	t.Run("its own cursor, with another page size", func(t *testing.T) {
		page, err := s.ReverseRelationships(ctx, object, "follows", ryno.PageOptions{Cursor: follows, Limit: 5})
		require.NoError(t, err)
		require.Len(t, page.Items, 5)
		require.Equal(t, pk("s004"), page.Items[0].Subject, "the second follows entry")
	})
}

func TestReverseRelationshipsRejectBadInputWithoutARequest(t *testing.T) {
	s := newStoreWith(t, nil)
	tests := []struct {
		name      string
		object    ryno.Key
		predicate string
		p         ryno.PageOptions
		want      error
	}{
		{"a bad object", ryno.Key{Scope: "acme"}, "follows", ryno.PageOptions{}, ryno.ErrInvalid},
		{"a control character in the predicate", pk("a"), "follows\n", ryno.PageOptions{}, ryno.ErrInvalid},
		{"a negative limit", pk("a"), "follows", ryno.PageOptions{Limit: -1}, ryno.ErrInvalid},
		{"garbage for a cursor", pk("a"), "follows", ryno.PageOptions{Cursor: "garbage"}, ryno.ErrInvalidCursor},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.counter.Reset()
			_, err := s.ReverseRelationships(ctx, tt.object, tt.predicate, tt.p)
			require.ErrorIs(t, err, tt.want)
			require.Zero(t, s.counter.Total())

			var yielded []error
			for _, err := range s.AllReverseRelationships(ctx, tt.object, tt.predicate, tt.p) {
				yielded = append(yielded, err)
			}
			require.Len(t, yielded, 1, "the iterator yields the error and stops")
			require.True(t, errors.Is(yielded[0], tt.want), "%v", yielded[0])
		})
	}
}

func TestIteratorsYieldWhatPagingYields(t *testing.T) {
	dynamotest.Parallel(t)
	s := newIndexedStore(t, nil)
	object := pk("star")
	seedInterleaved(t, s, object)

	hub := pk("hub")
	var objects []ryno.Key
	for i := range 40 {
		k := pk(fmt.Sprintf("p%02d", i))
		objects = append(objects, k)
		if i%5 == 3 {
			continue // in the list, but no entity: RelatedEntities skips it
		}
		_, err := s.Create(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"age": i % 9, "name": k.ID}})
		require.NoError(t, err)
	}
	_, err := s.Set(ctx, &ryno.Entity{Key: hub}, ryno.ReplaceLists(map[string][]ryno.Key{"follows": objects}))
	require.NoError(t, err)

	for _, descending := range []bool{false, true} {
		p := ryno.PageOptions{Limit: 7, Descending: descending}
		t.Run(fmt.Sprintf("descending %t", descending), func(t *testing.T) {
			for _, predicate := range []string{"", "follows", "likes"} {
				paged := slices.Concat(pages(t, p, func(p ryno.PageOptions) (*ryno.Page[ryno.Relationship], error) {
					return s.ReverseRelationships(ctx, object, predicate, p)
				})...)
				require.NotEmpty(t, paged)
				require.Equal(t, paged, collect(t, s.AllReverseRelationships(ctx, object, predicate, p)), "ReverseRelationships %q", predicate)
			}

			related := slices.Concat(pages(t, p, func(p ryno.PageOptions) (*ryno.Page[*ryno.Entity], error) {
				return s.RelatedEntities(ctx, hub, "follows", p)
			})...)
			require.Len(t, related, 32)
			require.Equal(t, related, collect(t, s.AllRelatedEntities(ctx, hub, "follows", p)), "RelatedEntities")

			cond := indexing.GreaterOrEqual(indexing.Int(3))
			entries := slices.Concat(pages(t, p, func(p ryno.PageOptions) (*ryno.Page[ryno.IndexEntry], error) {
				return s.QueryIndexEntries(ctx, ryno.ScopedIndex{Scope: "acme", Index: "age"}, cond, p)
			})...)
			require.NotEmpty(t, entries)
			require.Equal(t, entries, collect(t, s.AllIndexEntries(ctx, ryno.ScopedIndex{Scope: "acme", Index: "age"}, cond, p)), "QueryIndexEntries")
		})
	}
}

// TestDeleteMeetingEdgesGoneSinceItsReverseReadRefusesOncePerTransaction deletes an
// entity that 150 lists point at, after most of those lists dropped it between the
// Delete's read of the reverse index and its first transaction: what a reverse
// index behind the table, or a cut-off Delete's requests landing late, looks like.
// The Delete succeeds, each of its transactions refused at most once, and the lists
// left are exact.
func TestDeleteMeetingEdgesGoneSinceItsReverseReadRefusesOncePerTransaction(t *testing.T) {
	dynamotest.Parallel(t)
	var (
		mu               sync.Mutex
		queries, refused int
		dropped          bool
		drop             func()
		dropErr          error
	)
	s := newStoreWith(t, func(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
		return dynamotest.Wrap(api, func(ctx context.Context, op string, send func(context.Context) error) error {
			mu.Lock()
			if op == "TransactWriteItems" && queries >= 3 && !dropped && drop != nil {
				dropped = true
				drop()
			}
			mu.Unlock()
			err := send(ctx)
			mu.Lock()
			defer mu.Unlock()
			var canceled *types.TransactionCanceledException
			switch {
			case op == "Query":
				queries++
			case errors.As(err, &canceled):
				refused++
			}
			return err
		})
	})
	gone := pk("gone")
	fans := pks("fan", 150)
	createSubjects(t, s.Client, slices.Concat([]ryno.Key{gone, pk("x")}, fans)...)
	for _, f := range fans {
		require.NoError(t, s.ReplaceRelationships(ctx, f, "follows", []ryno.Key{pk("x"), gone}))
	}
	other := mustNew(t, s.raw, s.Names().Prefix, nil)
	drop = func() {
		for i, f := range fans {
			if i%5 != 0 {
				_, err := other.RemoveRelationships(ctx, f, "follows", []ryno.Key{gone})
				dropErr = errors.Join(dropErr, err)
			}
		}
	}
	mu.Lock()
	queries = 0
	mu.Unlock()

	require.NoError(t, s.Delete(ctx, gone))
	require.True(t, dropped, "the lists dropped the entity mid-Delete")
	require.NoError(t, dropErr)
	require.LessOrEqual(t, refused, 5, "transactions refused: one per transaction of the sweep at most")
	for _, f := range fans {
		require.Equal(t, []ryno.Key{pk("x")}, objectsOf(t, s.Client, f, "follows", 10), "the list of %s", f)
		requireListExact(t, s, f, "follows")
	}
	requireNothingOf(t, s, gone, true)
}

// TestDeleteOfAnEntityHeldManyTimesByOneListMeetingItShrink deletes an entity one
// list holds 250 times, in parts of several transactions, while that list drops
// some of its entries between the Delete's read and its first transaction. Each
// part takes out of the marker only positions still there, so the head's count
// stays exact.
func TestDeleteOfAnEntityHeldManyTimesByOneListMeetingItShrink(t *testing.T) {
	dynamotest.Parallel(t)
	var (
		mu      sync.Mutex
		queries int
		drop    func() error
		dropErr error
	)
	s := newStoreWith(t, func(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
		return dynamotest.Wrap(api, func(ctx context.Context, op string, send func(context.Context) error) error {
			mu.Lock()
			if op == "TransactWriteItems" && queries >= 3 && drop != nil {
				dropErr, drop = drop(), nil
			}
			mu.Unlock()
			err := send(ctx)
			if op == "Query" {
				mu.Lock()
				queries++
				mu.Unlock()
			}
			return err
		})
	})
	gone, fan := pk("gone"), pk("fan")
	createSubjects(t, s.Client, gone, fan, pk("x"))
	var list []ryno.Key
	for i := range 250 {
		list = append(list, gone)
		if i%50 == 0 {
			list = append(list, pk("x"))
		}
	}
	require.NoError(t, s.ReplaceRelationships(ctx, fan, "follows", list))
	other := mustNew(t, s.raw, s.Names().Prefix, nil)
	mu.Lock()
	queries = 0
	drop = func() error { // what remains of the list: x, five times, and gone, 30 times
		kept := slices.Repeat([]ryno.Key{pk("x")}, 5)
		kept = append(kept, slices.Repeat([]ryno.Key{gone}, 30)...)
		return other.ReplaceRelationships(ctx, fan, "follows", kept)
	}
	mu.Unlock()

	require.NoError(t, s.Delete(ctx, gone))
	require.NoError(t, dropErr)
	require.Nil(t, drop, "the list shrank mid-Delete")
	require.Equal(t, slices.Repeat([]ryno.Key{pk("x")}, 5), objectsOf(t, s.Client, fan, "follows", 100))
	requireListExact(t, s, fan, "follows")
	requireNothingOf(t, s, gone, true)
}

func TestReverseRelationshipsComeInKeyOrderWhateverTheOrderOfTheWrites(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreWith(t, nil)
	object := pk("star")
	subjects := pks("s", 24) // in key order
	createSubjects(t, s.Client, append(slices.Clone(subjects), object, pk("other"))...)

	// Every entry at position 0 of its list, written concurrently in a random order:
	// an index keyed by position would leave their order to chance.
	var wg sync.WaitGroup
	for _, i := range rand.Perm(2 * len(subjects)) {
		wg.Go(func() {
			_, err := s.AddRelationships(ctx, subjects[i/2], []string{"follows", "likes"}[i%2], []ryno.Key{object})
			require.NoError(t, err)
		})
	}
	wg.Wait()
	// The first subject holds the object twice.
	require.NoError(t, s.ReplaceRelationships(ctx, subjects[0], "follows", []ryno.Key{object, pk("other"), object}))

	// The order promised: by predicate, then subject, then position in its list.
	var want []ryno.Relationship
	for _, predicate := range []string{"follows", "likes"} {
		for _, subject := range subjects {
			for _, r := range collect(t, s.AllRelationships(ctx, subject, predicate, ryno.PageOptions{})) {
				if r.Object == object {
					want = append(want, r)
				}
			}
		}
	}
	require.Len(t, want, 2*len(subjects)+1)

	for _, limit := range []int{1, 5, 100} {
		got := pages(t, ryno.PageOptions{Limit: limit}, func(p ryno.PageOptions) (*ryno.Page[ryno.Relationship], error) {
			return s.ReverseRelationships(ctx, object, "", p)
		})
		require.Equal(t, want, slices.Concat(got...), "by predicate, subject, position; limit %d", limit)
		got = pages(t, ryno.PageOptions{Limit: limit, Descending: true}, func(p ryno.PageOptions) (*ryno.Page[ryno.Relationship], error) {
			return s.ReverseRelationships(ctx, object, "likes", p)
		})
		wantLikes := slices.Clone(want[len(subjects)+1:])
		slices.Reverse(wantLikes)
		require.Equal(t, wantLikes, slices.Concat(got...), "likes, descending; limit %d", limit)
	}
}
