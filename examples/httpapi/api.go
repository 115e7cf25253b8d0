package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/rynodb/rynodb/examples/internal/catalog"
	"github.com/rynodb/rynodb/ryno"
)

// requestTimeout bounds the store calls of one request, below the server's
// WriteTimeout, so that a slow store gets an answer the client can still read.
const requestTimeout = 10 * time.Second

// API serves the catalogue over HTTP. It holds no state of its own beyond the
// store's client, which is safe for concurrent use.
type API struct {
	db  *ryno.Client
	log *slog.Logger
}

// NewAPI returns the API of the catalogue in db; it logs the errors it hides from
// clients to log.
func NewAPI(db *ryno.Client, log *slog.Logger) *API { return &API{db: db, log: log} }

// Handler returns the API's routes: the catalogue's, and the health check.
func (a *API) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", a.health)
	for pattern, h := range catalog.Routes(a.db) {
		mux.Handle(pattern, a.handle(h))
	}
	return mux
}

// handle serves h: it bounds the request's store calls by requestTimeout, sends
// what they cost in the Server-Timing header, and answers h's reply, or its error
// with its status.
func (a *API) handle(h catalog.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
		defer cancel()
		ctx, cost := withCost(ctx)
		w = &costWriter{ResponseWriter: w, cost: cost}
		r = r.WithContext(ctx)
		reply, err := h(ctx, newRequest(w, r))
		if err != nil {
			a.fail(w, r, err)
			return
		}
		write(w, reply)
	})
}

// write answers the reply: its body as JSON, its version as the ETag.
func write(w http.ResponseWriter, reply catalog.Reply) {
	if reply.Location != "" {
		w.Header().Set("Location", reply.Location)
	}
	if reply.Version != 0 {
		w.Header().Set("ETag", catalog.ETag(reply.Version))
	}
	if reply.Body == nil {
		w.WriteHeader(reply.Status)
		return
	}
	writeJSON(w, reply.Status, reply.Body)
}

// fail answers err with its status; the cause of a 5xx is logged.
func (a *API) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := catalog.StatusOf(err)
	if status >= http.StatusInternalServerError && !errors.Is(r.Context().Err(), context.Canceled) {
		a.log.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "error", err)
	}
	if seconds, ok := catalog.RetryAfter(err, time.Now()); ok && status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", strconv.Itoa(seconds))
	}
	writeJSON(w, status, map[string]string{"error": msg})
}

// writeJSON answers v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	// The status is sent: an encoding error can only be a client gone.
	_ = json.NewEncoder(w).Encode(v)
}
