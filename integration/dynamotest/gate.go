package dynamotest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rynodb/rynodb/ryno"
)

// ErrNotParallel is returned by requests held at a Gate that never opened.
var ErrNotParallel = errors.New("dynamotest: requests were not sent in parallel")

// GateTimeout is how long a Gate holds requests before failing them.
const GateTimeout = 10 * time.Second

// Gate proves that requests are sent in parallel: it holds each request until n
// requests are in flight at once, then lets every request through. Requests sent one
// after another never reach n: after GateTimeout they fail with ErrNotParallel.
type Gate struct {
	*Wrapped
	n int

	mu       sync.Mutex
	inFlight int
	opened   chan struct{}
	open     sync.Once
}

// NewGate returns a Gate for n requests in front of api.
func NewGate(api ryno.DynamoDBAPI, n int) *Gate {
	g := &Gate{n: n, opened: make(chan struct{})}
	g.Wrapped = Wrap(api, g.hook)
	return g
}

// Opened reports whether n requests were in flight at once.
func (g *Gate) Opened() bool {
	select {
	case <-g.opened:
		return true
	default:
		return false
	}
}

// Hook is the gate as a Hook, to put it behind another wrapper's decision.
func (g *Gate) Hook(ctx context.Context, op string, send func(context.Context) error) error {
	return g.hook(ctx, op, send)
}

func (g *Gate) hook(ctx context.Context, op string, send func(context.Context) error) error {
	g.mu.Lock()
	g.inFlight++
	if g.inFlight >= g.n {
		g.open.Do(func() { close(g.opened) })
	}
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.inFlight--
		g.mu.Unlock()
	}()
	select {
	case <-g.opened:
		return send(ctx)
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(GateTimeout):
		return fmt.Errorf("%w: %s waited for %d requests in flight", ErrNotParallel, op, g.n)
	}
}
