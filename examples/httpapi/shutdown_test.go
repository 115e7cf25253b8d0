package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rynodb/rynodb/integration/dynamotest"
)

// A shutdown stops accepting connections at once, lets the request in flight
// complete, and then serve returns nil.
func TestGracefulShutdown(t *testing.T) {
	api := dynamotest.API(t)
	prefix := dynamotest.Tables(t, api)

	// The store holds the first GetItem after hold is set until release closes.
	var hold atomic.Bool
	held, release := make(chan struct{}), make(chan struct{})
	gated := dynamotest.Wrap(api, func(ctx context.Context, op string, send func(context.Context) error) error {
		if op == "GetItem" && hold.CompareAndSwap(true, false) {
			close(held)
			<-release
		}
		return send(ctx)
	})
	db, err := newCatalog(gated, config{prefix: prefix}, nil)
	if err != nil {
		t.Fatal(err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, shutdown := context.WithCancel(context.Background())
	defer shutdown()
	served := make(chan error, 1)
	go func() { served <- serve(ctx, newServer(NewAPI(db, slog.New(slog.DiscardHandler)).Handler()), ln) }()
	c := &client{t: t, base: "http://" + ln.Addr().String(), http: &http.Client{Timeout: 30 * time.Second}}
	c.do("POST", "/articles", article)

	hold.Store(true)
	inFlight := make(chan result, 1)
	go func() {
		r, err := c.send("GET", "/articles/engine", "")
		if err != nil {
			r.status = -1
		}
		inFlight <- r
	}()
	<-held
	shutdown() // as SIGTERM does through signal.NotifyContext

	waitUntil(t, "the listener is closed", func() bool {
		conn, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second)
		if err == nil {
			conn.Close()
		}
		return err != nil
	})
	select {
	case err := <-served:
		t.Fatalf("serve returned %v with a request in flight", err)
	default:
	}

	close(release)
	if r := <-inFlight; r.status != http.StatusOK || r.header.Get("ETag") != `"1"` {
		t.Errorf("the request in flight got status %d, ETag %q; want 200, \"1\"", r.status, r.header.Get("ETag"))
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(shutdownTimeout):
		t.Fatal("serve did not return after the request completed")
	}
}

// The server's timeouts are all set: an unset one lets a client hold a
// connection forever.
func TestServerTimeouts(t *testing.T) {
	srv := newServer(http.NotFoundHandler())
	timeouts := map[string]time.Duration{
		"ReadHeaderTimeout": srv.ReadHeaderTimeout,
		"ReadTimeout":       srv.ReadTimeout,
		"WriteTimeout":      srv.WriteTimeout,
		"IdleTimeout":       srv.IdleTimeout,
	}
	for name, d := range timeouts {
		if d <= 0 {
			t.Errorf("%s is not set", name)
		}
	}
	if srv.WriteTimeout <= requestTimeout {
		t.Errorf("WriteTimeout %v leaves no time to answer a request cut at %v", srv.WriteTimeout, requestTimeout)
	}
}

// waitUntil polls cond until it holds, for at most 5 seconds.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
	}
}
