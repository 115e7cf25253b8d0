package ryno

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
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

// internalTypes returns %T of each error in err's tree whose type belongs to a
// package under internal/.
func internalTypes(err error) []string {
	var found []string
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		t := reflect.TypeOf(e)
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if strings.Contains(t.PkgPath(), "/internal/") {
			found = append(found, fmt.Sprintf("%T", e))
		}
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		case interface{ Unwrap() []error }:
			for _, inner := range u.Unwrap() {
				walk(inner)
			}
		}
	}
	walk(err)
	return found
}

func TestTheStoreRefusalsReachTheCallerAsPublicTypes(t *testing.T) {
	subject := Key{Scope: "s", Type: "board", ID: "b"}
	until := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	held := &LeaseError{Key: subject, Predicate: "cards", Until: until, Err: context.DeadlineExceeded}
	lost := store.KeptChanging(subject, "cards", 0, errors.New("gave up"))
	stale := &ConflictError{Key: subject, Expected: 3, Stored: 4, Reason: "expected version 3, stored is 4"}
	gone := &ConflictError{Key: subject, Expected: 3, Missing: true, Reason: "the entity does not exist"}
	refused := &ConditionError{Key: subject, Condition: "open = true"}
	heldMessage := "the list s:board:b -cards-> is held by another writer until 2026-01-02T03:04:05Z"
	lostMessage := "conflicting write of the list s:board:b -cards->: concurrent writers kept changing it: gave up"
	tests := []struct {
		name    string
		err     error
		message string
		want    error // the public error errors.As must find
	}{
		{"held", held, "ryno: " + heldMessage, held},
		{"held, in a call's context", wrap(held, "add relationships %s -cards->", subject), "ryno: add relationships s:board:b -cards->: " + heldMessage, held},
		{"a list conflict joined to another error", errors.Join(io.EOF, wrap(lost, "x")), "EOF\nryno: x: " + lostMessage, lost},
		{"a list conflict after the entity was written", &PartialWriteError{Entity: &Entity{Key: subject, Version: 2}, Err: lost}, "ryno: s:board:b is written (version 2), the rest is not: " + lostMessage, lost},
		{"a transaction's refusal", &TransactionError{Ops: []OpError{{Index: 1, Op: "Add", Key: subject, Err: held}}}, "ryno: transaction refused: operation 1 (Add s:board:b): " + heldMessage, held},
		{"another version", wrap(stale, "delete"), "ryno: delete: conflicting write of s:board:b: expected version 3, stored is 4", stale},
		{"no entity", gone, "ryno: conflicting write of s:board:b: the entity does not exist", gone},
		{"a condition", wrap(refused, "delete"), "ryno: delete: s:board:b: the condition open = true does not hold", refused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.EqualError(t, tt.err, tt.message)
			require.ErrorIs(t, tt.err, ErrConflict)
			require.Equal(t, errors.Is(tt.want, ErrNotFound), errors.Is(tt.err, ErrNotFound))
			require.Empty(t, internalTypes(tt.err), "no internal type reaches the caller")
			switch want := tt.want.(type) {
			case *LeaseError:
				var le *LeaseError
				require.ErrorAs(t, tt.err, &le)
				require.Equal(t, want, le)
				require.Equal(t, "*entity.LeaseError", fmt.Sprintf("%T", le))
			case *ConflictError:
				var ce *ConflictError
				require.ErrorAs(t, tt.err, &ce)
				require.Equal(t, want, ce)
				require.Equal(t, "*entity.ConflictError", fmt.Sprintf("%T", ce))
			case *ConditionError:
				var ce *ConditionError
				require.ErrorAs(t, tt.err, &ce)
				require.Equal(t, want, ce)
				require.Equal(t, "*entity.ConditionError", fmt.Sprintf("%T", ce))
			}
		})
	}
}

func TestTheStoreRefusalsOfEntityWrites(t *testing.T) {
	k := Key{Scope: "s", Type: "user", ID: "u"}
	item := map[string]types.AttributeValue{
		schema.AttrID: str("u"), schema.AttrScope: str("s"), schema.AttrType: str("user"),
		schema.AttrVersion: number(2), "name": str("ada"),
	}
	taken := &UniqueError{Index: "email", Value: "a@x", Owner: k}
	unknown := &UnknownIndexError{Key: k, Indexes: []string{"byName"}}
	refused := &TransactionError{Ops: []OpError{{Index: 0, Op: "create", Key: k, Err: taken}}}

	var ue *UniqueError
	require.ErrorAs(t, wrap(taken, "create"), &ue)
	require.Same(t, taken, ue)
	require.ErrorIs(t, taken, ErrExists)
	require.EqualError(t, taken, "ryno: a@x is taken in unique index email by s:user:u")

	var ui *UnknownIndexError
	require.ErrorAs(t, wrap(unknown, "update"), &ui)
	require.Same(t, unknown, ui)
	require.EqualError(t, unknown, `ryno: s:user:u was last written with indexes byName, which this client does not register for type "user"`)

	db, err := New(&nilAPI{}, Options{TablePrefix: "app"})
	require.NoError(t, err)
	require.Same(t, io.EOF, db.partialWrite(k, nil, io.EOF), "no item: nothing was written")
	partial := db.partialWrite(k, item, io.EOF)
	var pw *PartialWriteError
	require.ErrorAs(t, partial, &pw)
	require.Equal(t, k, pw.Entity.Key)
	require.Equal(t, int64(2), pw.Entity.Version)
	require.Equal(t, "ada", pw.Entity.Attributes["name"], "the entity as the store wrote it")
	require.Same(t, io.EOF, pw.Err)
	require.EqualError(t, partial, "ryno: s:user:u is written (version 2), the rest is not: EOF")

	var te *TransactionError
	require.ErrorAs(t, refused, &te)
	require.Equal(t, k, te.Ops[0].Key)
	require.ErrorAs(t, te, &ue, "each operation's refusal is seen too")
	require.EqualError(t, te, "ryno: transaction refused: operation 0 (create s:user:u): a@x is taken in unique index email by s:user:u")
	require.Empty(t, internalTypes(te))
}
