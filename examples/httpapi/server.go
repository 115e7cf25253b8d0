package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// shutdownTimeout bounds how long a shutdown waits for the requests in flight; it
// stays below the 30 seconds a container orchestrator usually gives between
// SIGTERM and SIGKILL.
const shutdownTimeout = 20 * time.Second

// newServer returns a server for h whose timeouts keep a slow or idle client from
// holding a connection, and a goroutine, forever.
func newServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      requestTimeout + 5*time.Second, // room to answer a request that timed out
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
}

// serve serves srv on ln until ctx ends, then shuts it down gracefully: it stops
// accepting connections and waits up to shutdownTimeout for the requests in
// flight to complete. It returns nil after a clean shutdown.
func serve(ctx context.Context, srv *http.Server, ln net.Listener) error {
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	select {
	case err := <-served:
		return err // Serve failed on its own; it never returns nil
	case <-ctx.Done():
	}
	// ctx is done: the shutdown needs a deadline of its own.
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shut down: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
