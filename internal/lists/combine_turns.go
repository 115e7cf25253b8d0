package lists

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/commit"
)

// Whose turn it is to commit the requests waiting on a list's head. The writer of
// the oldest request commits them; another stands in only when that writer may
// have been cut off, one at a time, in the order of the requests, and never while
// the list moves on. Were every waiting writer to step in once the oldest is some
// fixed age, a loaded DynamoDB, whose commits take longer than that age, would get
// a transaction from each, all but one refused, which load it further: a spiral
// a list written by many processes does not come back from.

// takesOver reports whether the writer of the request at pos of the requests
// waiting, oldest first, commits them now: the oldest's writer always; the one at
// pos ≥ 1 once the oldest request is older than pos × wait and this writer has
// seen no commit to the list for as long (since still).
func takesOver(pos int, oldest, still, now time.Time, wait time.Duration) bool {
	wait *= time.Duration(pos)
	return pos == 0 || now.Sub(oldest) > wait && now.Sub(still) > wait
}

// commitTimes is a moving average of how long the client's transactions of lists
// take, safe for concurrent use.
type commitTimes struct{ avg atomic.Int64 } // nanoseconds

// observe adds a transaction that took d.
func (m *commitTimes) observe(d time.Duration) {
	for {
		old := m.avg.Load()
		next := int64(d)
		if old != 0 {
			next = old + (int64(d)-old)/4
		}
		if m.avg.CompareAndSwap(old, next) {
			return
		}
	}
}

// standIn is how long a writer waits, per place in line, before standing in for
// the oldest request's writer: three transactions as this client has seen them
// take, so that a writer alive but slow commits first; at least takeOver, and at
// most standInAtMost, well within awaitAtMost, so that the request of a writer cut
// off is committed before those after it give up waiting.
func (m *commitTimes) standIn() time.Duration {
	return min(max(takeOver, 3*time.Duration(m.avg.Load())), standInAtMost)
}

// standInAtMost bounds the wait of standIn.
const standInAtMost = time.Second

// transact sends t, timing it for commits. A transaction's time is measured on the
// monotonic clock: it is the latency of DynamoDB, not a time of the list.
func (c *Engine) transact(ctx context.Context, t *actions.Transaction) commit.Attempt {
	start := time.Now()
	a := c.core.Transact(ctx, t.Actions, commit.NewToken())
	c.commits.observe(time.Since(start))
	return a
}
