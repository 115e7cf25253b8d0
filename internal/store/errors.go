package store

import (
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/tables"
)

// The store's refusals carry internal keys. Package ryno shows each as the public
// type of the same name, with the same fields (its Key for the internal one, its
// Entity for the item), whose Error and Is are those of its twin here: one source
// for each message.

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

// KeptChanging is the error of a write whose attempts ran out (err says how: its
// pacing's budget, or its context) while other writers kept changing k, or k's list
// under predicate when not "": the one *ConflictError of an optimistic loop that
// gave up. expected is the version the write required, 0 for none.
func KeptChanging(k Key, predicate string, expected int64, err error) *ConflictError {
	return &ConflictError{Key: k, Predicate: predicate, Expected: expected, Reason: "concurrent writers kept changing it: " + err.Error()}
}

// OtherLife is the refusal of a write that requires the life of k created at want
// (IfCreated, or the Created a versioned write carries; zero: any) and finds the
// live entity created at stored (zero: none). The life the write names is gone, so
// the *ConflictError matches ErrNotFound too. Nil when stored is that life.
func OtherLife(k Key, expected int64, want, stored time.Time) error {
	if want.IsZero() {
		return nil
	}
	switch want = schema.TruncateTime(want); {
	case stored.IsZero():
		return &ConflictError{Key: k, Expected: expected, Missing: true,
			Reason: fmt.Sprintf("expected the entity created at %s, it does not exist", schema.FormatTime(want))}
	case !stored.Equal(want):
		return &ConflictError{Key: k, Expected: expected, Missing: true,
			Reason: fmt.Sprintf("expected the entity created at %s, it was deleted and created again at %s", schema.FormatTime(want), schema.FormatTime(stored))}
	}
	return nil
}

// UnreadableError reports an entity item the store holds but cannot read; Err says
// why. A write that keeps what the stored entity holds refuses it.
type UnreadableError struct {
	Key Key
	Err error
}

func (e *UnreadableError) Error() string {
	return fmt.Sprintf("%scannot read the stored entity %s: %s", errs.Prefix, e.Key, errs.Message(e.Err))
}

// Is makes errors.Is match errs.ErrUnreadable.
func (e *UnreadableError) Is(target error) bool { return target == errs.ErrUnreadable }

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

// UniqueError reports a write refused because Owner holds the value of a unique
// index (Value, as the map function emitted it).
type UniqueError struct {
	Index string
	Value any
	Owner Key
}

func (e *UniqueError) Error() string {
	return fmt.Sprintf("%s%v is taken in unique index %s by %s", errs.Prefix, e.Value, e.Index, e.Owner)
}

// Is makes errors.Is match errs.ErrExists and errs.ErrConflict.
func (e *UniqueError) Is(target error) bool {
	return target == errs.ErrExists || target == errs.ErrConflict
}

// UnknownIndexError reports an entity last written with indexes (Indexes) this
// client does not register.
type UnknownIndexError struct {
	Key     Key
	Indexes []string
}

func (e *UnknownIndexError) Error() string {
	return fmt.Sprintf("%s%s was last written with indexes %s, which this client does not register for type %q",
		errs.Prefix, e.Key, strings.Join(e.Indexes, ", "), e.Key.Type)
}

// Is makes errors.Is match errs.ErrUnknownIndex.
func (e *UnknownIndexError) Is(target error) bool { return target == errs.ErrUnknownIndex }

// PartialWriteError reports a write that stored the entity Key at Version, as
// Item, but failed in a later step, for Err.
type PartialWriteError struct {
	Key     Key
	Version int64
	Item    map[string]types.AttributeValue
	Err     error
}

func (e *PartialWriteError) Error() string {
	return fmt.Sprintf("%s%s is written (version %d), the rest is not: %s", errs.Prefix, e.Key, e.Version, errs.Message(e.Err))
}

func (e *PartialWriteError) Unwrap() error { return e.Err }

// TransactionError reports a transaction refused because conditions of some of its
// operations did not hold: Ops says which and why. Nothing was written.
type TransactionError struct {
	Ops []OpError
}

// OpError is why one operation of a transaction was refused.
type OpError struct {
	Index int // the operation's position in the call
	Op    string
	Key   Key
	Err   error
}

func (e *TransactionError) Error() string {
	parts := make([]string, len(e.Ops))
	for i, o := range e.Ops {
		parts[i] = fmt.Sprintf("operation %d (%s %s): %s", o.Index, o.Op, o.Key, errs.Message(o.Err))
	}
	return errs.Prefix + "transaction refused: " + strings.Join(parts, "; ")
}

// Unwrap returns the errors of the refused operations.
func (e *TransactionError) Unwrap() []error {
	out := make([]error, len(e.Ops))
	for i, o := range e.Ops {
		out[i] = o.Err
	}
	return out
}

// TransactionLimitError reports a transaction over one of DynamoDB's limits on
// TransactWriteItems: package tables' type of the name, which package ryno names too.
type TransactionLimitError = tables.TransactionLimitError

// invalid is the error of input refused before any request.
func invalid(field, value, reason string) error {
	return &schema.ValidationError{Field: field, Value: value, Reason: reason}
}
