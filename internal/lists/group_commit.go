package lists

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/rynodb/rynodb/internal/errs"
)

// queue batches the calls of each key K, each carrying an item T and returning a
// result R. Its zero value is not ready: set Same.
type queue[K comparable, T, R any] struct {
	// Same reports whether b may join the batch that a leads.
	Same func(a, b T) bool

	mu     sync.Mutex
	queues map[K][]*call[T, R] // a key's queue exists exactly while the key is busy
}

// call is one call waiting for its batch.
type call[T, R any] struct {
	ctx  context.Context // the caller's
	item T
	lead chan struct{} // receives when the call must write the next batch
	done chan struct{} // closed when its batch was written, or failed
	res  R
	err  error
	// taken says a batch holds it; leading, that it was told to lead one.
	taken, leading bool
}

// batchWrite writes a batch: the items of its calls in queue order. It returns one
// result per item, or an error for every call of the batch.
type batchWrite[T, R any] func(ctx context.Context, items []T) ([]R, error)

// Do queues item under key and returns its result once its batch is written. The
// call that leads a batch writes it with write, under a context that ends when the
// contexts of every call of the batch have ended: the leader's alone does not stop
// a batch others wait for, and a batch of one call has the call's own deadline. A
// call whose ctx ends while it still waits, in no batch, returns ctx.Err() and is
// never written; so does a call whose ctx has ended when its turn to lead comes.
func (q *queue[K, T, R]) Do(ctx context.Context, key K, item T, write batchWrite[T, R]) (R, error) {
	c := &call[T, R]{ctx: ctx, item: item, lead: make(chan struct{}, 1), done: make(chan struct{})}
	q.join(key, c)
	select {
	case <-c.lead:
	case <-c.done:
		return c.res, c.err
	case <-ctx.Done():
		if q.withdraw(key, c) {
			var zero R
			return zero, ctx.Err()
		}
		select { // a batch holds it, or it was just told to lead one
		case <-c.lead:
		case <-c.done:
			return c.res, c.err
		}
	}
	if err := ctx.Err(); err != nil && q.abdicate(key, c) {
		var zero R
		return zero, err
	}
	q.writeBatch(ctx, key, write)
	<-c.done
	return c.res, c.err
}

// join queues c under key; the first call of an idle key leads at once.
func (q *queue[K, T, R]) join(key K, c *call[T, R]) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.queues == nil {
		q.queues = map[K][]*call[T, R]{}
	}
	waiting, busy := q.queues[key]
	if !busy {
		c.leading = true
		c.lead <- struct{}{}
	}
	q.queues[key] = append(waiting, c)
}

// withdraw takes c out of its queue, unless a batch holds it or it must lead one.
func (q *queue[K, T, R]) withdraw(key K, c *call[T, R]) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if c.taken || c.leading {
		return false
	}
	waiting := q.queues[key]
	for i, w := range waiting {
		if w == c {
			q.queues[key] = append(waiting[:i], waiting[i+1:]...)
			return true
		}
	}
	return false
}

// take removes the next batch from the queue of key: the call at its head and
// every queued call after it that may join it, up to one that may not.
func (q *queue[K, T, R]) take(key K) []*call[T, R] {
	q.mu.Lock()
	defer q.mu.Unlock()
	waiting := q.queues[key]
	n := 1
	for n < len(waiting) && q.Same(waiting[0].item, waiting[n].item) {
		n++
	}
	batch := waiting[:n:n]
	q.queues[key] = waiting[n:]
	for _, c := range batch {
		c.taken = true
	}
	return batch
}

// abdicate takes c, told to lead but not yet leading a batch, out of the queue of
// key and hands the key to the next call. It reports false when a batch already
// holds c.
func (q *queue[K, T, R]) abdicate(key K, c *call[T, R]) bool {
	q.mu.Lock()
	waiting := q.queues[key]
	if c.taken || len(waiting) == 0 || waiting[0] != c {
		q.mu.Unlock()
		return false
	}
	q.queues[key] = waiting[1:]
	q.mu.Unlock()
	q.handOff(key)
	return true
}

// handOff tells the call now at the head of the queue of key to lead the next
// batch, or forgets the queue when none waits.
func (q *queue[K, T, R]) handOff(key K) {
	q.mu.Lock()
	defer q.mu.Unlock()
	waiting := q.queues[key]
	if len(waiting) == 0 {
		delete(q.queues, key)
		return
	}
	next := waiting[0]
	next.leading = true
	next.lead <- struct{}{}
}

// writeBatch writes the next batch of key, gives each of its calls its result, and
// hands the key to the next. A write that panics fails each call of the batch, and
// the panic goes on in the leader once the key is handed on.
func (q *queue[K, T, R]) writeBatch(leader context.Context, key K, write batchWrite[T, R]) {
	batch := q.take(key)
	var results []R
	var panicked any
	// Until write returns: a write that never does (runtime.Goexit) still frees
	// the batch and the key.
	err := errs.New("the write of a batch of %d calls ended without returning", len(batch))
	defer func() {
		if err == nil && len(results) != len(batch) {
			err = errs.New("a batch of %d calls was written with %d results", len(batch), len(results))
		}
		for i, c := range batch {
			if c.err = err; err == nil {
				c.res = results[i]
			}
			close(c.done)
		}
		q.handOff(key)
		if panicked != nil {
			panic(panicked)
		}
	}()
	items := make([]T, len(batch))
	for i, c := range batch {
		items[i] = c.item
	}
	ctx, stop := batchContext(leader, batch)
	defer stop()
	results, panicked, err = safeWrite(ctx, write, items)
}

// batchContext returns the context of a batch's write. A batch of one call is
// written under that call's context. A larger one gets the leader's values, the
// latest deadline when every call has one, and ends once the context of every call
// has ended, with the cause of the last. stop releases it.
func batchContext[T, R any](leader context.Context, batch []*call[T, R]) (ctx context.Context, stop func()) {
	if len(batch) == 1 {
		return batch[0].ctx, func() {}
	}
	base := context.WithoutCancel(leader)
	cancelDeadline := context.CancelFunc(func() {})
	latest, deadline := latestDeadline(batch)
	if deadline {
		base, cancelDeadline = context.WithDeadline(base, latest)
	}
	ctx, cancel := context.WithCancelCause(base)
	var mu sync.Mutex
	left := len(batch)
	stops := make([]func() bool, len(batch))
	for i, c := range batch {
		stops[i] = context.AfterFunc(c.ctx, func() {
			mu.Lock()
			defer mu.Unlock()
			// The last to end, by the latest deadline, leaves it to the batch's own,
			// so that the write fails with context.DeadlineExceeded, as alone.
			if left--; left == 0 && !(deadline && errors.Is(c.ctx.Err(), context.DeadlineExceeded) && endsAt(c.ctx, latest)) {
				cancel(context.Cause(c.ctx))
			}
		})
	}
	return ctx, func() {
		for _, s := range stops {
			s()
		}
		cancel(nil)
		cancelDeadline()
	}
}

// endsAt reports whether ctx's deadline is t.
func endsAt(ctx context.Context, t time.Time) bool {
	d, ok := ctx.Deadline()
	return ok && d.Equal(t)
}

// latestDeadline returns the latest deadline of the calls of batch, and false when
// one of them has none.
func latestDeadline[T, R any](batch []*call[T, R]) (time.Time, bool) {
	var latest time.Time
	for _, c := range batch {
		d, ok := c.ctx.Deadline()
		if !ok {
			return time.Time{}, false
		}
		if d.After(latest) {
			latest = d
		}
	}
	return latest, true
}

// safeWrite runs write, turning a panic into an error for the batch and the value
// to panic with again.
func safeWrite[T, R any](ctx context.Context, write batchWrite[T, R], items []T) (results []R, panicked any, err error) {
	defer func() {
		if r := recover(); r != nil {
			results, panicked, err = nil, r, errs.New("the write of a batch of %d calls panicked: %v", len(items), r)
		}
	}()
	results, err = write(ctx, items)
	return results, nil, err
}
