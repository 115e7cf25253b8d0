package catalog

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/rynodb/rynodb/ryno"
)

// RequestError is a request refused before it reaches the store; its message is
// meant for the client.
type RequestError struct {
	Status  int
	Message string
}

func (e *RequestError) Error() string { return e.Message }

// BadRequest returns a 400 *RequestError with a formatted message.
func BadRequest(format string, args ...any) error {
	return &RequestError{Status: http.StatusBadRequest, Message: fmt.Sprintf(format, args...)}
}

// errPreconditionFailed reports a write whose If-Match named a version the entity
// no longer has, or an entity that is gone.
var errPreconditionFailed = errors.New("the entity is not at the version in If-Match")

// conditional returns err as errPreconditionFailed when the write it comes from
// was conditional on version (If-Match) and the store found another version, or
// no entity: a *ryno.ConflictError. Only that error is a failed precondition.
// ErrConflict alone is not: a *ryno.UniqueError (a unique value another entity
// holds) and ErrExists match it too, and they are 409s whatever If-Match says.
// Without a version, a conflict means concurrent writers kept winning: a 409.
func conditional(err error, version int64) error {
	var stale *ryno.ConflictError
	if version != 0 && errors.As(err, &stale) {
		return fmt.Errorf("%w: %w", errPreconditionFailed, err)
	}
	return err
}

// RetryAfter returns how long a client should wait before it tries again, for the
// Retry-After header of a 503: until the lease that refused the write ends.
func RetryAfter(err error, now time.Time) (seconds int, ok bool) {
	var lease *ryno.LeaseError
	if !errors.As(err, &lease) {
		return 0, false
	}
	return max(1, int(math.Ceil(lease.Until.Sub(now).Seconds()))), true
}

// StatusOf maps an error to the status and message the client sees. Only input
// errors say more than their status: the message of a 500 must not reveal tables,
// keys or the store's internals, which go to the log instead.
func StatusOf(err error) (status int, msg string) {
	var refused *RequestError
	var invalid *ryno.ValidationError
	switch {
	case errors.As(err, &refused):
		return refused.Status, refused.Message
	case errors.As(err, &invalid):
		return http.StatusBadRequest, invalid.Field + ": " + invalid.Reason
	case errors.Is(err, ryno.ErrInvalidCursor):
		return http.StatusBadRequest, "the cursor is not one this listing issued"
	case errors.Is(err, ryno.ErrInvalid):
		return http.StatusBadRequest, "the request is invalid"
	case errors.As(err, new(*ryno.PartialWriteError)), errors.Is(err, ryno.ErrOutcomeUnknown):
		// Before the precondition: the write may have landed, and the client must
		// read the entity before it tries again.
		return http.StatusInternalServerError, "the write may have landed; read the entity before trying again"
	case errors.Is(err, errPreconditionFailed): // before ErrNotFound: a deleted entity fails If-Match too
		return http.StatusPreconditionFailed, errPreconditionFailed.Error()
	case errors.Is(err, ryno.ErrNotFound):
		return http.StatusNotFound, "not found"
	case errors.As(err, new(*ryno.UniqueError)): // before ErrExists, which it matches
		return http.StatusConflict, "a value that must be unique is taken"
	case errors.Is(err, ryno.ErrExists):
		return http.StatusConflict, "already exists"
	case errors.As(err, new(*ryno.LeaseError)): // before ErrConflict, which it matches
		return http.StatusServiceUnavailable, "a large change holds the list; try again later"
	case errors.As(err, new(*ryno.BatchError)) && (errors.Is(err, ryno.ErrUnprocessed) || errors.Is(err, context.DeadlineExceeded)):
		return http.StatusServiceUnavailable, "the store is busy; try again later"
	case errors.Is(err, ryno.ErrConflict):
		return http.StatusConflict, "changed by a concurrent request; try again"
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable, "the request took too long"
	default:
		return http.StatusInternalServerError, "internal error"
	}
}
