package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/rynodb/rynodb/ryno"
)

// costs adds up what the calls of a step cost, from the reports the client gives
// Options.OnCall.
type costs struct {
	mu                      sync.Mutex
	calls, requests, rounds int
	read, write             float64
}

func (c *costs) add(_ context.Context, r ryno.CallReport) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	c.requests += r.RequestCount()
	c.rounds += r.Rounds
	for _, u := range r.Capacity {
		c.read += u.Read
		c.write += u.Write
	}
}

// take returns a line saying what the calls since the last take cost, and starts
// over.
func (c *costs) take() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	line := fmt.Sprintf("cost: %s, %s in %s, %g read and %g write capacity units",
		plural(c.calls, "call"), plural(c.requests, "request"), plural(c.rounds, "round"), c.read, c.write)
	c.calls, c.requests, c.rounds, c.read, c.write = 0, 0, 0, 0, 0
	return line
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
