package integration_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

var star = ryno.Key{Scope: "acme", Type: "person", ID: "star"}

// shardedPeople declares the entries pointing at people sharded over shards,
// moving from resharding.
func shardedPeople(shards, resharding int) []ryno.ShardedType {
	return []ryno.ShardedType{{Type: "person", Shards: shards, Resharding: resharding}}
}

// incomingLayouts returns, by the partition key each entry pointing at star is
// under, how many are: "_object_key" for the reverse index, the _object_shard
// otherwise.
func incomingLayouts(t *testing.T, s *store) map[string]int {
	t.Helper()
	out, err := s.raw.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(s.Names().Relationships)})
	require.NoError(t, err)
	layouts := map[string]int{}
	for _, item := range out.Items {
		if id, ok := item["_object_id"].(*types.AttributeValueMemberS); !ok || id.Value != star.ID || item["_reverse_key"] == nil {
			continue // not an entry pointing at star (a list's marker has no _reverse_key)
		}
		key, unsharded := item["_object_key"].(*types.AttributeValueMemberS)
		shard, sharded := item["_object_shard"].(*types.AttributeValueMemberS)
		switch {
		case unsharded && !sharded:
			require.Equal(t, star.String(), key.Value)
			layouts["_object_key"]++
		case sharded && !unsharded:
			layouts[shard.Value]++
		default:
			t.Fatalf("an entry in no layout or two: %v", item)
		}
	}
	return layouts
}

// pageFollowers pages through who follows star, as db lists it with limit.
func pageFollowers(t *testing.T, db *ryno.Client, predicate string, limit int, descending bool) []string {
	t.Helper()
	var got []string
	for _, r := range pageAll(t, ryno.PageOptions{Limit: limit, Descending: descending}, func(p ryno.PageOptions) (*ryno.Page[ryno.Relationship], error) {
		return db.ReverseRelationships(ctx, star, predicate, p)
	}) {
		got = append(got, r.Predicate+" "+r.Subject.ID)
	}
	return got
}

// starAndFans creates star and n people who may follow it, and returns their ids.
func starAndFans(t *testing.T, db *ryno.Client, n int) []string {
	t.Helper()
	_, err := db.Create(ctx, person(star.ID, nil))
	require.NoError(t, err)
	var ids []string
	for i := range n {
		ids = append(ids, fmt.Sprintf("f%02d", i))
		_, err := db.Create(ctx, person(ids[i], nil))
		require.NoError(t, err)
	}
	return ids
}

// followStar makes each of the people named follow star (a set) and like it
// (a list), through db.
func followStar(t *testing.T, db *ryno.Client, ids ...string) {
	t.Helper()
	for _, id := range ids {
		k := ryno.Key{Scope: star.Scope, Type: star.Type, ID: id}
		_, err := db.AddRelationships(ctx, k, "follows", []ryno.Key{star})
		require.NoError(t, err)
		_, err = db.AddRelationships(ctx, k, "likes", []ryno.Key{star})
		require.NoError(t, err)
	}
}

// TestShardedIncomingEntriesAreListedOnceInOrder spreads the entries pointing at
// people over four partition keys: they leave the reverse index, and
// ReverseRelationships lists every one once, in the reverse index's order, with
// paging both ways, one Query a shard in one round; a Delete of the entity they
// point at finds and deletes them all.
func TestShardedIncomingEntriesAreListedOnceInOrder(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreOpts(t, nil, ryno.Options{Sets: []string{"follows"}, ShardedIncoming: shardedPeople(4, 0)})
	ids := starAndFans(t, s.Client, 30)
	followStar(t, s.Client, ids...)
	layouts := incomingLayouts(t, s)
	require.Len(t, layouts, 4, "60 entries over four partition keys, none in the reverse index")
	for key := range layouts {
		require.Regexp(t, `^acme:person:star:[0-3]$`, key)
	}

	var follows, all []string
	for _, id := range ids {
		follows = append(follows, "follows "+id)
	}
	for _, p := range []string{"follows", "likes"} {
		for _, id := range ids {
			all = append(all, p+" "+id)
		}
	}
	for _, limit := range []int{1, 4, 7, 100} {
		require.Equal(t, follows, pageFollowers(t, s.Client, "follows", limit, false), "limit %d", limit)
		require.Equal(t, all, pageFollowers(t, s.Client, "", limit, false), "every predicate, limit %d", limit)
		desc := pageFollowers(t, s.Client, "", limit, true)
		slices.Reverse(desc)
		require.Equal(t, all, desc, "descending, limit %d", limit)
	}

	s.counter.Reset()
	page, err := s.ReverseRelatedEntities(ctx, star, "follows", ryno.PageOptions{Limit: 5})
	require.NoError(t, err)
	require.Len(t, page.Items, 5)
	require.Equal(t, ids[0], page.Items[0].Key.ID)
	require.Equal(t, 4, s.counter.Count("Query"), "one Query a shard")
	gate := dynamotest.NewGate(s.counter, 4) // the four Queries in flight at once
	gated, err := ryno.New(gate, ryno.Options{TablePrefix: s.prefix, Sets: []string{"follows"}, ShardedIncoming: shardedPeople(4, 0)})
	require.NoError(t, err)
	_, err = gated.ReverseRelationships(ctx, star, "follows", ryno.PageOptions{Limit: 5})
	require.NoError(t, err)
	require.True(t, gate.Opened(), "in one round")

	require.NoError(t, s.Delete(ctx, star))
	require.Empty(t, incomingLayouts(t, s), "the Delete swept every shard")
	for _, id := range ids[:3] {
		rels, err := s.Relationships(ctx, ryno.Key{Scope: star.Scope, Type: star.Type, ID: id}, ryno.AllPredicates, ryno.PageOptions{})
		require.NoError(t, err)
		require.Empty(t, rels.Items, "%s's lists lost star", id)
	}
	requireCheckFindsNothing(t, s.Client)
}

// TestIncomingBeingReshardedIsListedWhole moves the entries pointing at people
// from the reverse index to 4 shards, then to 6, then back: while clients declare
// Resharding, ReverseRelationships lists every entry once, whichever layout it is
// in; check with Repair moves the others, and then clients that no longer declare
// it list every entry too.
func TestIncomingBeingReshardedIsListedWhole(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreOpts(t, nil, ryno.Options{Sets: []string{"follows"}})
	ids := starAndFans(t, s.Client, 30)
	followStar(t, s.Client, ids[:10]...)
	client := func(shards, resharding int) *ryno.Client {
		db, err := ryno.New(s.counter, ryno.Options{TablePrefix: s.prefix, Now: s.clock.Now, Sets: []string{"follows"}, ShardedIncoming: shardedPeople(shards, resharding)})
		require.NoError(t, err)
		return db
	}
	written := 10
	for _, move := range []struct{ from, to int }{{1, 4}, {4, 6}, {6, 1}} {
		moving := client(move.to, move.from)
		followStar(t, moving, ids[written:written+5]...) // new edges in the new layout
		written += 5
		var want []string
		for _, p := range []string{"follows", "likes"} {
			for _, id := range ids[:written] {
				want = append(want, p+" "+id)
			}
		}
		for _, limit := range []int{1, 4, 100} {
			require.Equal(t, want, pageFollowers(t, moving, "", limit, false), "%d to %d, both layouts, limit %d", move.from, move.to, limit)
		}

		var moved int
		res, err := moving.Check(ctx, ryno.CheckOptions{Repair: true, OnTrace: func(tr ryno.Trace) {
			require.Equal(t, ryno.TraceUnindexed, tr.Kind, "%v", tr)
			moved++
		}})
		require.NoError(t, err)
		require.Positive(t, moved, "%d to %d: check finds the entries to move", move.from, move.to)
		require.Equal(t, moved, res.Finished, "and moves them")

		layouts := incomingLayouts(t, s)
		if move.to == 1 {
			require.Equal(t, map[string]int{"_object_key": 2 * written}, layouts)
		} else {
			require.Len(t, layouts, move.to, "every shard of %d holds entries", move.to)
		}
		moved0 := client(move.to, 0)
		require.Equal(t, want, pageFollowers(t, moved0, "", 4, false), "%d to %d, moved", move.from, move.to)
		requireCheckFindsNothing(t, moved0)
	}
}
