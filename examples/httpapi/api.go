package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

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

// handler is an http.HandlerFunc that returns its failure, for one place to answer.
type handler func(w http.ResponseWriter, r *http.Request) error

// Handler returns the API's routes.
func (a *API) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", a.health)
	for _, k := range []kind{articles, authors} {
		mux.Handle("POST /"+k.collection, a.handle(a.create(k)))
		mux.Handle("GET /"+k.collection, a.handle(a.list(k)))
		mux.Handle("GET /"+k.collection+"/{id}", a.handle(a.get(k)))
		mux.Handle("PUT /"+k.collection+"/{id}", a.handle(a.update(k)))
		mux.Handle("DELETE /"+k.collection+"/{id}", a.handle(a.remove(k)))
	}
	mux.Handle("GET /articles/{id}/authors", a.handle(a.listAuthors))
	mux.Handle("PUT /articles/{id}/authors/{authorId}", a.handle(a.addAuthor))
	mux.Handle("DELETE /articles/{id}/authors/{authorId}", a.handle(a.removeAuthor))
	mux.Handle("GET /authors/{id}/articles", a.handle(a.articlesBy))
	mux.Handle("GET /tags/{tag}/articles", a.handle(a.articlesTagged))
	return mux
}

// handle adapts h: it bounds the request's store calls by requestTimeout, sends
// what they cost in the Server-Timing header, and answers h's error with its
// status.
func (a *API) handle(h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
		defer cancel()
		ctx, cost := withCost(ctx)
		w = &costWriter{ResponseWriter: w, cost: cost}
		r = r.WithContext(ctx)
		if err := h(w, r); err != nil {
			a.fail(w, r, err)
		}
	})
}

// fail answers err with its status; the cause of a 5xx is logged.
func (a *API) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := statusOf(err)
	if status >= http.StatusInternalServerError && !errors.Is(r.Context().Err(), context.Canceled) {
		a.log.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "error", err)
	}
	if seconds, ok := retryAfter(err, time.Now()); ok && status == http.StatusServiceUnavailable {
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

// writeEntity answers the entity's document with its version as the ETag.
func writeEntity(w http.ResponseWriter, status int, e *ryno.Entity) {
	w.Header().Set("ETag", etag(e.Version))
	writeJSON(w, status, document(e))
}
