package integration_test

import (
	"cmp"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// modelRate is the rate, in calls a second, at which the partition model plays its
// workloads: each call's writes are spread over calls / modelRate seconds.
const modelRate = 5000

// partitionLimit is what DynamoDB serves on one partition key, in WCU a second.
const partitionLimit = 1000

// modelStore is a client on fresh tables whose requests a Recorder keeps, with the
// images the partition model needs.
func modelStore(t *testing.T, opts ryno.Options) (*ryno.Client, *dynamotest.Recorder) {
	t.Helper()
	raw := dynamotest.API(t)
	opts.TablePrefix = dynamotest.Tables(t, raw)
	rec := dynamotest.NewRecorder(raw, dynamotest.RecorderOptions{Images: true})
	db, err := ryno.New(rec, opts)
	require.NoError(t, err)
	return db, rec
}

// hottest plays what rec recorded of calls at modelRate, logs its three hottest
// partition keys, and returns the hottest with its WCU a second.
func hottest(t *testing.T, name string, rec *dynamotest.Recorder, calls int) (dynamotest.KeyLoad, float64) {
	t.Helper()
	loads, err := rec.PartitionLoad()
	require.NoError(t, err)
	require.NotEmpty(t, loads)
	seconds := float64(calls) / modelRate
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %d calls at %d a second:", name, calls, modelRate)
	for _, l := range loads[:min(3, len(loads))] {
		arm := cmp.Or(l.Index, l.Table)
		fmt.Fprintf(&b, "\n  %s %s: %.0f WCU/s, rising sort key: %v", arm, l.Key, l.Write/seconds, l.Rising)
	}
	t.Log(b.String())
	return loads[0], loads[0].Write / seconds
}

// requireSpread logs the hottest keys of what rec recorded of calls, and checks
// that every key stays under DynamoDB's limit, that the GSI left takes none of
// the writes, and that the GSI sharded takes them on its n keys.
func requireSpread(t *testing.T, name string, rec *dynamotest.Recorder, calls int, left, sharded string, n int) {
	t.Helper()
	_, rate := hottest(t, name, rec, calls)
	require.Less(t, rate, float64(partitionLimit), "every partition key, of every table and GSI")
	loads, err := rec.PartitionLoad()
	require.NoError(t, err)
	keys := 0
	for _, l := range loads {
		require.NotEqual(t, left, l.Index, "the writes leave %s", left)
		if l.Index == sharded {
			keys++
		}
	}
	require.Equal(t, n, keys, "the writes spread over the %d keys of %s", n, sharded)
}

// TestPartitionModelShowsTodaysHotKeys plays workloads through the client and a
// model of DynamoDB's partitions: updates of one type, entities with a
// time-ordered index value, and new incoming edges of one entity. Each lands on
// one partition key of a GSI, past DynamoDB's 1,000 WCU a second at 5,000 calls a
// second, with a rising sort key where DynamoDB cannot split it; a sharded type,
// a sharded index and sharded incoming entries keep every key under it.
func TestPartitionModelShowsTodaysHotKeys(t *testing.T) {
	dynamotest.Parallel(t)
	const calls = 200

	t.Run("updates of one type", func(t *testing.T) {
		db, rec := modelStore(t, ryno.Options{})
		for i := range 20 {
			_, err := db.Create(ctx, person(fmt.Sprintf("p%02d", i), map[string]any{"n": 0}))
			require.NoError(t, err)
		}
		rec.Reset()
		for i := range calls {
			_, err := db.Patch(ctx, person(fmt.Sprintf("p%02d", i%20), nil).Key, ryno.Patch{Add: map[string]any{"n": 1}})
			require.NoError(t, err)
		}
		hot, rate := hottest(t, "updates of one type", rec, calls)
		require.Equal(t, db.Names().EntitiesByType, hot.Index, "the by-type index's key of the type")
		require.True(t, hot.Rising, "_updated only grows: the partition cannot split")
		require.Greater(t, rate, float64(partitionLimit))
	})

	t.Run("updates of one type over 32 shards", func(t *testing.T) {
		const people = 640 // each updated once: the type's updates, not one entity's
		db, rec := modelStore(t, ryno.Options{ShardedTypes: []ryno.ShardedType{{Type: "person", Shards: 32}}})
		for i := range people {
			_, err := db.Create(ctx, person(fmt.Sprintf("p%03d", i), map[string]any{"n": 0}))
			require.NoError(t, err)
		}
		rec.Reset()
		for i := range people {
			_, err := db.Patch(ctx, person(fmt.Sprintf("p%03d", i), nil).Key, ryno.Patch{Add: map[string]any{"n": 1}})
			require.NoError(t, err)
		}
		requireSpread(t, "updates of one type over 32 shards", rec, people, db.Names().EntitiesByType, db.Names().EntitiesByTypeShard, 32)
	})

	t.Run("a time-ordered index", func(t *testing.T) {
		emitAt := func(e *ryno.Entity, emit func(indexing.Value)) {
			at, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(e.Attributes["at"]))
			emit(indexing.Time(at))
		}
		db, rec := modelStore(t, ryno.Options{Indexes: []ryno.Index{{Type: "event", Name: "by-time", Map: emitAt}}})
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		rec.Reset()
		for i := range calls {
			_, err := db.Create(ctx, &ryno.Entity{Key: ryno.Key{Scope: "acme", Type: "event", ID: fmt.Sprintf("e%04d", i)},
				Attributes: map[string]any{"at": start.Add(time.Duration(i) * time.Millisecond).Format(time.RFC3339Nano)}})
			require.NoError(t, err)
		}
		hot, rate := hottest(t, "a time-ordered index", rec, calls)
		require.Contains(t, []string{db.Names().EntitiesByType, db.Names().IndexLookup}, hot.Index)
		require.True(t, hot.Rising)
		require.Greater(t, rate, float64(partitionLimit))
		loads, err := rec.PartitionLoad()
		require.NoError(t, err)
		var lookup dynamotest.KeyLoad
		for _, l := range loads {
			if l.Index == db.Names().IndexLookup {
				lookup = l
				break
			}
		}
		require.True(t, lookup.Rising, "the index's values only grow")
		require.Greater(t, lookup.Write/(float64(calls)/modelRate), float64(partitionLimit), "one key of the lookup index")
	})

	t.Run("a time-ordered index over 8 shards", func(t *testing.T) {
		db, rec := modelStore(t, ryno.Options{Indexes: byDay(8)})
		rec.Reset()
		for i := range calls {
			_, err := db.Create(ctx, event(fmt.Sprintf("e%04d", i), fmt.Sprintf("2026-12-06T%02d:%02d", i/60, i%60)))
			require.NoError(t, err)
		}
		hottest(t, "a time-ordered index over 8 shards", rec, calls)
		loads, err := rec.PartitionLoad()
		require.NoError(t, err)
		keys := 0
		for _, l := range loads {
			if l.Index == db.Names().IndexLookup {
				keys++
				require.Less(t, l.Write/(float64(calls)/modelRate), float64(partitionLimit), "each shard's key of the lookup index: %s", l.Key)
			}
		}
		require.Equal(t, 8, keys, "the index's writes spread over its 8 keys")
	})

	t.Run("incoming edges of one entity", func(t *testing.T) {
		db, rec := modelStore(t, ryno.Options{Sets: []string{"follows"}})
		star := person("star", nil)
		_, err := db.Create(ctx, star)
		require.NoError(t, err)
		for i := range calls {
			_, err := db.Create(ctx, person(fmt.Sprintf("f%04d", i), nil))
			require.NoError(t, err)
		}
		rec.Reset()
		for i := range calls {
			_, err := db.AddRelationships(ctx, person(fmt.Sprintf("f%04d", i), nil).Key, "follows", []ryno.Key{star.Key})
			require.NoError(t, err)
		}
		hot, rate := hottest(t, "incoming edges of one entity", rec, calls)
		require.Equal(t, db.Names().ReverseRelationships, hot.Index, "the reverse index's key of the star")
		require.Greater(t, rate, float64(partitionLimit))
	})

	t.Run("incoming edges of one entity over 16 shards", func(t *testing.T) {
		const followers = 640
		db, rec := modelStore(t, ryno.Options{Sets: []string{"follows"}, ShardedIncoming: []ryno.ShardedType{{Type: "person", Shards: 16}}})
		star := person("star", nil)
		_, err := db.Create(ctx, star)
		require.NoError(t, err)
		for i := range followers {
			_, err := db.Create(ctx, person(fmt.Sprintf("f%04d", i), nil))
			require.NoError(t, err)
		}
		rec.Reset()
		for i := range followers {
			_, err := db.AddRelationships(ctx, person(fmt.Sprintf("f%04d", i), nil).Key, "follows", []ryno.Key{star.Key})
			require.NoError(t, err)
		}
		requireSpread(t, "incoming edges of one entity over 16 shards", rec, followers, db.Names().ReverseRelationships, db.Names().IncomingShard, 16)
	})
}
