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

	mu       sync.Mutex
	returned map[string]int
	faults   map[string]fault
}

type fault struct {
	after int          // how many requests return normally first
	fail  func() error // called instead of sending the request
	// sent, when set, makes the fault hit after the request was sent: the request
	// takes effect and its response is lost. It is called with the context of the
	// request; its error replaces the response. times bounds how many are hit.
	sent  func(context.Context) error
	times int
}

// NewFaults returns a Faults sending requests to api, with no fault set.
func NewFaults(api ryno.DynamoDBAPI) *Faults {
	f := &Faults{returned: map[string]int{}, faults: map[string]fault{}}
	f.Wrapped = Wrap(api, f.hook)
	return f
}

// FailAfter lets n requests of operation op, counting from now, return normally;
// every request of op sent after the nth has returned fails instead of being sent,
// with the error of fail. fail may, for instance, cancel the context of the
// operation under test. Requests in flight when the nth returns are not touched, so
// at least n requests are done whatever the parallelism of the caller.
func (f *Faults) FailAfter(op string, n int, fail func() error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.returned[op] = 0
	f.faults[op] = fault{after: n, fail: fail}
}

// LoseResponses sends the next times requests of operation op, then replaces each
// response with the error of lost, called with the request's context once the
// request took effect: a response lost on the way back, which leaves the caller
// unsure whether its write landed. lost may also act meanwhile, as another writer.
func (f *Faults) LoseResponses(op string, times int, lost func(context.Context) error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.returned[op] = 0
	f.faults[op] = fault{sent: lost, times: times}
}

// Clear removes every fault.
func (f *Faults) Clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.faults)
}

func (f *Faults) hook(ctx context.Context, op string, send func(context.Context) error) error {
	f.mu.Lock()
	flt, ok := f.faults[op]
	fails := ok && flt.fail != nil && f.returned[op] >= flt.after
	loses := ok && flt.sent != nil && f.returned[op] < flt.times
	f.mu.Unlock()
	if fails {
		return flt.fail()
	}
	err := send(ctx)
	f.mu.Lock()
	f.returned[op]++
	f.mu.Unlock()
	if loses && err == nil {
		return flt.sent(ctx)
	}
	return err
}
