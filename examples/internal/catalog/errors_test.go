package catalog

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/rynodb/rynodb/ryno"
)

// TestStatusOfStoreErrors maps the store's errors, as a write with or without
// If-Match returns them, to statuses: 412 only for a version check that failed,
// 409 for a value or an entity that exists.
func TestStatusOfStoreErrors(t *testing.T) {
	key := ryno.Key{Scope: Scope, Type: "article", ID: "a"}
	stale := &ryno.ConflictError{Key: key, Expected: 3, Stored: 4, Reason: "version 4 is stored"}
	gone := &ryno.ConflictError{Key: key, Expected: 3, Missing: true, Reason: "the entity is gone"}
	lost := &ryno.ConflictError{Key: key, Reason: "concurrent writers kept winning"}
	taken := &ryno.UniqueError{Index: "email", Value: "ada@example.com", Owner: ryno.Key{Scope: Scope, Type: "author", ID: "b"}}
	tests := []struct {
		name    string
		err     error
		version int64 // the If-Match version; 0 for none
		want    int
	}{
		{"stale If-Match", stale, 3, http.StatusPreconditionFailed},
		{"If-Match of an entity gone", gone, 3, http.StatusPreconditionFailed},
		{"unique value taken, with If-Match", taken, 3, http.StatusConflict},
		{"unique value taken, wrapped, with If-Match", fmt.Errorf("ryno: update: %w", taken), 3, http.StatusConflict},
		{"unique value taken", taken, 0, http.StatusConflict},
		{"entity exists", fmt.Errorf("ryno: create: %w", ryno.ErrExists), 0, http.StatusConflict},
		{"concurrent writers kept winning", lost, 0, http.StatusConflict},
		{"not found", ryno.ErrNotFound, 0, http.StatusNotFound},
		{"not found, with If-Match", ryno.ErrNotFound, 3, http.StatusNotFound},
		{"other", errors.New("boom"), 3, http.StatusInternalServerError},
		{"written in part, with If-Match", &ryno.PartialWriteError{Entity: &ryno.Entity{Key: key}, Err: stale}, 3, http.StatusInternalServerError},
		{"outcome unknown at the deadline", fmt.Errorf("%w: %w", ryno.ErrOutcomeUnknown, context.DeadlineExceeded), 0, http.StatusInternalServerError},
		{"a list held by a lease", &ryno.LeaseError{Key: key, Predicate: "authors", Until: time.Now().Add(time.Minute), Err: ryno.ErrConflict}, 0, http.StatusServiceUnavailable},
		{"a batch out of retries", &ryno.BatchError{Op: "BatchGetItem", Err: ryno.ErrUnprocessed}, 0, http.StatusServiceUnavailable},
		{"a batch at the deadline", &ryno.BatchError{Op: "BatchGetItem", Err: context.DeadlineExceeded}, 0, http.StatusServiceUnavailable},
		{"a batch that failed otherwise", &ryno.BatchError{Op: "BatchGetItem", Err: errors.New("boom")}, 0, http.StatusInternalServerError},
		{"the deadline", fmt.Errorf("ryno: get: %w", context.DeadlineExceeded), 0, http.StatusServiceUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, msg := StatusOf(conditional(tt.err, tt.version)); got != tt.want {
				t.Errorf("status %d (%s), want %d", got, msg, tt.want)
			}
		})
	}
	now := time.Now()
	if s, ok := RetryAfter(fmt.Errorf("ryno: add: %w", &ryno.LeaseError{Until: now.Add(1500 * time.Millisecond)}), now); !ok || s != 2 {
		t.Errorf("Retry-After of a lease ending in 1.5 s: %d, %v; want 2", s, ok)
	}
	if _, ok := RetryAfter(errors.New("boom"), now); ok {
		t.Error("Retry-After of an error that is no lease")
	}
}
