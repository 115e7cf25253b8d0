package integration_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/ryno"
)

// TestErrorsSayRynoOnce provokes one error of each kind and checks each message has
// one "ryno:" prefix, however deep the error was wrapped.
func TestErrorsSayRynoOnce(t *testing.T) {
	for name, f := range provokeErrors(t) {
		err := f()
		require.Error(t, err, name)
		require.Equal(t, 1, strings.Count(err.Error(), "ryno:"), "%s: %q", name, err)
	}
}

// TestErrorsAreOfPublicTypes provokes one error of each kind and checks that %T of
// each error in its chain names a package a caller can import, none under internal/.
func TestErrorsAreOfPublicTypes(t *testing.T) {
	for name, f := range provokeErrors(t) {
		err := f()
		require.Error(t, err, name)
		require.Empty(t, internalTypes(err), "%s: %q", name, err)
	}
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

// provokeErrors returns, by name, calls on a store of their own that each fail with
// an error of another kind.
func provokeErrors(t *testing.T) map[string]func() error {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: uniqueIndexes})
	ada, err := s.Create(ctx, user("ada", "ada@example.com"))
	require.NoError(t, err)
	stale := *ada
	_, err = s.Update(ctx, ada)
	require.NoError(t, err)
	ghost := user("ghost", "").Key

	return map[string]func() error{
		"not found": func() error { _, err := s.Update(ctx, user("ghost", "g@example.com")); return err },
		"exists":    func() error { _, err := s.Create(ctx, user("ada", "x@example.com")); return err },
		"conflict":  func() error { _, err := s.Update(ctx, &stale); return err },
		"unique":    func() error { _, err := s.Create(ctx, user("eve", "ada@example.com")); return err },
		"validation": func() error {
			_, err := s.Set(ctx, &ryno.Entity{Key: ada.Key, Attributes: map[string]any{"_x": 1}})
			return err
		},
		"patch of a missing entity": func() error {
			_, err := s.Patch(ctx, user("ghost", "").Key, ryno.Patch{Set: map[string]any{"a": 1}})
			return err
		},
		"list of a missing subject": func() error {
			_, err := s.AddRelationships(ctx, user("ghost", "").Key, "follows", []ryno.Key{ada.Key})
			return err
		},
		"transaction": func() error {
			_, err := s.Transact(ctx, ryno.TxUpdate(&stale), ryno.TxCreate(user("ada", "")))
			return err
		},
		"condition": func() error {
			return s.Delete(ctx, ada.Key, ryno.If(ryno.Attr("age").Greater(99)))
		},
		"lookup": func() error {
			_, err := s.LookupUnique(ctx, ryno.ScopedIndex{Scope: "acme", Index: "user-email"}, indexing.String("nobody@example.com"))
			return err
		},
		"missing table": func() error {
			db, err := ryno.New(s.raw, ryno.Options{TablePrefix: "nosuchstore"})
			require.NoError(t, err)
			_, err = db.Get(ctx, ada.Key)
			return err
		},
		"range out of order": func() error {
			_, err := s.QueryIndex(ctx, ryno.ScopedIndex{Scope: "acme", Index: "user-email"}, indexing.Between(indexing.Int(2010), indexing.Int(2006)), ryno.PageOptions{})
			return err
		},
		"cursor": func() error {
			_, err := s.ListByType(ctx, ryno.Type{Scope: "acme", Name: "user"}, ryno.PageOptions{Cursor: "garbage"})
			return err
		},
		"edge to a missing object": func() error {
			_, err := s.AddRelationships(ctx, ada.Key, "follows", []ryno.Key{ghost}, ryno.CheckObjects(true))
			return requireNotFound(t, err)
		},
		"transaction of an edge to a missing object": func() error {
			db, err := ryno.New(s.raw, ryno.Options{TablePrefix: s.prefix, Indexes: uniqueIndexes, CheckObjects: true})
			require.NoError(t, err)
			_, err = db.Transact(ctx, ryno.TxAddRelationships(ada.Key, "follows", []ryno.Key{ghost}))
			return requireNotFound(t, err)
		},
		"transaction over a limit": func() error {
			_, err := s.Transact(ctx, ryno.TxDelete(ada.Key), ryno.TxDelete(ada.Key))
			return err
		},
	}
}

// requireNotFound checks that err matches ErrNotFound, and returns it.
func requireNotFound(t *testing.T, err error) error {
	t.Helper()
	require.ErrorIs(t, err, ryno.ErrNotFound)
	return err
}

// TestErrorsShowValuesAsWritten checks that errors about index values show them as
// the caller wrote them, not in their stored encoding.
func TestErrorsShowValuesAsWritten(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: uniqueIndexes})
	_, err := s.QueryIndex(ctx, ryno.ScopedIndex{Scope: "acme", Index: "user-email"}, indexing.Between(indexing.Int(2010), indexing.Int(2006)), ryno.PageOptions{})
	require.ErrorIs(t, err, ryno.ErrInvalid)
	require.Contains(t, err.Error(), "between(2010, 2006)")

	_, err = s.LookupUnique(ctx, ryno.ScopedIndex{Scope: "acme", Index: "user-email"}, indexing.String("nobody@example.com"))
	require.ErrorIs(t, err, ryno.ErrNotFound)
	require.Contains(t, err.Error(), "nobody@example.com")
	require.NotContains(t, err.Error(), "'nobody")
}
