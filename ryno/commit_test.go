package ryno

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/store"
	"github.com/stretchr/testify/require"
)

func TestConflictErrorMatches(t *testing.T) {
	tests := []struct {
		name                       string
		err                        error
		conflict, notFound, exists bool
	}{
		{"stored another version", &ConflictError{Key: stateKey, Expected: 2, Stored: 3, Reason: "r"}, true, false, false},
		{"missing", &ConflictError{Key: stateKey, Expected: 2, Missing: true, Reason: "r"}, true, true, false},
		{"missing, wrapped", fmt.Errorf("update: %w", &ConflictError{Key: stateKey, Missing: true}), true, true, false},
		{"ErrExists wrapped", fmt.Errorf("%w: x", ErrExists), true, false, true},
		{"ErrConflict is not ErrExists", ErrConflict, true, false, false},
		{"ErrNotFound", ErrNotFound, false, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.conflict, errors.Is(tt.err, ErrConflict), "ErrConflict")
			require.Equal(t, tt.notFound, errors.Is(tt.err, ErrNotFound), "ErrNotFound")
			require.Equal(t, tt.exists, errors.Is(tt.err, ErrExists), "ErrExists")
			require.False(t, errors.Is(tt.err, ErrUnknownIndex))
		})
	}
}

func TestConflictErrorMessage(t *testing.T) {
	err := &ConflictError{Key: Key{Scope: "s", Type: "t", ID: "a:b"}, Expected: 2, Stored: 3, Reason: "expected version 2, stored is 3"}
	require.EqualError(t, err, "ryno: conflicting write of s:t:a%3Ab: expected version 2, stored is 3")
}

func TestPartialWriteError(t *testing.T) {
	e := &PartialWriteError{Entity: &Entity{Key: Key{Scope: "s", Type: "t", ID: "a:b"}, Version: 4}, Err: errInjected}
	wrapped := fmt.Errorf("put: %w", e)
	require.ErrorIs(t, wrapped, errInjected)
	require.Same(t, errInjected, errors.Unwrap(e))
	var pw *PartialWriteError
	require.ErrorAs(t, wrapped, &pw)
	require.Same(t, e, pw)
	require.ErrorContains(t, e, "s:t:a%3Ab")
	require.ErrorContains(t, e, "version 4")
	require.ErrorContains(t, e, errInjected.Error())
	require.False(t, errors.Is(e, ErrConflict))
}

func TestUnknownIndexError(t *testing.T) {
	e := &UnknownIndexError{Key: stateKey, Indexes: []string{"byName", "by:age"}}
	wrapped := fmt.Errorf("update: %w", e)
	require.ErrorIs(t, wrapped, ErrUnknownIndex)
	require.False(t, errors.Is(wrapped, ErrConflict))
	require.ErrorContains(t, e, "byName, by:age")
	require.ErrorContains(t, e, stateKey.String())
	require.ErrorContains(t, e, `type "t"`)
}

func TestPublicErrorShowsTheStoreErrorsAsPublicTypes(t *testing.T) {
	subject := Key{Scope: "s", Type: "board", ID: "b"}
	until := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	held := &store.ListHeldError{Subject: relationships.Key(subject), Predicate: "cards", Until: until, Err: context.DeadlineExceeded}
	lost := &store.ListConflictError{Subject: relationships.Key(subject), Predicate: "cards", Reason: "gave up"}
	tests := []struct {
		name string
		err  error
	}{
		{"held", held},
		{"held, in a call's context", wrap(held, "add relationships %s -cards->", subject)},
		{"a conflict joined to another error", errors.Join(io.EOF, wrap(lost, "x"))},
		{"a conflict after the entity was written", &PartialWriteError{Entity: &Entity{Key: subject, Version: 2}, Err: lost}},
		{"a transaction's refusal", &TransactionError{Ops: []OpError{{Index: 1, Op: "Add", Key: subject, Err: held}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := publicError(tt.err)
			require.EqualError(t, got, tt.err.Error(), "the message is the store's")
			require.ErrorIs(t, got, ErrConflict)
			var internalHeld *store.ListHeldError
			var internalLost *store.ListConflictError
			require.False(t, errors.As(got, &internalHeld) || errors.As(got, &internalLost), "no internal type reaches the caller")
			var le *LeaseError
			var ce *ConflictError
			switch {
			case errors.As(got, &le):
				require.Equal(t, LeaseError{Key: subject, Predicate: "cards", Until: until, Err: context.DeadlineExceeded}, *le)
				require.ErrorIs(t, got, context.DeadlineExceeded)
			case errors.As(got, &ce):
				require.Equal(t, ConflictError{Key: subject, Predicate: "cards", Reason: "gave up"}, *ce)
			default:
				t.Fatalf("%v is neither a *LeaseError nor a *ConflictError", got)
			}
		})
	}
	other := wrap(io.EOF, "get")
	require.Same(t, other, publicError(other), "an error with nothing to show is returned as it is")
}
