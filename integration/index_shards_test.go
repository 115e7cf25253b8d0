package integration_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// byDay is an index of events by day, time-ordered values, sharded over shards.
func byDay(shards int) []ryno.Index {
	return []ryno.Index{{Type: "event", Name: "by-day", Shards: shards, Project: []string{"day"},
		Map: func(e *ryno.Entity, emit func(indexing.Value)) {
			if day, ok := e.Attributes["day"].(string); ok {
				emit(indexing.String(day))
			}
		}}}
}

func event(id, day string) *ryno.Entity {
	return &ryno.Entity{Key: ryno.Key{Scope: "acme", Type: "event", ID: id}, Attributes: map[string]any{"day": day}}
}

var byDayIndex = ryno.ScopedIndex{Scope: "acme", Index: "by-day"}

// pageByDay pages through the by-day index of s with limit, and returns the
// entities in the order listed.
func pageByDay(t *testing.T, s *ryno.Client, cond indexing.Condition, limit int, descending bool) []*ryno.Entity {
	t.Helper()
	return pageAll(t, ryno.PageOptions{Limit: limit, Descending: descending}, func(p ryno.PageOptions) (*ryno.Page[*ryno.Entity], error) {
		return s.QueryIndex(ctx, byDayIndex, cond, p)
	})
}

// pageAll reads a listing page after page from p on, through page, and returns
// its items in the order listed.
func pageAll[T any](t *testing.T, p ryno.PageOptions, page func(ryno.PageOptions) (*ryno.Page[T], error)) []T {
	t.Helper()
	var got []T
	for range 1000 {
		pg, err := page(p)
		require.NoError(t, err)
		got = append(got, pg.Items...)
		if p.Cursor = pg.Cursor; p.Cursor == "" {
			return got
		}
	}
	t.Fatal("the listing did not end")
	return nil
}

// TestAShardedIndexListsEveryEntityOnceInOrder pages through an index spread over
// four partition keys while other writers create events and move others to
// another day: every event neither created nor moved meanwhile comes exactly once,
// the days in order both ways; a page of entries is one Query a shard, in one round.
func TestAShardedIndexListsEveryEntityOnceInOrder(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreOpts(t, nil, ryno.Options{Indexes: byDay(4)})
	const events = 80
	for i := range events {
		_, err := s.Create(ctx, event(fmt.Sprintf("e%03d", i), fmt.Sprintf("2026-12-%02d", 1+i%25)))
		require.NoError(t, err)
	}
	partitions := map[string]bool{}
	out, err := s.raw.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(s.Names().IndexEntries)})
	require.NoError(t, err)
	for _, item := range out.Items {
		partitions[item["_scope_index_name"].(*types.AttributeValueMemberS).Value] = true
	}
	require.Len(t, partitions, 4, "the entries spread over four partition keys")

	for _, descending := range []bool{false, true} {
		for round := range 3 {
			var wg sync.WaitGroup
			moved := make(chan string, events)
			wg.Go(func() { // writers meanwhile: new events, and events moved to another day
				for i := range 10 {
					_, err := s.Create(ctx, event(fmt.Sprintf("new-%v-%d-%02d", descending, round, i), "2026-12-15"))
					require.NoError(t, err)
					id := fmt.Sprintf("e%03d", (round*10+i)*3%events)
					moved <- id
					_, err = s.Patch(ctx, ryno.Key{Scope: "acme", Type: "event", ID: id}, ryno.Patch{Set: map[string]any{"day": fmt.Sprintf("2026-11-%02d", 1+i)}})
					require.NoError(t, err)
				}
			})
			got := pageByDay(t, s.Client, indexing.All(), 1+round*3, descending)
			wg.Wait()
			close(moved)
			changed := map[string]bool{}
			for id := range moved {
				changed[id] = true
			}
			seen := map[string]int{}
			last := ""
			for _, e := range got {
				seen[e.Key.ID]++
				if changed[e.Key.ID] {
					continue // read at its new day, listed at its old one
				}
				day := e.Attributes["day"].(string)
				require.True(t, last == "" || last == day || (last < day) != descending, "in order: %s then %s", last, day)
				last = day
			}
			for id, n := range seen {
				if !changed[id] { // a moved event may be met at its old day and its new
					require.Equal(t, 1, n, "%s listed once", id)
				}
			}
			for i := range events {
				if id := fmt.Sprintf("e%03d", i); !changed[id] {
					require.Contains(t, seen, id, "an event not moved is listed")
				}
			}
		}
	}

	s.counter.Reset()
	gate := dynamotest.NewGate(s.counter, 4) // the four Queries in flight at once
	gated, err := ryno.New(gate, ryno.Options{TablePrefix: s.prefix, Indexes: byDay(4)})
	require.NoError(t, err)
	page, err := gated.QueryIndexEntries(ctx, byDayIndex, indexing.Between(indexing.String("2026-12-03"), indexing.String("2026-12-09")), ryno.PageOptions{Limit: 5})
	require.NoError(t, err)
	require.Len(t, page.Items, 5)
	require.NotEmpty(t, page.Cursor)
	require.Equal(t, 4, s.counter.Count("Query"), "one Query a shard")
	require.True(t, gate.Opened(), "in one round")
	requireCheckFindsNothing(t, s.Client)
}

// sortedIDs returns the ids of es, sorted.
func sortedIDs(es []*ryno.Entity) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Key.ID)
	}
	slices.Sort(out)
	return out
}

// requireCheckFindsNothing runs a check of db: no orphan, no trace.
func requireCheckFindsNothing(t *testing.T, db *ryno.Client) {
	t.Helper()
	var found []string
	_, err := db.Check(ctx, ryno.CheckOptions{
		OnOrphan: func(o ryno.Orphan) { found = append(found, fmt.Sprint(o)) },
		OnTrace:  func(tr ryno.Trace) { found = append(found, fmt.Sprint(tr)) },
	})
	require.NoError(t, err)
	require.Empty(t, found, "check finds nothing")
}

// TestAnIndexBeingReshardedIsListedWhole moves an index written unsharded to 3
// shards, then to 5 (whose first three keys are those of 3), and back to none: while clients declare Resharding, every entity is
// listed once whichever layout its entries are in (half written by the new
// layout's clients, half not yet moved); once Reindex moved them all, clients that
// no longer declare it list every entity too.
func TestAnIndexBeingReshardedIsListedWhole(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreOpts(t, nil, ryno.Options{Indexes: byDay(0)})
	var want []string
	for i := range 30 {
		id := fmt.Sprintf("e%02d", i)
		want = append(want, id)
		_, err := s.Create(ctx, event(id, fmt.Sprintf("2026-12-%02d", 1+i%7)))
		require.NoError(t, err)
	}
	client := func(shards, resharding int) *ryno.Client {
		ix := byDay(shards)
		ix[0].Resharding = resharding
		db, err := ryno.New(s.counter, ryno.Options{TablePrefix: s.prefix, Indexes: ix})
		require.NoError(t, err)
		return db
	}
	for _, move := range []struct{ from, to int }{{1, 3}, {3, 5}, {5, 1}} {
		moving := client(move.to, move.from)
		for i := 0; i < 30; i += 2 { // half the entities written in the new layout
			k := ryno.Key{Scope: "acme", Type: "event", ID: want[i]}
			_, err := moving.Patch(ctx, k, ryno.Patch{Set: map[string]any{"day": fmt.Sprintf("2026-12-%02d", 1+(i+move.to)%7)}})
			require.NoError(t, err)
		}
		for _, limit := range []int{1, 4, 100} {
			require.Equal(t, want, sortedIDs(pageByDay(t, moving, indexing.All(), limit, false)), "%d to %d, both layouts, limit %d", move.from, move.to, limit)
		}
		_, err := moving.Reindex(ctx, ryno.Type{Scope: "acme", Name: "event"}, nil)
		require.NoError(t, err)
		require.Equal(t, want, sortedIDs(pageByDay(t, client(move.to, 0), indexing.All(), 4, false)), "%d to %d, moved", move.from, move.to)
		require.Equal(t, want, sortedIDs(pageByDay(t, client(move.to, 0), indexing.All(), 4, true)), "%d to %d, moved, descending", move.from, move.to)
		requireCheckFindsNothing(t, client(move.to, 0))
	}
}
