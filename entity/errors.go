package entity

import (
	"fmt"
	"strings"
	"time"

	"github.com/rynodb/rynodb/internal/errs"
)

// The errors below are raised as they are by the machinery under package ryno,
// which names each again: ryno.ConflictError is ConflictError, and so on. The
// sentinels they match (ErrConflict, ErrNotFound, ...) are ryno's.

// ConflictError reports a write whose expectation of the stored entity did not
// hold: it expected version Expected (0: the entity absent, or any version for a
// write that kept losing races) and found Stored (0: no entity). Nothing was written.
// It matches ryno.ErrConflict, and ryno.ErrNotFound too when the entity does not
// exist.
//
// For a relationship list, Predicate names the list: Key's list under Predicate
// (Expected and Stored are 0). A list write under ryno.IfListVersion whose list is
// at another version fails with one.
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

// Is makes errors.Is match ryno.ErrConflict, and ryno.ErrNotFound when the entity
// is missing.
func (e *ConflictError) Is(target error) bool {
	return target == errs.ErrConflict || e.Missing && target == errs.ErrNotFound
}

// LeaseError reports a write of a relationship list that another writer holds for a
// change too large for one transaction: Key's list under Predicate, leased until
// Until (by the writer's clock). Nothing was written. A writer that is cut off
// holds the list until then; the first write after Until takes the list over and
// finishes what was left. To wait for it, retry after time.Until(Until). It
// matches ryno.ErrConflict.
type LeaseError struct {
	Key       Key
	Predicate string
	Until     time.Time
	Err       error // why the write stopped waiting: its attempts ran out, or its context ended
}

func (e *LeaseError) Error() string {
	return fmt.Sprintf("%sthe list %s -%s-> is held by another writer until %s",
		errs.Prefix, e.Key, e.Predicate, e.Until.UTC().Format(time.RFC3339Nano))
}

// Is makes errors.Is match ryno.ErrConflict.
func (e *LeaseError) Is(target error) bool { return target == errs.ErrConflict }

func (e *LeaseError) Unwrap() error { return e.Err }

// ConditionError reports a write refused because its condition (ryno.If) did not
// hold. It matches ryno.ErrConflict: the entity is not as the writer required.
type ConditionError struct {
	Key       Key
	Condition string
}

func (e *ConditionError) Error() string {
	return fmt.Sprintf("%s%s: the condition %s does not hold", errs.Prefix, e.Key, e.Condition)
}

// Is makes errors.Is match ryno.ErrConflict.
func (e *ConditionError) Is(target error) bool { return target == errs.ErrConflict }

// UniqueError reports a write refused because another entity holds a value of a
// unique index: Index and Value (as the map function emitted it) name it, Owner is
// the entity holding it. It matches ryno.ErrExists (and so ryno.ErrConflict).
type UniqueError struct {
	Index string
	Value any
	Owner Key
}

func (e *UniqueError) Error() string {
	return fmt.Sprintf("%s%v is taken in unique index %s by %s", errs.Prefix, e.Value, e.Index, e.Owner)
}

// Is makes errors.Is match ryno.ErrExists and ryno.ErrConflict.
func (e *UniqueError) Is(target error) bool {
	return target == errs.ErrExists || target == errs.ErrConflict
}

// UnknownIndexError reports an entity last written by a client that maintains
// indexes this one does not register (Indexes names them). Register the same
// indexes in every client that writes the type; to drop an index deliberately, run
// Reindex with the new set. It matches ryno.ErrUnknownIndex.
type UnknownIndexError struct {
	Key     Key
	Indexes []string
}

func (e *UnknownIndexError) Error() string {
	return fmt.Sprintf("%s%s was last written with indexes %s, which this client does not register for type %q",
		errs.Prefix, e.Key, strings.Join(e.Indexes, ", "), e.Key.Type)
}

// Is makes errors.Is match ryno.ErrUnknownIndex.
func (e *UnknownIndexError) Is(target error) bool { return target == errs.ErrUnknownIndex }

// UnreadableError reports entity items that are stored but cannot be read as
// entities: an attribute of the store's holds what it never writes there, such as a
// _created that is no time ("yesterday"), as another program or a hand edit in the
// console can leave it. Items names each, with why, in the order read. It matches
// ryno.ErrUnreadable. Package ryno says which calls return it, and with what.
type UnreadableError struct {
	Items []UnreadableItem
}

// UnreadableItem is one entity item an *UnreadableError reports: its Key, and Err,
// why it cannot be read.
type UnreadableItem struct {
	Key Key
	Err error
}

func (e *UnreadableError) Error() string {
	if len(e.Items) == 1 {
		return fmt.Sprintf("%scannot read the stored entity %s: %s", errs.Prefix, e.Items[0].Key, errs.Message(e.Items[0].Err))
	}
	parts := make([]string, len(e.Items))
	for i, it := range e.Items {
		parts[i] = it.Key.String() + " (" + errs.Message(it.Err) + ")"
	}
	return fmt.Sprintf("%scannot read %d stored entities: %s", errs.Prefix, len(e.Items), strings.Join(parts, "; "))
}

// Is makes errors.Is match ryno.ErrUnreadable.
func (e *UnreadableError) Is(target error) bool { return target == errs.ErrUnreadable }

// Keys returns the keys of the items it reports, in order.
func (e *UnreadableError) Keys() []Key {
	keys := make([]Key, len(e.Items))
	for i, it := range e.Items {
		keys[i] = it.Key
	}
	return keys
}

// TransactionError reports a transaction refused because conditions of some of its
// operations did not hold; nothing was written. Ops says which and why: a
// *ConflictError (another version), ryno.ErrExists, ryno.ErrNotFound, a
// *ConditionError, a *UniqueError, ryno.ErrHasRelationships, an *UnknownIndexError.
// errors.Is and errors.As see every one of them.
// A refusal the store finds while reading, before sending anything, is reported the
// same way as one DynamoDB finds at the commit.
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
