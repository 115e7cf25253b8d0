package ryno

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
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
	sk := subject
	until := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	held := &store.LeaseError{Key: sk, Predicate: "cards", Until: until, Err: context.DeadlineExceeded}
	lost := &store.ConflictError{Key: sk, Predicate: "cards", Reason: "gave up"}
	stale := &store.ConflictError{Key: sk, Expected: 3, Stored: 4, Reason: "expected version 3, stored is 4"}
	gone := &store.ConflictError{Key: sk, Expected: 3, Missing: true, Reason: "the entity does not exist"}
	refused := &store.ConditionError{Key: sk, Condition: "open = true"}
	tests := []struct {
		name string
		err  error
		want error // the public error errors.As must find
	}{
		{"held", held, &LeaseError{Key: subject, Predicate: "cards", Until: until, Err: context.DeadlineExceeded}},
		{"held, in a call's context", wrap(held, "add relationships %s -cards->", subject), &LeaseError{Key: subject, Predicate: "cards", Until: until, Err: context.DeadlineExceeded}},
		{"a list conflict joined to another error", errors.Join(io.EOF, wrap(lost, "x")), &ConflictError{Key: subject, Predicate: "cards", Reason: "gave up"}},
		{"a list conflict after the entity was written", &PartialWriteError{Entity: &Entity{Key: subject, Version: 2}, Err: lost}, &ConflictError{Key: subject, Predicate: "cards", Reason: "gave up"}},
		{"a transaction's refusal", &store.TransactionError{Ops: []store.OpError{{Index: 1, Op: "Add", Key: sk, Err: held}}}, &LeaseError{Key: subject, Predicate: "cards", Until: until, Err: context.DeadlineExceeded}},
		{"a list conflict after the store wrote the entity", &store.PartialWriteError{Key: sk, Version: 2, Err: lost}, &ConflictError{Key: subject, Predicate: "cards", Reason: "gave up"}},
		{"another version", wrap(stale, "delete"), &ConflictError{Key: subject, Expected: 3, Stored: 4, Reason: stale.Reason}},
		{"no entity", gone, &ConflictError{Key: subject, Expected: 3, Missing: true, Reason: gone.Reason}},
		{"a condition", wrap(refused, "delete"), &ConditionError{Key: subject, Condition: "open = true"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := publicError(tt.err)
			require.EqualError(t, got, tt.err.Error(), "the message is the store's")
			require.ErrorIs(t, got, ErrConflict)
			require.Equal(t, errors.Is(tt.err, ErrNotFound), errors.Is(got, ErrNotFound))
			var internalHeld *store.LeaseError
			var internalLost *store.ConflictError
			var internalRefused *store.ConditionError
			require.False(t, errors.As(got, &internalHeld) || errors.As(got, &internalLost) || errors.As(got, &internalRefused),
				"no internal type reaches the caller")
			switch want := tt.want.(type) {
			case *LeaseError:
				var le *LeaseError
				require.ErrorAs(t, got, &le)
				require.Equal(t, want, le)
			case *ConflictError:
				var ce *ConflictError
				require.ErrorAs(t, got, &ce)
				require.Equal(t, want, ce)
			case *ConditionError:
				var ce *ConditionError
				require.ErrorAs(t, got, &ce)
				require.Equal(t, want, ce)
			}
		})
	}
	other := wrap(io.EOF, "get")
	require.Same(t, other, publicError(other), "an error with nothing to show is returned as it is")
}

func TestPublicErrorShowsTheStoreRefusalsOfEntityWrites(t *testing.T) {
	k := Key{Scope: "s", Type: "user", ID: "u"}
	item := map[string]types.AttributeValue{
		schema.AttrID: str("u"), schema.AttrScope: str("s"), schema.AttrType: str("user"),
		schema.AttrVersion: number(2), "name": str("ada"),
	}
	taken := &store.UniqueError{Index: "email", Value: "a@x", Owner: k}
	unknown := &store.UnknownIndexError{Key: k, Indexes: []string{"byName"}}
	partial := &store.PartialWriteError{Key: k, Version: 2, Item: item, Err: io.EOF}
	refused := &store.TransactionError{Ops: []store.OpError{{Index: 0, Op: "create", Key: k, Err: taken}}}

	var ue *UniqueError
	require.ErrorAs(t, publicError(wrap(taken, "create")), &ue)
	require.Equal(t, &UniqueError{Index: "email", Value: "a@x", Owner: k}, ue)
	require.ErrorIs(t, publicError(taken), ErrExists)
	require.EqualError(t, publicError(taken), taken.Error(), "the message is the store's")

	var ui *UnknownIndexError
	require.ErrorAs(t, publicError(unknown), &ui)
	require.Equal(t, &UnknownIndexError{Key: k, Indexes: []string{"byName"}}, ui)
	require.EqualError(t, publicError(unknown), unknown.Error())

	var pw *PartialWriteError
	require.ErrorAs(t, publicError(partial), &pw)
	require.Equal(t, k, pw.Entity.Key)
	require.Equal(t, int64(2), pw.Entity.Version)
	require.Equal(t, "ada", pw.Entity.Attributes["name"], "the entity as the store wrote it")
	require.Same(t, io.EOF, pw.Err)
	require.EqualError(t, publicError(partial), partial.Error())

	var te *TransactionError
	require.ErrorAs(t, publicError(refused), &te)
	require.Equal(t, k, te.Ops[0].Key)
	require.ErrorAs(t, te, &ue, "each operation's refusal is shown too")
	require.EqualError(t, te, refused.Error())
	var internal *store.UniqueError
	require.False(t, errors.As(te, &internal))
}
