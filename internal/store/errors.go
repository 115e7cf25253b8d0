package store

import (
	"fmt"
	"time"

	"github.com/rynodb/rynodb/internal/errs"
)

// The list engine's refusals carry internal keys; package ryno shows each as its
// public counterpart (ConflictError, LeaseError) with the same message.

// ListConflictError reports a list write that kept losing races to other writers.
type ListConflictError struct {
	Subject   Key
	Predicate string
	Reason    string
}

func (e *ListConflictError) Error() string {
	return fmt.Sprintf("%sconflicting write of the list %s -%s->: %s", errs.Prefix, e.Subject, e.Predicate, e.Reason)
}

// Is makes errors.Is match errs.ErrConflict.
func (e *ListConflictError) Is(target error) bool { return target == errs.ErrConflict }

// ListHeldError reports a list write that another writer's lease kept out until
// Until; Err says why the write stopped waiting.
type ListHeldError struct {
	Subject   Key
	Predicate string
	Until     time.Time
	Err       error
}

func (e *ListHeldError) Error() string {
	return fmt.Sprintf("%sthe list %s -%s-> is held by another writer until %s",
		errs.Prefix, e.Subject, e.Predicate, e.Until.UTC().Format(time.RFC3339Nano))
}

// Is makes errors.Is match errs.ErrConflict.
func (e *ListHeldError) Is(target error) bool { return target == errs.ErrConflict }

func (e *ListHeldError) Unwrap() error { return e.Err }
