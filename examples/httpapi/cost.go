package main

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/rynodb/rynodb/ryno"
)

// requestCost adds up what the store calls made for one HTTP request cost, from
// the reports the store gives Options.OnCall with the request's context.
type requestCost struct {
	mu          sync.Mutex
	requests    int
	read, write float64
	store       time.Duration
}

type costKey struct{}

// withCost returns ctx carrying a new requestCost, and the requestCost.
func withCost(ctx context.Context) (context.Context, *requestCost) {
	c := &requestCost{}
	return context.WithValue(ctx, costKey{}, c), c
}

// addCost is the store's OnCall: it adds the call's report to the cost of the
// request whose context the call was made with.
func addCost(ctx context.Context, r ryno.CallReport) {
	c, ok := ctx.Value(costKey{}).(*requestCost)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests += r.RequestCount()
	c.store += r.Duration
	for _, u := range r.Capacity {
		c.read += u.Read
		c.write += u.Write
	}
}

// serverTiming returns the cost as a Server-Timing header value, which browsers'
// developer tools and many proxies show:
// dynamodb;dur=4.2;desc="2 requests, 1 RCU, 2 WCU".
func (c *requestCost) serverTiming() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	requests := fmt.Sprintf("%d requests", c.requests)
	if c.requests == 1 {
		requests = "1 request"
	}
	return fmt.Sprintf(`dynamodb;dur=%.1f;desc="%s, %g RCU, %g WCU"`,
		float64(c.store.Microseconds())/1000, requests, c.read, c.write)
}

// costWriter sends the request's cost in the Server-Timing header of its
// response: the store calls are done by the time a handler writes its header.
type costWriter struct {
	http.ResponseWriter
	cost  *requestCost
	wrote bool
}

func (w *costWriter) WriteHeader(status int) {
	if !w.wrote {
		w.wrote = true
		w.Header().Set("Server-Timing", w.cost.serverTiming())
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *costWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *costWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
