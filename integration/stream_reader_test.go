package integration_test

import (
	"context"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/changes"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// streamReaderRun is one run of a Reader of the store's entities stream, in the
// background, collecting the changes it hands.
type streamReaderRun struct {
	mu      sync.Mutex
	changes []changes.Change
	cancel  context.CancelFunc
	done    chan error
}

// startStreamReader starts a Reader of s's entities stream whose checkpoints are
// kept in the entity cp, as a new process would.
func startStreamReader(t *testing.T, s *store, cp ryno.Key) *streamReaderRun {
	t.Helper()
	checkpoints, err := changes.CheckpointsIn(s.Client, cp)
	require.NoError(t, err)
	reader, err := changes.NewReader(dynamotest.Streams(s.raw), s.raw, changes.ReaderOptions{
		Table: s.Names().Entities, Checkpoints: checkpoints, Poll: 20 * time.Millisecond,
	})
	require.NoError(t, err)
	d, err := changes.NewDecoder(s.Names().Prefix)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	run := &streamReaderRun{cancel: cancel, done: make(chan error, 1)}
	go func() {
		run.done <- reader.Run(ctx, changes.Changes(d, func(_ context.Context, cs []changes.Change) error {
			run.mu.Lock()
			defer run.mu.Unlock()
			run.changes = append(run.changes, cs...)
			return nil
		}))
	}()
	return run
}

// stopAfter waits until the run has handed n changes and checkpointed the last, then
// stops it and returns the changes, as strings.
func (run *streamReaderRun) stopAfter(t *testing.T, s *store, cp ryno.Key, n int) []string {
	t.Helper()
	var got []changes.Change
	require.Eventually(t, func() bool {
		run.mu.Lock()
		got = slices.Clone(run.changes)
		run.mu.Unlock()
		if len(got) < n {
			return false
		}
		e, err := s.Get(ctx, cp, ryno.Consistent())
		return err == nil && slices.ContainsFunc(slices.Collect(maps.Values(e.Attributes)), func(v any) bool {
			return sequenceAtLeast(v, got[len(got)-1].SequenceNumber)
		})
	}, 60*time.Second, 20*time.Millisecond, "the reader hands %d changes and checkpoints the last", n)
	run.cancel()
	require.NoError(t, <-run.done)
	var out []string
	for _, c := range got {
		require.NotEqual(t, cp, c.Key, "the checkpoint's own writes are not handed")
		out = append(out, fmt.Sprintf("%s %s", c.Kind, c.Key.ID))
	}
	return out
}

// sequenceAtLeast reports whether the checkpoint v is the sequence number seq or
// one after it (the last record of a batch may be bookkeeping, or the checkpoint's).
func sequenceAtLeast(v any, seq string) bool {
	s, _ := v.(string)
	a, ok1 := new(big.Int).SetString(s, 10)
	b, ok2 := new(big.Int).SetString(seq, 10)
	return ok1 && ok2 && a.Cmp(b) >= 0
}

// TestAStreamReaderHandsEachChangeAndGoesOnAfterARestart reads the entities stream
// with its checkpoints in the store, stops, and starts again as a new process: the
// second run hands only what was written since.
func TestAStreamReaderHandsEachChangeAndGoesOnAfterARestart(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreOpts(t, nil, ryno.Options{})
	dynamotest.EnableStream(t, s.raw, s.Names().Entities)
	cp := ryno.Key{Scope: "ops", Type: "stream-checkpoint", ID: "search-indexer"}

	run := startStreamReader(t, s, cp)
	for i := range 5 {
		_, err := s.Create(ctx, person(fmt.Sprintf("p%d", i), map[string]any{"i": i}))
		require.NoError(t, err)
	}
	first := run.stopAfter(t, s, cp, 5)
	require.Equal(t, []string{"entity-created p0", "entity-created p1", "entity-created p2", "entity-created p3", "entity-created p4"}, first)

	_, err := s.Patch(ctx, person("p1", nil).Key, ryno.Patch{Set: map[string]any{"i": 10}})
	require.NoError(t, err)
	require.NoError(t, s.Delete(ctx, person("p2", nil).Key))
	_, err = s.Create(ctx, person("p5", map[string]any{"i": 5}))
	require.NoError(t, err)

	second := startStreamReader(t, s, cp).stopAfter(t, s, cp, 4)
	require.Equal(t, []string{"entity-updated p1", "entity-deleting p2", "entity-deleted p2", "entity-created p5"}, second,
		"only what was written since the first run stopped")
}
