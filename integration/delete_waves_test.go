package integration_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// delayed returns api with every request held for d before it is sent, as a
// network farther away than loopback would.
func delayed(api ryno.DynamoDBAPI, d time.Duration) ryno.DynamoDBAPI {
	return dynamotest.Wrap(api, func(ctx context.Context, _ string, send func(context.Context) error) error {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return ctx.Err()
		}
		return send(ctx)
	})
}

// TestDeleteOfThousandsOfEdgesSendsItsTransactionsTogether deletes two entities of
// 1,000 edges out and 1,000 in each, at 10 ms of latency per request: one with
// MaxConcurrency 1, which sends its transactions one after another, and one with the
// default. The default's chain of requests, each sent after the one before it
// returned, must be at most a sixth as long (about an eighth: the sequential
// Delete's 55 waves against 6 or 7, as DynamoDB Local, which serializes writes on
// a loaded machine, staggers the parallel transactions).
func TestDeleteOfThousandsOfEdgesSendsItsTransactionsTogether(t *testing.T) {
	const edges = 1000
	s := newStoreWith(t, nil)
	hubs := []ryno.Key{pk("hub-sequential"), pk("hub-parallel")}
	objects, followers := pks("o", edges), pks("f", edges)
	for _, hub := range hubs {
		_, err := s.Set(ctx, &ryno.Entity{Key: hub}, ryno.ReplaceLists(map[string][]ryno.Key{"follows": objects}))
		require.NoError(t, err)
	}
	var g errgroup.Group
	g.SetLimit(16)
	for _, f := range followers {
		g.Go(func() error {
			_, err := s.Set(ctx, &ryno.Entity{Key: f}, ryno.ReplaceLists(map[string][]ryno.Key{"follows": hubs}))
			return err
		})
	}
	require.NoError(t, g.Wait())
	// The reverse index, which the Delete reads, is eventually consistent.
	require.Eventually(t, func() bool {
		return len(subjectsPointingAt(t, s.Client, hubs[1])) == edges
	}, 30*time.Second, 100*time.Millisecond)

	waves := make([]int, len(hubs))
	for i, concurrency := range []int{1, 0} {
		counter := dynamotest.NewCounter(delayed(s.raw, 10*time.Millisecond))
		db, err := ryno.New(counter, ryno.Options{TablePrefix: s.prefix, MaxConcurrency: concurrency})
		require.NoError(t, err)
		require.NoError(t, db.Delete(ctx, hubs[i]))
		waves[i] = counter.Depth()
		limit := max(concurrency, 32)
		require.LessOrEqual(t, counter.MaxInFlight(), limit, "MaxConcurrency bounds the requests in flight")
		t.Logf("MaxConcurrency %d: %d requests %v in %d waves", concurrency, counter.Total(), counter.Counts(), waves[i])
	}
	require.LessOrEqual(t, 6*waves[1], waves[0],
		"the default sends the transactions of a large Delete together: at most 1/6 of the waves of sequential chunks")

	for _, f := range followers[:50] {
		requireListExact(t, s, f, "follows")
		require.Empty(t, objectsOf(t, s.Client, f, "follows", 0))
	}
	for _, hub := range hubs {
		_, err := s.Get(ctx, hub)
		require.ErrorIs(t, err, ryno.ErrNotFound)
	}
	require.Zero(t, entryCount(t, s.raw, s.Names().Relationships), "no entry is left of either hub's edges")
}
