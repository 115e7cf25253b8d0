package ryno

import (
	"context"
	"sync"

	"github.com/rynodb/rynodb/internal/relationships"
)

// Concurrent Adds (or Removes) of one list by one Client commit together: the
// call at the head of the list's queue writes the objects of every call of the same
// kind queued behind it, in one read and one transaction, and each call returns what
// its own objects changed, as if the calls had run one after another, in queue
// order, at that commit. Writers of one list in one process then stop racing one
// another for its head; writers in other processes still race, and retry. A call
// whose turn comes leads the next batch when the one before it has committed.

// listQueues holds the calls waiting for each list.
type listQueues struct {
	mu     sync.Mutex
	queues map[listID]*listQueue
}

// listQueue is the calls waiting for one list, in arrival order, while one of its
// calls writes a batch: the queue exists exactly as long as the list is busy.
type listQueue struct {
	waiting []*queuedWrite
}

// queuedWrite is one list call waiting for its batch.
type queuedWrite struct {
	op   listOp
	lead chan struct{} // receives when the call must write the next batch
	done chan struct{} // closed when its batch committed or failed
	ch   relationships.Change
	err  error
	// taken says a batch holds it; leading, that it was told to lead one.
	taken, leading bool
}

// combinable reports whether op may share a batch: an Add or a Remove that does
// not check its objects (one missing object would fail every call of the batch).
func (c *Client) combinable(op listOp) bool {
	return !c.opts.SeparateListWrites && !op.checkObjects && (op.kind == listAdd || op.kind == listRemove)
}

// writeListCombined writes op with the calls of the same kind queued for its list
// meanwhile, or alone when it may not share a batch.
func (c *Client) writeListCombined(ctx context.Context, op listOp) (relationships.Change, error) {
	if !c.combinable(op) {
		return c.writeList(ctx, op)
	}
	q := &queuedWrite{op: op, lead: make(chan struct{}, 1), done: make(chan struct{})}
	id := listID{subject: op.subject, predicate: op.predicate}
	c.queues.join(id, q)
	select {
	case <-q.lead:
	case <-q.done:
		return q.ch, q.err
	case <-ctx.Done():
		if c.queues.withdraw(id, q) {
			return relationships.Change{}, ctx.Err()
		}
		select { // a batch holds it, or it was just told to lead one
		case <-q.lead:
		case <-q.done:
			return q.ch, q.err
		}
	}
	// The batch's calls wait for it too: it runs to the end whatever this caller's
	// context does, bounded by Options.Conflicts.
	c.writeBatch(context.WithoutCancel(ctx), id)
	<-q.done
	return q.ch, q.err
}

// join queues q for the list id; the first call of an idle list leads at once.
func (l *listQueues) join(id listID, q *queuedWrite) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.queues == nil {
		l.queues = map[listID]*listQueue{}
	}
	lq, ok := l.queues[id]
	if !ok {
		lq = &listQueue{}
		l.queues[id] = lq
		q.leading = true
		q.lead <- struct{}{}
	}
	lq.waiting = append(lq.waiting, q)
}

// withdraw takes q out of its queue, unless a batch holds it or it must lead one.
func (l *listQueues) withdraw(id listID, q *queuedWrite) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if q.taken || q.leading {
		return false
	}
	lq := l.queues[id]
	for i, w := range lq.waiting {
		if w == q {
			lq.waiting = append(lq.waiting[:i], lq.waiting[i+1:]...)
			return true
		}
	}
	return false
}

// take removes the next batch from the queue of id: the call at its head and every
// queued call of the same kind after it, up to one that differs.
func (l *listQueues) take(id listID) []*queuedWrite {
	l.mu.Lock()
	defer l.mu.Unlock()
	lq := l.queues[id]
	n := 1
	for n < len(lq.waiting) && lq.waiting[n].op.kind == lq.waiting[0].op.kind {
		n++
	}
	batch := lq.waiting[:n:n]
	lq.waiting = lq.waiting[n:]
	for _, q := range batch {
		q.taken = true
	}
	return batch
}

// handOff tells the call now at the head of the queue of id to lead the next
// batch, or forgets the queue when none waits.
func (l *listQueues) handOff(id listID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	lq := l.queues[id]
	if len(lq.waiting) == 0 {
		delete(l.queues, id)
		return
	}
	next := lq.waiting[0]
	next.leading = true
	next.lead <- struct{}{}
}

// writeBatch writes the next batch of the list id as one call, tells each of its
// calls what it changed, and hands the list to the next.
func (c *Client) writeBatch(ctx context.Context, id listID) {
	batch := c.queues.take(id)
	defer c.queues.handOff(id)
	op := batch[0].op
	op.objects = nil
	for _, q := range batch {
		op.objects = append(op.objects, q.op.objects...)
	}
	ch, err := c.writeList(ctx, op)
	changed := ch.Added
	if op.kind == listRemove {
		changed = ch.Removed
	}
	attributed := shareOut(changed, batch)
	for i, q := range batch {
		q.err = err
		if err == nil {
			q.ch = ch
			q.ch.Added, q.ch.Removed = nil, nil
			if op.kind == listAdd {
				q.ch.Added = attributed[i]
			} else {
				q.ch.Removed = attributed[i]
			}
		}
		close(q.done)
	}
}

// shareOut gives each call of batch the objects of changed it named, each to the
// first call naming it, in the call's order.
func shareOut(changed []relationships.Key, batch []*queuedWrite) [][]relationships.Key {
	left := make(map[relationships.Key]bool, len(changed))
	for _, k := range changed {
		left[k] = true
	}
	out := make([][]relationships.Key, len(batch))
	for i, q := range batch {
		for _, k := range q.op.objects {
			if rk := relationships.Key(k); left[rk] {
				out[i] = append(out[i], rk)
				delete(left, rk)
			}
		}
	}
	return out
}
