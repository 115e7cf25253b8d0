package integration_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// newStore returns a client on fresh tables, the counter its requests go through,
// and its clock.
func newStore(t *testing.T) (*ryno.Client, *dynamotest.Counter, *clock) {
	t.Helper()
	api := dynamotest.API(t)
	prefix := dynamotest.Tables(t, api)
	counter := dynamotest.NewCounter(api)
	clk := newClock()
	db, err := ryno.New(counter, ryno.Options{TablePrefix: prefix, Now: clk.Now})
	require.NoError(t, err)
	return db, counter, clk
}

// clock is a test clock that moves one second forward at every reading, so every
// write gets its own Updated time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// requests returns the requests counted since the last call, by operation, and resets
// the counter.
func requests(c *dynamotest.Counter) map[string]int {
	defer c.Reset()
	return c.Counts()
}
