package store

import (
	"fmt"
	"time"

	"github.com/rynodb/rynodb/internal/errs"
)

// The store's refusals carry internal keys. Package ryno shows each as the public
// type of the same name, with the same fields and message.

// ConflictError reports a write whose expectation of the stored entity did not
// hold: it expected version Expected (0: the entity absent, or any version for a
// write that kept losing races) and found Stored (0: no entity). For a list,
// Predicate names it. Nothing was written.
type ConflictError struct {
	Key       Key
	Predicate string // the list's predicate; "" for the entity itself
	Expected  int64
	Stored    int64
	Missing   bool   // the entity does not exist
	Reason    string // why, for the message
}

func (e *ConflictError) Error() string {
	if e.Predicate != "" {
		return fmt.Sprintf("%sconflicting write of the list %s -%s->: %s", errs.Prefix, e.Key, e.Predicate, e.Reason)
	}
	return fmt.Sprintf("%sconflicting write of %s: %s", errs.Prefix, e.Key, e.Reason)
}

// Is makes errors.Is match errs.ErrConflict, and errs.ErrNotFound when the entity
// is missing.
func (e *ConflictError) Is(target error) bool {
	return target == errs.ErrConflict || e.Missing && target == errs.ErrNotFound
}

// LeaseError reports a list write that another writer's lease kept out until
// Until; Err says why the write stopped waiting.
type LeaseError struct {
	Key       Key
	Predicate string
	Until     time.Time
	Err       error
}

func (e *LeaseError) Error() string {
	return fmt.Sprintf("%sthe list %s -%s-> is held by another writer until %s",
		errs.Prefix, e.Key, e.Predicate, e.Until.UTC().Format(time.RFC3339Nano))
}

// Is makes errors.Is match errs.ErrConflict.
func (e *LeaseError) Is(target error) bool { return target == errs.ErrConflict }

func (e *LeaseError) Unwrap() error { return e.Err }

// ConditionError reports a write refused because its condition did not hold.
type ConditionError struct {
	Key       Key
	Condition string
}

func (e *ConditionError) Error() string {
	return fmt.Sprintf("%s%s: the condition %s does not hold", errs.Prefix, e.Key, e.Condition)
}

// Is makes errors.Is match errs.ErrConflict.
func (e *ConditionError) Is(target error) bool { return target == errs.ErrConflict }
