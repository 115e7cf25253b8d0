package lists

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// item is a call's kind and its number.
type item struct {
	kind string
	n    int
}

func newQueue() *queue[string, item, string] {
	return &queue[string, item, string]{Same: func(a, b item) bool { return a.kind == b.kind }}
}

// recorder is a Write that records each batch and answers each item with its
// number; while gate is not nil, a write waits for it.
type recorder struct {
	mu      sync.Mutex
	batches [][]item
	gate    chan struct{}
	started chan struct{} // receives when a write starts, when not nil
	fail    error
}

func (r *recorder) write(_ context.Context, items []item) ([]string, error) {
	if r.started != nil {
		r.started <- struct{}{}
	}
	if r.gate != nil {
		<-r.gate
	}
	r.mu.Lock()
	r.batches = append(r.batches, slices.Clone(items))
	r.mu.Unlock()
	if r.fail != nil {
		return nil, r.fail
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = fmt.Sprintf("%s%d", it.kind, it.n)
	}
	return out, nil
}

func TestACallAloneIsWrittenAlone(t *testing.T) {
	q, r := newQueue(), &recorder{}
	got, err := q.Do(context.Background(), "list", item{"add", 1}, r.write)
	require.NoError(t, err)
	require.Equal(t, "add1", got)
	require.Equal(t, [][]item{{{"add", 1}}}, r.batches)
	require.Empty(t, q.queues, "an idle key leaves no queue")
}

// TestCallsQueuedBehindAWriteGoInTheNextBatch holds the first write until the
// other calls have queued, in a known order: the next batches are the runs of one
// kind, in queue order, and each call gets its own result.
func TestCallsQueuedBehindAWriteGoInTheNextBatch(t *testing.T) {
	q := newQueue()
	r := &recorder{gate: make(chan struct{}), started: make(chan struct{}, 10)}
	results := make([]string, 6)
	var wg sync.WaitGroup
	do := func(i int, it item) {
		wg.Go(func() {
			var err error
			results[i], err = q.Do(context.Background(), "list", it, r.write)
			require.NoError(t, err)
		})
	}
	do(0, item{"add", 0})
	<-r.started // the first call writes, alone
	queued := []item{{"add", 1}, {"add", 2}, {"remove", 3}, {"add", 4}, {"add", 5}}
	for i, it := range queued {
		do(i+1, it)
		require.Eventually(t, func() bool {
			q.mu.Lock()
			defer q.mu.Unlock()
			return len(q.queues["list"]) == i+1 // the writing call left the queue
		}, 5*time.Second, time.Millisecond, "call %d queued", i+1)
	}
	go func() {
		for range r.started {
			r.gate <- struct{}{}
		}
	}()
	r.gate <- struct{}{}
	wg.Wait()
	close(r.started)
	require.Equal(t, [][]item{
		{{"add", 0}},
		{{"add", 1}, {"add", 2}},
		{{"remove", 3}},
		{{"add", 4}, {"add", 5}},
	}, r.batches)
	require.Equal(t, []string{"add0", "add1", "add2", "remove3", "add4", "add5"}, results)
}

func TestAFailedBatchFailsEachOfItsCalls(t *testing.T) {
	q := newQueue()
	boom := errors.New("boom")
	r := &recorder{fail: boom}
	_, err := q.Do(context.Background(), "list", item{"add", 1}, r.write)
	require.ErrorIs(t, err, boom)
	_, err = q.Do(context.Background(), "list", item{"add", 2}, func(context.Context, []item) ([]string, error) { return nil, nil })
	require.ErrorContains(t, err, "1 calls was written with 0 results", "a write that loses a result fails the batch")
}

// TestACallWhoseContextEndsWhileWaitingIsNeverWritten cancels a queued call while
// the write ahead of it holds the key.
func TestACallWhoseContextEndsWhileWaitingIsNeverWritten(t *testing.T) {
	q := newQueue()
	r := &recorder{gate: make(chan struct{}), started: make(chan struct{}, 1)}
	var wg sync.WaitGroup
	wg.Go(func() {
		_, err := q.Do(context.Background(), "list", item{"add", 1}, r.write)
		require.NoError(t, err)
	})
	<-r.started
	ctx, cancel := context.WithCancel(context.Background())
	waited := make(chan error)
	go func() {
		_, err := q.Do(ctx, "list", item{"add", 2}, r.write)
		waited <- err
	}()
	require.Eventually(t, func() bool {
		q.mu.Lock()
		defer q.mu.Unlock()
		return len(q.queues["list"]) == 1
	}, 5*time.Second, time.Millisecond)
	cancel()
	require.ErrorIs(t, <-waited, context.Canceled)
	r.gate <- struct{}{}
	wg.Wait()
	require.Equal(t, [][]item{{{"add", 1}}}, r.batches, "the withdrawn call was never written")
	require.Empty(t, q.queues)
}

// TestManyCallsAreEachWrittenOnce runs rounds of goroutines released together on a
// few keys: every item is written exactly once, and on its own key.
func TestManyCallsAreEachWrittenOnce(t *testing.T) {
	const rounds, callers = 20, 32
	for round := range rounds {
		q := newQueue()
		var mu sync.Mutex
		written := map[string][]int{}
		var writes atomic.Int64
		write := func(key string) batchWrite[item, string] {
			return func(_ context.Context, items []item) ([]string, error) {
				writes.Add(1)
				mu.Lock()
				defer mu.Unlock()
				out := make([]string, len(items))
				for i, it := range items {
					written[key] = append(written[key], it.n)
					out[i] = fmt.Sprint(it.n)
				}
				return out, nil
			}
		}
		start := make(chan struct{})
		var wg sync.WaitGroup
		for n := range callers {
			key := fmt.Sprint("list", n%3)
			kind := []string{"add", "remove"}[n%2]
			wg.Go(func() {
				<-start
				got, err := q.Do(context.Background(), key, item{kind, n}, write(key))
				require.NoError(t, err)
				require.Equal(t, fmt.Sprint(n), got)
			})
		}
		close(start)
		wg.Wait()
		var all []int
		for key, ns := range written {
			for _, n := range ns {
				require.Equal(t, fmt.Sprint("list", n%3), key, "round %d: call %d written on its own key", round, n)
			}
			all = append(all, ns...)
		}
		slices.Sort(all)
		require.Len(t, all, callers, "round %d", round)
		require.Equal(t, callers-1, all[len(all)-1])
		require.Equal(t, 0, all[0])
		require.Len(t, slices.Compact(all), callers, "round %d: each call once", round)
		require.LessOrEqual(t, writes.Load(), int64(callers))
		require.Empty(t, q.queues, "round %d: every key idle again", round)
	}
}

// holdKey starts a call on key "list" whose write waits until released: calls made
// meanwhile queue behind it. release lets it finish.
func holdKey(t *testing.T, q *queue[string, item, string]) (release func()) {
	t.Helper()
	r := &recorder{gate: make(chan struct{}), started: make(chan struct{}, 1)}
	first := make(chan error, 1)
	go func() { _, err := q.Do(context.Background(), "list", item{"hold", 0}, r.write); first <- err }()
	<-r.started
	return func() {
		r.gate <- struct{}{}
		require.NoError(t, <-first)
	}
}

// awaitQueued waits until n calls wait on key "list".
func awaitQueued(t *testing.T, q *queue[string, item, string], n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		q.mu.Lock()
		defer q.mu.Unlock()
		return len(q.queues["list"]) == n
	}, 5*time.Second, time.Millisecond)
}

// TestACallWhoseContextHasEndedWhenItsTurnComesIsNeverWritten gives an idle key a
// call whose context has already ended: it returns ctx.Err() and writes nothing,
// and the key serves the next call.
func TestACallWhoseContextHasEndedWhenItsTurnComesIsNeverWritten(t *testing.T) {
	q, r := newQueue(), &recorder{}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := q.Do(ctx, "list", item{"add", 1}, r.write)
	require.ErrorIs(t, err, context.Canceled)
	require.Empty(t, r.batches, "nothing written")
	require.Empty(t, q.queues)
	got, err := q.Do(context.Background(), "list", item{"add", 2}, r.write)
	require.NoError(t, err)
	require.Equal(t, "add2", got)
}

// TestABatchIsWrittenUntilEveryCallOfItHasEnded checks the context of a batch's
// write: a lone call's deadline reaches its write; in a batch of two, the leader's
// cancellation alone does not, and both together do.
func TestABatchIsWrittenUntilEveryCallOfItHasEnded(t *testing.T) {
	waitForEnd := func(ctx context.Context, items []item) ([]string, error) {
		if _, ok := ctx.Deadline(); !ok {
			return nil, errors.New("the write has no deadline")
		}
		<-ctx.Done()
		return nil, ctx.Err()
	}
	t.Run("alone", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		_, err := newQueue().Do(ctx, "list", item{"add", 1}, waitForEnd)
		require.ErrorIs(t, err, context.DeadlineExceeded)
	})
	t.Run("in a batch with deadlines", func(t *testing.T) {
		q := newQueue()
		release := holdKey(t, q)
		results := make(chan error, 2)
		start := time.Now()
		for i, d := range []time.Duration{20 * time.Millisecond, 200 * time.Millisecond} {
			ctx, cancel := context.WithTimeout(context.Background(), d)
			defer cancel()
			go func() { _, err := q.Do(ctx, "list", item{"add", i + 1}, waitForEnd); results <- err }()
		}
		awaitQueued(t, q, 2)
		release()
		for range 2 {
			require.ErrorIs(t, <-results, context.DeadlineExceeded, "the batch ends at the latest deadline")
		}
		require.GreaterOrEqual(t, time.Since(start), 200*time.Millisecond)
	})
	t.Run("in a batch", func(t *testing.T) {
		q := newQueue()
		release := holdKey(t, q) // the next two calls queue behind it and go in one batch
		ctxs := make([]context.Context, 2)
		cancels := make([]context.CancelFunc, 2)
		results := make(chan error, 2)
		var ended atomic.Bool
		for i := range ctxs {
			ctxs[i], cancels[i] = context.WithCancel(context.Background())
			go func() {
				_, err := q.Do(ctxs[i], "list", item{"add", i + 1}, func(ctx context.Context, items []item) ([]string, error) {
					cancels[0]() // the leader's own context ends
					select {
					case <-ctx.Done():
						require.True(t, ended.Load(), "the write ended before the follower's context did")
						return nil, context.Cause(ctx)
					case <-time.After(50 * time.Millisecond):
					}
					ended.Store(true)
					cancels[1]()
					<-ctx.Done()
					return nil, context.Cause(ctx)
				})
				results <- err
			}()
		}
		awaitQueued(t, q, 2)
		release()
		for range 2 {
			require.ErrorIs(t, <-results, context.Canceled)
		}
		require.True(t, ended.Load())
	})
}

// TestAWriteThatPanicsFailsItsBatchAndFreesTheKey makes a batch's write panic: the
// other call of the batch gets an error instead of waiting for ever, the panic goes
// on in the leader, and the key serves the next call.
func TestAWriteThatPanicsFailsItsBatchAndFreesTheKey(t *testing.T) {
	q := newQueue()
	release := holdKey(t, q)
	boom := func(context.Context, []item) ([]string, error) { panic("boom") }
	results := make(chan any, 2)
	for i := 1; i <= 2; i++ {
		go func() {
			defer func() {
				if p := recover(); p != nil {
					results <- p
				}
			}()
			_, err := q.Do(context.Background(), "list", item{"add", i}, boom)
			results <- err
		}()
	}
	awaitQueued(t, q, 2)
	release()
	got := []any{<-results, <-results}
	require.Contains(t, got, any("boom"), "the leader panics")
	var failed error
	for _, g := range got {
		if err, ok := g.(error); ok {
			failed = err
		}
	}
	require.ErrorContains(t, failed, "panicked: boom", "the follower fails")
	require.Empty(t, q.queues)
	out, err := q.Do(context.Background(), "list", item{"add", 3}, (&recorder{}).write)
	require.NoError(t, err)
	require.Equal(t, "add3", out)
}

// TestAWriteThatNeverReturnsStillFreesTheKey ends a write with runtime.Goexit, as
// t.FailNow does: the key serves the next call.
func TestAWriteThatNeverReturnsStillFreesTheKey(t *testing.T) {
	q := newQueue()
	done := make(chan struct{})
	go func() {
		defer close(done)
		q.Do(context.Background(), "list", item{"add", 1}, func(context.Context, []item) ([]string, error) {
			runtime.Goexit()
			return nil, nil
		})
	}()
	<-done
	require.Empty(t, q.queues, "the key is free")
	got, err := q.Do(context.Background(), "list", item{"add", 2}, (&recorder{}).write)
	require.NoError(t, err)
	require.Equal(t, "add2", got)
}
