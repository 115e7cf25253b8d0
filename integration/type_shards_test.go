package integration_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

var tickets = ryno.Type{Scope: "acme", Name: "ticket"}

func ticket(id string, n int) *ryno.Entity {
	return &ryno.Entity{Key: ryno.Key{Scope: tickets.Scope, Type: tickets.Name, ID: id}, Attributes: map[string]any{"n": n}}
}

// shardedTickets declares tickets sharded over shards, moving from resharding.
func shardedTickets(shards, resharding int) []ryno.ShardedType {
	return []ryno.ShardedType{{Type: tickets.Name, Shards: shards, Resharding: resharding}}
}

// pageTickets pages through the tickets of db with limit, and returns them in
// the order listed.
func pageTickets(t *testing.T, db *ryno.Client, limit int, descending bool) []*ryno.Entity {
	t.Helper()
	return pageAll(t, ryno.PageOptions{Limit: limit, Descending: descending}, func(p ryno.PageOptions) (*ryno.Page[*ryno.Entity], error) {
		return db.ListByType(ctx, tickets, p)
	})
}

// ticketLayouts returns, by the by-type attributes each ticket item has, how
// many have them: "_updated" for the unsharded layout, the _type_shard otherwise.
func ticketLayouts(t *testing.T, s *store) map[string]int {
	t.Helper()
	out, err := s.raw.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(s.Names().Entities)})
	require.NoError(t, err)
	layouts := map[string]int{}
	for _, item := range out.Items {
		if typ, ok := item["_type"].(*types.AttributeValueMemberS); !ok || typ.Value != tickets.Name {
			continue
		}
		_, unsharded := item["_updated"]
		shard, sharded := item["_type_shard"].(*types.AttributeValueMemberS)
		_, shardUpdated := item["_shard_updated"]
		switch {
		case unsharded && !sharded && !shardUpdated:
			layouts["_updated"]++
		case sharded && shardUpdated && !unsharded:
			layouts[shard.Value]++
		default:
			t.Fatalf("an item in no layout or two: %v", item)
		}
	}
	return layouts
}

// TestAShardedTypeListsEveryEntityOnceInOrder lists a type spread over four
// partition keys while other writers create tickets and update others: every
// ticket neither created nor updated meanwhile comes exactly once, by update time
// both ways; a page is one Query a shard, in one round. The items leave the
// by-type index: none has _updated.
func TestAShardedTypeListsEveryEntityOnceInOrder(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreOpts(t, nil, ryno.Options{ShardedTypes: shardedTickets(4, 0)})
	const n = 60
	for i := range n {
		_, err := s.Create(ctx, ticket(fmt.Sprintf("t%03d", i), i))
		require.NoError(t, err)
	}
	layouts := ticketLayouts(t, s)
	require.Len(t, layouts, 4, "the tickets spread over four partition keys, none in the by-type index")
	for key, count := range layouts {
		require.Regexp(t, `^acme:ticket:[0-3]$`, key)
		require.Greater(t, count, 5, "shard %s holds a fair share", key)
	}

	for _, descending := range []bool{false, true} {
		for round := range 3 {
			var wg sync.WaitGroup
			changed := make(chan string, n)
			wg.Go(func() { // writers meanwhile: new tickets, and tickets updated
				for i := range 10 {
					_, err := s.Create(ctx, ticket(fmt.Sprintf("new-%v-%d-%02d", descending, round, i), 0))
					require.NoError(t, err)
					id := fmt.Sprintf("t%03d", (round*10+i)*7%n)
					changed <- id
					_, err = s.Patch(ctx, ryno.Key{Scope: tickets.Scope, Type: tickets.Name, ID: id}, ryno.Patch{Add: map[string]any{"n": 1}})
					require.NoError(t, err)
				}
			})
			got := pageTickets(t, s.Client, 1+round*3, descending)
			wg.Wait()
			close(changed)
			moved := map[string]bool{}
			for id := range changed {
				moved[id] = true
			}
			seen := map[string]int{}
			var last time.Time
			for _, e := range got {
				seen[e.Key.ID]++
				if moved[e.Key.ID] {
					continue // read at its new time, listed at its old one
				}
				require.True(t, last.IsZero() || e.Updated.Equal(last) || e.Updated.After(last) != descending,
					"in order of update: %s then %s", last, e.Updated)
				last = e.Updated
			}
			for i := range n {
				if id := fmt.Sprintf("t%03d", i); !moved[id] {
					require.Equal(t, 1, seen[id], "%s listed once", id)
				}
			}
		}
	}

	s.counter.Reset()
	gate := dynamotest.NewGate(s.counter, 4) // the four Queries in flight at once
	gated, err := ryno.New(gate, ryno.Options{TablePrefix: s.prefix, ShardedTypes: shardedTickets(4, 0)})
	require.NoError(t, err)
	page, err := gated.ListByType(ctx, tickets, ryno.PageOptions{Limit: 5})
	require.NoError(t, err)
	require.Len(t, page.Items, 5)
	require.NotEmpty(t, page.Cursor)
	require.Equal(t, map[string]int{"Query": 4}, s.counter.Counts(), "one Query a shard")
	require.True(t, gate.Opened(), "in one round")

	got, err := s.Get(ctx, page.Items[0].Key)
	require.NoError(t, err)
	require.Equal(t, page.Items[0].Updated, got.Updated, "a sharded entity reads its update time")
	require.False(t, got.Updated.IsZero())

	// Every way of writing an entity writes the type's layout.
	_, err = s.Transact(ctx, ryno.TxCreate(ticket("tx-create", 1)), ryno.TxSet(ticket("tx-set", 1)),
		ryno.TxPatch(ryno.Key{Scope: tickets.Scope, Type: tickets.Name, ID: "t001"}, ryno.Patch{Add: map[string]any{"n": 1}}))
	require.NoError(t, err)
	_, err = s.Set(ctx, ticket("t002", 99)) // without its version: in place
	require.NoError(t, err)
	_, err = s.Modify(ctx, ryno.Key{Scope: tickets.Scope, Type: tickets.Name, ID: "t003"}, func(e *ryno.Entity) error {
		e.Attributes["n"] = 100
		return nil
	})
	require.NoError(t, err)
	require.NotContains(t, ticketLayouts(t, s), "_updated", "no ticket in the by-type index")
	requireCheckFindsNothing(t, s.Client)
}

// TestATypeBeingReshardedIsListedWhole moves a type written unsharded to 3 shards,
// then to 5, then back to none: while clients declare Resharding, every entity is
// listed once whichever layout it is in (half written by the new layout's
// clients, half not yet moved); Reindex moves the others, and then clients that
// no longer declare it list every entity too, and every item is in the new
// layout.
func TestATypeBeingReshardedIsListedWhole(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreOpts(t, nil, ryno.Options{})
	var want []string
	for i := range 30 {
		id := fmt.Sprintf("t%02d", i)
		want = append(want, id)
		_, err := s.Create(ctx, ticket(id, i))
		require.NoError(t, err)
	}
	client := func(shards, resharding int) *ryno.Client {
		db, err := ryno.New(s.counter, ryno.Options{TablePrefix: s.prefix, Now: s.clock.Now, ShardedTypes: shardedTickets(shards, resharding)})
		require.NoError(t, err)
		return db
	}
	for _, move := range []struct{ from, to int }{{1, 3}, {3, 5}, {5, 1}} {
		moving := client(move.to, move.from)
		for i := 0; i < 30; i += 2 { // half the entities written in the new layout
			k := ryno.Key{Scope: tickets.Scope, Type: tickets.Name, ID: want[i]}
			_, err := moving.Patch(ctx, k, ryno.Patch{Add: map[string]any{"n": 1}})
			require.NoError(t, err)
		}
		for _, limit := range []int{1, 4, 100} {
			require.Equal(t, want, sortedIDs(pageTickets(t, moving, limit, false)), "%d to %d, both layouts, limit %d", move.from, move.to, limit)
		}
		done, err := moving.Reindex(ctx, tickets, nil)
		require.NoError(t, err)
		if move.from == 1 || move.to == 1 {
			require.Equal(t, 15, done.Moved, "%d to %d: Reindex moves the entities no write moved", move.from, move.to)
		} else { // an entity whose shard is the same in both counts stays
			require.True(t, done.Moved > 0 && done.Moved <= 15, "%d to %d: %d moved", move.from, move.to, done.Moved)
		}
		s.counter.Reset()
		again, err := moving.Reindex(ctx, tickets, nil)
		require.NoError(t, err)
		require.Zero(t, again.Moved, "once moved, nothing moves")
		require.Equal(t, map[string]int{"Query": s.counter.Count("Query")}, s.counter.Counts(), "and nothing is written")

		layouts := ticketLayouts(t, s)
		if move.to == 1 {
			require.Equal(t, map[string]int{"_updated": 30}, layouts)
		} else {
			require.Len(t, layouts, move.to, "every shard of %d holds tickets", move.to)
			for key := range layouts {
				require.Regexp(t, fmt.Sprintf(`^acme:ticket:[0-%d]$`, move.to-1), key)
			}
		}
		moved := client(move.to, 0)
		first, err := moving.ListByType(ctx, tickets, ryno.PageOptions{Limit: 4})
		require.NoError(t, err)
		_, err = moved.ListByType(ctx, tickets, ryno.PageOptions{Limit: 4, Cursor: first.Cursor})
		if move.from == 1 || move.to == 1 { // the unsharded key is read by one client only
			require.ErrorIs(t, err, ryno.ErrInvalidCursor, "%d to %d: a cursor of other partition keys", move.from, move.to)
		} else {
			require.NoError(t, err, "%d to %d: the same partition keys", move.from, move.to)
		}
		require.Equal(t, want, sortedIDs(pageTickets(t, moved, 4, false)), "%d to %d, moved", move.from, move.to)
		desc := pageTickets(t, moved, 4, true)
		require.Equal(t, want, sortedIDs(desc), "%d to %d, moved, descending", move.from, move.to)
		for i := 1; i < len(desc); i++ {
			require.False(t, desc[i].Updated.After(desc[i-1].Updated), "newest first")
		}
		requireCheckFindsNothing(t, moved)
	}
}
