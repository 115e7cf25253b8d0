package dynamotest

import (
	"context"
	"maps"
	"sync"
	"time"

	"github.com/rynodb/rynodb/ryno"
)

// Counter wraps a ryno.DynamoDBAPI and counts the requests sent through it, by
// operation name ("GetItem", "Query", ...). It is safe for concurrent use.
type Counter struct {
	*Wrapped

	mu          sync.Mutex
	counts      map[string]int
	inFlight    int
	maxInFlight int
	rounds      int
	spans       []span
}

// NewCounter returns a Counter sending requests to api.
func NewCounter(api ryno.DynamoDBAPI) *Counter {
	c := &Counter{counts: map[string]int{}}
	c.Wrapped = Wrap(api, c.hook)
	return c
}

// Count returns how many requests of operation op were sent.
func (c *Counter) Count(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[op]
}

// Counts returns a copy of the counts by operation.
func (c *Counter) Counts() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.counts)
}

// Total returns how many requests were sent.
func (c *Counter) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.counts {
		n += v
	}
	return n
}

// MaxInFlight returns the largest number of requests that were in flight at once.
func (c *Counter) MaxInFlight() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.maxInFlight
}

// Rounds returns the number of busy periods: a run of requests that overlap in time
// counts once, so requests sent in parallel make one round and requests sent one after
// another make one round each.
func (c *Counter) Rounds() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rounds
}

// Depth returns the number of sequential waves of requests: the longest chain of
// requests each sent after the previous one returned (see Recorder.Depth).
func (c *Counter) Depth() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return depth(c.spans)
}

// Reset sets every count to zero.
func (c *Counter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.counts)
	c.maxInFlight, c.rounds, c.spans = c.inFlight, 0, nil
}

func (c *Counter) begin(op string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts[op]++
	if c.inFlight == 0 {
		c.rounds++
	}
	c.inFlight++
	c.maxInFlight = max(c.maxInFlight, c.inFlight)
}

func (c *Counter) end(start time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inFlight--
	c.spans = append(c.spans, span{start, time.Now()})
}

func (c *Counter) hook(ctx context.Context, op string, send func(context.Context) error) error {
	c.begin(op)
	defer c.end(time.Now())
	return send(ctx)
}
