package store

import (
	"fmt"
	"time"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/tables"
)

// KeptChanging is the error of a write whose attempts ran out (err says how: its
// pacing's budget, or its context) while other writers kept changing k, or k's list
// under predicate when not "": the one *ConflictError of an optimistic loop that
// gave up. expected is the version the write required, 0 for none.
func KeptChanging(k Key, predicate string, expected int64, err error) *entity.ConflictError {
	return &entity.ConflictError{Key: k, Predicate: predicate, Expected: expected, Reason: "concurrent writers kept changing it: " + err.Error()}
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
		return &entity.ConflictError{Key: k, Expected: expected, Missing: true,
			Reason: fmt.Sprintf("expected the entity created at %s, it does not exist", schema.FormatTime(want))}
	case !stored.Equal(want):
		return &entity.ConflictError{Key: k, Expected: expected, Missing: true,
			Reason: fmt.Sprintf("expected the entity created at %s, it was deleted and created again at %s", schema.FormatTime(want), schema.FormatTime(stored))}
	}
	return nil
}

// unreadable is the refusal of the entity item of k, which cannot be read for err.
func unreadable(k Key, err error) *entity.UnreadableError {
	return &entity.UnreadableError{Items: []entity.UnreadableItem{{Key: k, Err: err}}}
}

// TransactionLimitError reports a transaction over one of DynamoDB's limits on
// TransactWriteItems: package tables' type of the name, which package ryno names too.
type TransactionLimitError = tables.TransactionLimitError

// invalid is the error of input refused before any request.
func invalid(field, value, reason string) error {
	return &schema.ValidationError{Field: field, Value: value, Reason: reason}
}
