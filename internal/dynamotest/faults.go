package dynamotest

import (
	"context"
	"sync"

	"github.com/rynodb/rynodb/ryno"
)

// Faults wraps a ryno.DynamoDBAPI and replaces chosen requests with failures, for
// what DynamoDB Local never does: requests failing half-way through an operation.
// It is safe for concurrent use.
type Faults struct {
	*Wrapped

	mu     sync.Mutex
	seen   map[string]int
	faults map[string]fault
}

type fault struct {
	from int          // the first request (counting from 1) to fail
	fail func() error // called instead of sending the request
}

// NewFaults returns a Faults sending requests to api, with no fault set.
func NewFaults(api ryno.DynamoDBAPI) *Faults {
	f := &Faults{seen: map[string]int{}, faults: map[string]fault{}}
	f.Wrapped = Wrap(api, f.hook)
	return f
}

// FailFrom makes request number n of operation op, counting from now, and every later
// one call fail instead of being sent, and return its error. fail may, for instance,
// cancel the context of the operation under test.
func (f *Faults) FailFrom(op string, n int, fail func() error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen[op] = 0
	f.faults[op] = fault{from: n, fail: fail}
}

// Clear removes every fault.
func (f *Faults) Clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.faults)
}

func (f *Faults) hook(ctx context.Context, op string, send func(context.Context) error) error {
	f.mu.Lock()
	f.seen[op]++
	flt, ok := f.faults[op]
	fails := ok && f.seen[op] >= flt.from
	f.mu.Unlock()
	if fails {
		return flt.fail()
	}
	return send(ctx)
}
