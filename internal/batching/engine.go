package batching

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/rynodb/rynodb/tables"
)

// DynamoDB's limits on one batch request.
const (
	maxBatchWriteItems = 25
	maxBatchGetKeys    = 100
	maxRequestBytes    = 16 << 20
)

// Engine sends any number of reads or writes as BatchGetItem and BatchWriteItem
// requests: within DynamoDB's limits, without a duplicate key in a request, chunks in
// parallel up to a bound, and unprocessed items (all those of a throttled request
// too) retried with backoff until they are done or the retry budget or the context
// ends. It never drops an item: what it could not finish is named in a *Error.
type Engine struct {
	api         API
	concurrency int
	retry       Policy
	Sleep       func(context.Context, time.Duration) error // replaced by tests

	// Retrying, when set, is told of each retry: why, after how long, and the
	// error that caused it, if any. Package ryno records it in the call's report.
	Retrying func(ctx context.Context, why Reason, wait time.Duration, cause error)

	// slots, when set, bounds the requests in flight across every batch sent
	// through this engine, from any number of goroutines; see Shared.
	slots chan struct{}
}

// NewEngine returns an engine sending to api at most concurrency requests at once
// per call, and retrying unprocessed items within retry.
func NewEngine(api API, concurrency int, retry Policy) *Engine {
	return &Engine{api: api, concurrency: concurrency, retry: retry, Sleep: SleepContext}
}

// Shared returns an engine for one call that sends several batches at once: together
// they have at most b.concurrency requests in flight, as ryno.Options.MaxConcurrency
// promises per call.
func (b *Engine) Shared() *Engine {
	s := *b
	s.slots = make(chan struct{}, b.concurrency)
	return &s
}

// Acquire waits for a request slot of a shared engine; release gives it back.
// Backoff waits hold no slot.
func (b *Engine) Acquire(ctx context.Context) (release func(), err error) {
	if b.slots == nil {
		return func() {}, nil
	}
	select {
	case b.slots <- struct{}{}:
		return func() { <-b.slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// ItemID identifies an item across tables: its key as an error names it.
func ItemID(table string, key map[string]types.AttributeValue) string {
	return tables.ItemKey{Table: table, Key: key}.String()
}

// keyNames returns the attribute names of key, sorted.
func keyNames(key map[string]types.AttributeValue) []string {
	names := make([]string, 0, len(key))
	for name := range key {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Project returns the attributes of item named in names: the key of a full item.
func Project(item map[string]types.AttributeValue, names []string) map[string]types.AttributeValue {
	key := make(map[string]types.AttributeValue, len(names))
	for _, name := range names {
		key[name] = item[name]
	}
	return key
}

// Chunk splits items into runs of at most maxCount items and maxBytes bytes, keeping
// their order. An item larger than maxBytes gets a Chunk of its own.
func Chunk[T any](items []T, maxCount, maxBytes int, size func(T) int) [][]T {
	var chunks [][]T
	start, bytes := 0, 0
	for i, it := range items {
		n := size(it)
		if i > start && (i-start == maxCount || bytes+n > maxBytes) {
			chunks = append(chunks, items[start:i])
			start, bytes = i, 0
		}
		bytes += n
	}
	if start < len(items) {
		chunks = append(chunks, items[start:])
	}
	return chunks
}

// InParallel calls f for 0..n-1 with at most limit calls at once and waits for all.
// With failFast, the context passed to f is cancelled when a call fails.
func InParallel(ctx context.Context, n, limit int, failFast bool, f func(context.Context, int) error) {
	g := new(errgroup.Group)
	if failFast {
		g, ctx = errgroup.WithContext(ctx)
	}
	g.SetLimit(limit)
	for i := range n {
		g.Go(func() error { return f(ctx, i) })
	}
	_ = g.Wait() // f records its own failures
}

// Parallel calls f for 0..n-1 with at most limit calls at once and returns the first
// error; the context passed to f is cancelled when a call fails.
func Parallel(ctx context.Context, n, limit int, f func(context.Context, int) error) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(limit)
	for i := range n {
		g.Go(func() error { return f(ctx, i) })
	}
	return g.Wait()
}

// Failures collects the items a batch could not finish, from parallel chunks.
type Failures struct {
	mu    sync.Mutex
	keys  []ItemKey
	cause error
}

// Add records keys as unfinished, for err.
func (f *Failures) Add(keys []ItemKey, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keys = append(f.keys, keys...)
	// The first cause that is not a cancellation caused by another failure explains best.
	if f.cause == nil || IsContextErr(f.cause) && !IsContextErr(err) {
		f.cause = err
	}
}

// Err returns the *Error of op naming every key recorded, or nil when there is none.
func (f *Failures) Err(op string) error {
	if len(f.keys) == 0 {
		return nil
	}
	slices.SortFunc(f.keys, func(a, b ItemKey) int { return strings.Compare(a.String(), b.String()) })
	return &Error{Op: op, Keys: f.keys, Err: f.cause}
}
