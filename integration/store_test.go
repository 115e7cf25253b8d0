package integration_test

import (
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// newStore returns a client on fresh tables, the counter its requests go through,
// and its clock.
func newStore(t *testing.T) (*ryno.Client, *dynamotest.Counter, *clock) {
	t.Helper()
	s := newStoreWith(t, nil)
	return s.Client, s.counter, s.clock
}

// store is a client on fresh tables with what tests need around it.
type store struct {
	*ryno.Client
	counter *dynamotest.Counter // counts the requests of Client
	raw     *dynamodb.Client    // the tables, bypassing the client
	prefix  string              // of the tables
	clock   *clock
	indexes []ryno.Index // the indexes of Client
}

// newStoreWith returns a store whose client sends its requests through the counter,
// then through wrap (when not nil), then to DynamoDB Local.
func newStoreWith(t *testing.T, wrap func(ryno.DynamoDBAPI) ryno.DynamoDBAPI) *store {
	t.Helper()
	return newStoreOpts(t, wrap, ryno.Options{})
}

// newStoreOpts is newStoreWith with options; the prefix and clock are the store's.
func newStoreOpts(t *testing.T, wrap func(ryno.DynamoDBAPI) ryno.DynamoDBAPI, opts ryno.Options) *store {
	t.Helper()
	raw := dynamotest.API(t)
	prefix := dynamotest.Tables(t, raw)
	var api ryno.DynamoDBAPI = raw
	if wrap != nil {
		api = wrap(api)
	}
	s := &store{counter: dynamotest.NewCounter(api), raw: raw, prefix: prefix, clock: newClock(), indexes: opts.Indexes}
	opts.TablePrefix, opts.Now = prefix, s.clock.Now
	db, err := ryno.New(s.counter, opts)
	require.NoError(t, err)
	s.Client = db
	return s
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

// manualClock is a test clock that stands still until the test moves it: time-based
// mechanisms (leases) then behave the same however busy the machine is.
type manualClock struct {
	mu sync.Mutex
	t  time.Time
}

func newManualClock() *manualClock {
	return &manualClock{t: time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC)}
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock d forward.
func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// requests returns the requests counted since the last call, by operation, and resets
// the counter.
func requests(c *dynamotest.Counter) map[string]int {
	defer c.Reset()
	return c.Counts()
}

// newClientOn returns another client on the tables of s, with its own options, as
// another process writing the same tables would have.
func newClientOn(t *testing.T, s *store, opts ryno.Options) *ryno.Client {
	t.Helper()
	opts.TablePrefix = s.Names().Prefix
	db, err := ryno.New(s.raw, opts)
	require.NoError(t, err)
	return db
}

// changed returns the error of an AddRelationships or RemoveRelationships, without
// the objects it changed.
func changed(_ []ryno.Key, err error) error { return err }
