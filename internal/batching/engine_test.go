package batching

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testBatcher returns a batcher on f that records its backoff waits instead of
// sleeping.
func testBatcher(f *fakeDB, concurrency int, waits *[]time.Duration) *Engine {
	b := NewEngine(f, concurrency, testPolicy)
	var mu sync.Mutex
	b.Sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		if waits != nil {
			*waits = append(*waits, d)
		}
		return ctx.Err()
	}
	return b
}

func puts(table string, from, to int, value string) []WriteOp {
	var ops []WriteOp
	for i := from; i < to; i++ {
		ops = append(ops, PutOp(table, testKey(i), testItem(i, value)))
	}
	return ops
}

func TestBatchWriteChunksWithinLimits(t *testing.T) {
	tests := []struct {
		name     string
		ops      []WriteOp
		requests int
		stored   int
	}{
		{"one item", puts("t", 0, 1, "a"), 1, 1},
		{"exactly one chunk", puts("t", 0, 25, "a"), 1, 25},
		{"one over a chunk", puts("t", 0, 26, "a"), 2, 26},
		{"two tables share requests", append(puts("t", 0, 30, "a"), puts("u", 0, 30, "a")...), 3, 60},
		{"duplicates collapse before chunking", append(puts("t", 0, 25, "a"), puts("t", 0, 25, "b")...), 1, 25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeDB(t)
			require.NoError(t, testBatcher(f, 4, nil).Write(context.Background(), tt.ops))
			require.Equal(t, tt.requests, f.writeCalls)
			require.Len(t, f.items, tt.stored)
			for _, n := range f.requestLens {
				require.LessOrEqual(t, n, maxBatchWriteItems)
			}
		})
	}
}

func TestBatchWriteLastOpOnAnItemWins(t *testing.T) {
	f := newFakeDB(t)
	ops := append(puts("t", 0, 40, "first"), puts("t", 0, 40, "second")...)
	ops = append(ops, DeleteOp("t", testKey(7)), PutOp("t", testKey(7), testItem(7, "third")))
	ops = append(ops, DeleteOp("t", testKey(8)))
	require.NoError(t, testBatcher(f, 4, nil).Write(context.Background(), ops))

	require.Len(t, f.items, 39)
	require.Equal(t, str("third"), f.items[ItemID("t", testKey(7))]["v"])
	require.NotContains(t, f.items, ItemID("t", testKey(8)))
	require.Equal(t, str("second"), f.items[ItemID("t", testKey(9))]["v"])
}

// leaveEveryOther leaves every other request of each call unprocessed until the given
// call, so progress is slow but steady.
func leaveEveryOther(untilCall int) func(int, map[string][]types.WriteRequest) (map[string][]types.WriteRequest, error) {
	return func(call int, reqs map[string][]types.WriteRequest) (map[string][]types.WriteRequest, error) {
		if call >= untilCall {
			return nil, nil
		}
		left := map[string][]types.WriteRequest{}
		for table, rs := range reqs {
			for i, r := range rs {
				if i%2 == 0 {
					left[table] = append(left[table], r)
				}
			}
		}
		return left, nil
	}
}

func TestBatchWriteRetriesUnprocessedItemsUntilDone(t *testing.T) {
	f := newFakeDB(t)
	f.writeHook = leaveEveryOther(8)
	var waits []time.Duration
	require.NoError(t, testBatcher(f, 1, &waits).Write(context.Background(), puts("t", 0, 25, "a")))

	require.Len(t, f.items, 25, "every item is written")
	require.Greater(t, f.writeCalls, 1)
	require.Len(t, waits, f.writeCalls-1, "each retry waits first")
	for i, w := range waits {
		ceiling := min(testPolicy.BaseDelay<<i, testPolicy.MaxDelay)
		require.LessOrEqual(t, w, ceiling, "retry %d waits at most the capped exponential ceiling", i+1)
	}
}

func TestBatchWriteGivesUpAndNamesTheUnwrittenKeys(t *testing.T) {
	f := newFakeDB(t)
	stuck := map[string]bool{ItemID("t", testKey(3)): true, ItemID("t", testKey(40)): true}
	f.writeHook = func(_ int, reqs map[string][]types.WriteRequest) (map[string][]types.WriteRequest, error) {
		left := map[string][]types.WriteRequest{}
		for table, rs := range reqs {
			for _, r := range rs {
				if stuck[f.itemKeyID(table, r.PutRequest.Item)] {
					left[table] = append(left[table], r)
				}
			}
		}
		return left, nil
	}
	err := testBatcher(f, 2, nil).Write(context.Background(), puts("t", 0, 50, "a"))

	var be *Error
	require.ErrorAs(t, err, &be)
	require.ErrorIs(t, err, ErrUnprocessed)
	require.Equal(t, "BatchWriteItem", be.Op)
	require.Equal(t, []ItemKey{{Table: "t", Key: testKey(3)}, {Table: "t", Key: testKey(40)}}, be.Keys)
	require.Len(t, f.items, 48, "every other item is written")
	// 2 chunks, each: a first request that writes 24 items, then MaxAttempts
	// requests in a row that write nothing.
	require.Equal(t, 2*(1+testPolicy.MaxAttempts), f.writeCalls)
	require.Contains(t, err.Error(), `pk="k0003"`)
}

func TestBatchWriteRequestErrorNamesThatChunksKeys(t *testing.T) {
	f := newFakeDB(t)
	f.writeHook = func(_ int, reqs map[string][]types.WriteRequest) (map[string][]types.WriteRequest, error) {
		for table, rs := range reqs {
			for _, r := range rs {
				if f.itemKeyID(table, r.PutRequest.Item) == ItemID("t", testKey(30)) {
					return nil, errInjected
				}
			}
		}
		return nil, nil
	}
	err := testBatcher(f, 2, nil).Write(context.Background(), puts("t", 0, 60, "a"))

	var be *Error
	require.ErrorAs(t, err, &be)
	require.ErrorIs(t, err, errInjected)
	require.Len(t, be.Keys, 25, "the failed chunk holds items 25..49")
	for i, k := range be.Keys {
		require.Equal(t, testKey(25+i), k.Key)
	}
	require.Len(t, f.items, 35, "the other chunks are written")
}

func TestBatchWriteStopsRetryingWhenTheContextEnds(t *testing.T) {
	f := newFakeDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	f.writeHook = func(call int, reqs map[string][]types.WriteRequest) (map[string][]types.WriteRequest, error) {
		if call == 3 {
			cancel()
		}
		return reqs, nil // never processes anything
	}
	b := testBatcher(f, 1, nil)
	b.retry.MaxAttempts = 1000
	err := b.Write(ctx, puts("t", 0, 5, "a"))

	require.ErrorIs(t, err, context.Canceled)
	var be *Error
	require.ErrorAs(t, err, &be)
	require.Len(t, be.Keys, 5)
	require.Equal(t, 3, f.writeCalls, "no request after the context ended")
}

func TestBatchWriteParallelismIsBounded(t *testing.T) {
	for _, limit := range []int{1, 3, 8} {
		t.Run("", func(t *testing.T) {
			f := newFakeDB(t)
			f.parallel = limit
			require.NoError(t, testBatcher(f, limit, nil).Write(context.Background(), puts("t", 0, 25*10, "a")))
			require.Equal(t, limit, f.maxInFlight)
			require.Equal(t, 10, f.writeCalls)
		})
	}
}

func TestSharedBatcherBoundsRequestsAcrossBatches(t *testing.T) {
	const limit, batches = 3, 4
	f := newFakeDB(t)
	f.parallel = limit
	f.writeHook = func(int, map[string][]types.WriteRequest) (map[string][]types.WriteRequest, error) {
		time.Sleep(10 * time.Millisecond) // lets requests beyond the bound pile up, were they sent
		return nil, nil
	}
	b := testBatcher(f, limit, nil).Shared()
	var wg sync.WaitGroup
	for i := range batches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, b.Write(context.Background(), puts("t", i*100, i*100+25*limit, "a")))
		}()
	}
	wg.Wait()
	require.Equal(t, limit, f.maxInFlight, "%d batches of %d chunks share %d slots", batches, limit, limit)
	require.Equal(t, batches*limit, f.writeCalls)
}

func TestSharedBatcherStopsWaitingForASlotWhenTheContextEnds(t *testing.T) {
	b := testBatcher(newFakeDB(t), 1, nil).Shared()
	b.slots <- struct{}{} // the only slot is taken
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := b.Write(ctx, puts("t", 0, 1, "a"))
	var be *Error
	require.ErrorAs(t, err, &be)
	require.ErrorIs(t, err, context.Canceled)
	require.Len(t, be.Keys, 1, "the op not written is named")
}

func gets(table string, ids ...int) []GetOp {
	ops := make([]GetOp, len(ids))
	for i, id := range ids {
		ops[i] = NewGetOp(table, testKey(id))
	}
	return ops
}

func seed(f *fakeDB, table string, from, to int) {
	for i := from; i < to; i++ {
		f.items[ItemID(table, testKey(i))] = testItem(i, "x")
	}
}

func TestBatchGetReadsEachKeyOnceInParallelChunks(t *testing.T) {
	f := newFakeDB(t)
	seed(f, "t", 0, 200)
	f.parallel = 3
	var ids []int
	for i := range 250 {
		ids = append(ids, i, i%10) // missing ones (200..249) and duplicates
	}
	found, err := testBatcher(f, 8, nil).Get(context.Background(), gets("t", ids...), ReadOptions{})

	require.NoError(t, err)
	require.Len(t, found, 200)
	require.Equal(t, 3, f.getCalls, "250 distinct keys: ceil(250/100) requests")
	require.Equal(t, 3, f.maxInFlight, "all three in flight at once")
	require.Equal(t, str("x"), found[ItemID("t", testKey(199))]["v"])
}

func TestBatchGetKeepsItemsReturnedWithUnprocessedKeys(t *testing.T) {
	f := newFakeDB(t)
	seed(f, "t", 0, 100)
	f.getHook = func(call int, reqs map[string]types.KeysAndAttributes) (map[string]types.KeysAndAttributes, error) {
		if call > 2 {
			return nil, nil
		}
		ka := reqs["t"]
		return map[string]types.KeysAndAttributes{"t": {Keys: ka.Keys[len(ka.Keys)/2:]}}, nil
	}
	found, err := testBatcher(f, 1, nil).Get(context.Background(), gets("t", seq(100)...), ReadOptions{Consistent: true})

	require.NoError(t, err)
	require.Len(t, found, 100, "items of partial responses are kept")
	require.Equal(t, 3, f.getCalls)
	require.Equal(t, []int{100, 50, 25}, f.requestLens, "only unprocessed keys are asked again")
}

func TestBatchGetFailureNamesTheKeysNotRead(t *testing.T) {
	f := newFakeDB(t)
	seed(f, "t", 0, 150)
	var calls atomic.Int32
	f.getHook = func(call int, reqs map[string]types.KeysAndAttributes) (map[string]types.KeysAndAttributes, error) {
		calls.Add(1)
		if len(reqs["t"].Keys) == 50 {
			return nil, errInjected
		}
		return nil, nil
	}
	_, err := testBatcher(f, 1, nil).Get(context.Background(), gets("t", seq(150)...), ReadOptions{})

	var be *Error
	require.ErrorAs(t, err, &be)
	require.ErrorIs(t, err, errInjected)
	require.Equal(t, "BatchGetItem", be.Op)
	require.Len(t, be.Keys, 50)
	require.Equal(t, testKey(100), be.Keys[0].Key)
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func TestChunk(t *testing.T) {
	size := func(n int) int { return n }
	tests := []struct {
		name     string
		items    []int
		maxCount int
		maxBytes int
		want     [][]int
	}{
		{"empty", nil, 2, 10, nil},
		{"by count", []int{1, 1, 1, 1, 1}, 2, 100, [][]int{{1, 1}, {1, 1}, {1}}},
		{"by bytes", []int{4, 4, 4, 1}, 10, 8, [][]int{{4, 4}, {4, 1}}},
		{"oversized item alone", []int{1, 20, 1}, 10, 8, [][]int{{1}, {20}, {1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, Chunk(tt.items, tt.maxCount, tt.maxBytes, size))
		})
	}
}

func TestBackoffStaysUnderTheCappedCeiling(t *testing.T) {
	r := Policy{MaxAttempts: 5, BaseDelay: 10 * time.Millisecond, MaxDelay: 100 * time.Millisecond}
	for n := 1; n <= 40; n++ {
		ceiling := min(r.BaseDelay<<min(n-1, 30), r.MaxDelay)
		for range 50 {
			d := r.Backoff(n)
			require.GreaterOrEqual(t, d, time.Duration(0))
			require.LessOrEqual(t, d, ceiling)
		}
	}
}

// TestCeilingNeverWraps doubles large base delays past the top bit of a Duration:
// the ceiling stays at MaxDelay, never negative or short.
func TestCeilingNeverWraps(t *testing.T) {
	tests := []struct {
		base, max time.Duration
	}{
		{20 * time.Second, time.Hour},
		{time.Minute, 24 * time.Hour},
		{time.Millisecond, time.Second},
		{1, time.Second},
	}
	for _, tt := range tests {
		r := Policy{BaseDelay: tt.base, MaxDelay: tt.max}
		prev := time.Duration(0)
		for n := 1; n <= 70; n++ {
			c := r.Ceiling(n)
			require.Positive(t, c, "base %v, retry %d", tt.base, n)
			require.LessOrEqual(t, c, tt.max, "base %v, retry %d", tt.base, n)
			require.GreaterOrEqual(t, c, prev, "base %v, retry %d: the ceiling never falls", tt.base, n)
			prev = c
		}
		require.Equal(t, tt.max, prev)
	}
}

// TestUntilDoneReportsEachRetryWithItsOwnReason sends a chunk throttled once, then
// refused by a conflict once, then left unprocessed until the budget is spent: each
// retry is reported with its own reason and cause, and the final error wraps no
// cause of an earlier response.
func TestUntilDoneReportsEachRetryWithItsOwnReason(t *testing.T) {
	b := NewEngine(newFakeDB(t), 1, Policy{MaxAttempts: 4, BaseDelay: time.Microsecond, MaxDelay: time.Microsecond})
	type retry struct {
		why   Reason
		cause bool
	}
	var got []retry
	b.Retrying = func(_ context.Context, why Reason, _ time.Duration, cause error) {
		got = append(got, retry{why, cause != nil})
	}
	conflict := errors.New("transaction conflict")
	responses := []error{&RetryLater{throttled("BatchWriteItem")}, &RetryLater{conflict}, nil, nil}
	n := 0
	_, err := UntilDone(context.Background(), b, []int{1, 2}, func(_ context.Context, pending []int) ([]int, error) {
		err := responses[n]
		n++
		return pending, err
	})
	require.ErrorIs(t, err, ErrUnprocessed)
	require.False(t, IsThrottle(err), "the last responses were not throttled")
	require.NotErrorIs(t, err, conflict)
	require.Equal(t, []retry{{ReasonThrottled, true}, {ReasonConflict, true}, {ReasonUnprocessed, false}}, got)
}

func TestRetryStateCountsOnlyRequestsWithoutProgress(t *testing.T) {
	s := RetryState{Opts: Policy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: time.Second}}
	_, retry := s.Next(10, 10) // no progress: 1
	require.True(t, retry)
	_, retry = s.Next(10, 9) // progress resets
	require.True(t, retry)
	_, retry = s.Next(9, 9) // 1
	require.True(t, retry)
	_, retry = s.Next(9, 9) // 2: budget spent
	require.False(t, retry)
}

// throttled is the error of a request DynamoDB throttled, as the SDK returns it once
// its retryer has given up.
func throttled(op string) error {
	return sdkError(op, &types.ProvisionedThroughputExceededException{Message: aws.String("The level of configured provisioned throughput for the table was exceeded.")})
}

// throttleFirst is a fakeDB hook that fails the first n requests of op with
// throttling and processes every later one in full.
func throttleFirst[R any](op string, n int) func(int, map[string]R) (map[string]R, error) {
	return func(call int, _ map[string]R) (map[string]R, error) {
		if call <= n {
			return nil, throttled(op)
		}
		return nil, nil
	}
}

func TestBatchRetriesAThrottledChunkUntilDone(t *testing.T) {
	for _, n := range []int{1, 3, testPolicy.MaxAttempts - 1} {
		t.Run(fmt.Sprintf("read throttled %d times", n), func(t *testing.T) {
			f := newFakeDB(t)
			seed(f, "t", 0, 100)
			f.getHook = throttleFirst[types.KeysAndAttributes]("BatchGetItem", n)
			var waits []time.Duration
			found, err := testBatcher(f, 1, &waits).Get(context.Background(), gets("t", seq(100)...), ReadOptions{})

			require.NoError(t, err)
			require.Len(t, found, 100)
			require.Equal(t, n+1, f.getCalls)
			require.Len(t, waits, n, "each retry waits first")
		})
		t.Run(fmt.Sprintf("write throttled %d times", n), func(t *testing.T) {
			f := newFakeDB(t)
			f.writeHook = throttleFirst[[]types.WriteRequest]("BatchWriteItem", n)
			var waits []time.Duration
			require.NoError(t, testBatcher(f, 1, &waits).Write(context.Background(), puts("t", 0, 25, "a")))

			require.Len(t, f.items, 25)
			require.Equal(t, n+1, f.writeCalls)
			require.Len(t, waits, n, "each retry waits first")
		})
	}
}

// requireThrottledBatchError checks that err names exactly keys as unfinished by op,
// giving both ErrUnprocessed and the throttling as its cause.
func requireThrottledBatchError(t *testing.T, err error, op string, keys []ItemKey) {
	t.Helper()
	var be *Error
	require.ErrorAs(t, err, &be)
	require.Equal(t, op, be.Op)
	require.Equal(t, keys, be.Keys)
	require.ErrorIs(t, err, ErrUnprocessed)
	require.True(t, IsThrottle(err), "the cause is throttling: %v", err)
	var apiErr smithy.APIError
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, "ProvisionedThroughputExceededException", apiErr.ErrorCode())
}

func itemKeys(table string, from, to int) []ItemKey {
	var keys []ItemKey
	for i := from; i < to; i++ {
		keys = append(keys, ItemKey{Table: table, Key: testKey(i)})
	}
	return keys
}

func TestBatchGetOfAnAlwaysThrottledChunkNamesItsKeys(t *testing.T) {
	f := newFakeDB(t)
	seed(f, "t", 0, 100)
	f.getHook = throttleFirst[types.KeysAndAttributes]("BatchGetItem", math.MaxInt)
	_, err := testBatcher(f, 1, nil).Get(context.Background(), gets("t", seq(100)...), ReadOptions{})

	requireThrottledBatchError(t, err, "BatchGetItem", itemKeys("t", 0, 100))
	require.Equal(t, testPolicy.MaxAttempts, f.getCalls, "every request is throttled: none makes progress")
}

func TestBatchWriteOfAnAlwaysThrottledChunkNamesItsKeysOnly(t *testing.T) {
	f := newFakeDB(t)
	f.writeHook = func(_ int, reqs map[string][]types.WriteRequest) (map[string][]types.WriteRequest, error) {
		if f.itemKeyID("t", reqs["t"][0].PutRequest.Item) == ItemID("t", testKey(25)) {
			return nil, throttled("BatchWriteItem")
		}
		return nil, nil
	}
	err := testBatcher(f, 2, nil).Write(context.Background(), puts("t", 0, 50, "a"))

	requireThrottledBatchError(t, err, "BatchWriteItem", itemKeys("t", 25, 50))
	require.Len(t, f.items, 25, "the chunk that is not throttled is written")
	require.Equal(t, 1+testPolicy.MaxAttempts, f.writeCalls)
}

// throttleOrLeaveHalf is a fakeDB hook that throttles every third request and leaves
// the first half (rounded down) of the items of every other request unprocessed.
func throttleOrLeaveHalf[R any](op string, items func(R) int, first func(R, int) R) func(int, map[string]R) (map[string]R, error) {
	return func(call int, reqs map[string]R) (map[string]R, error) {
		if call%3 == 0 {
			return nil, throttled(op)
		}
		left := map[string]R{}
		for table, r := range reqs {
			if n := items(r) / 2; n > 0 {
				left[table] = first(r, n)
			}
		}
		return left, nil
	}
}

func TestBatchThrottlingMixedWithUnprocessedItemsLosesAndRepeatsNothing(t *testing.T) {
	const n = 250 // 3 reads, 10 writes
	// Parallel chunks share the throttled calls in no set order; a large budget keeps
	// the outcome independent of it.
	batcher := func(f *fakeDB) *Engine {
		b := testBatcher(f, 4, nil)
		b.retry.MaxAttempts = 100
		return b
	}
	requireEachProcessedOnce := func(t *testing.T, f *fakeDB) {
		t.Helper()
		require.Len(t, f.processed, n)
		for i := range n {
			require.Equal(t, 1, f.processed[ItemID("t", testKey(i))], "item %d", i)
		}
	}

	t.Run("read", func(t *testing.T) {
		f := newFakeDB(t)
		seed(f, "t", 0, n)
		f.getHook = throttleOrLeaveHalf("BatchGetItem",
			func(ka types.KeysAndAttributes) int { return len(ka.Keys) },
			func(ka types.KeysAndAttributes, k int) types.KeysAndAttributes {
				return types.KeysAndAttributes{Keys: ka.Keys[:k]}
			})
		found, err := batcher(f).Get(context.Background(), gets("t", seq(n)...), ReadOptions{})

		require.NoError(t, err)
		require.Len(t, found, n)
		for i := range n {
			require.Equal(t, testItem(i, "x"), found[ItemID("t", testKey(i))])
		}
		requireEachProcessedOnce(t, f)
	})
	t.Run("write", func(t *testing.T) {
		f := newFakeDB(t)
		f.writeHook = throttleOrLeaveHalf("BatchWriteItem",
			func(rs []types.WriteRequest) int { return len(rs) },
			func(rs []types.WriteRequest, k int) []types.WriteRequest { return rs[:k] })
		require.NoError(t, batcher(f).Write(context.Background(), puts("t", 0, n, "a")))

		require.Len(t, f.items, n)
		requireEachProcessedOnce(t, f)
	})
}
