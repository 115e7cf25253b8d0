package ryno

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAZeroConditionIsRefusedBeforeAnyRequest: a Condition built by none of the
// package's functions, alone or in And, fails every call that takes it with a
// *ValidationError, before any request.
func TestAZeroConditionIsRefusedBeforeAnyRequest(t *testing.T) {
	ctx := context.Background()
	k := Key{Scope: "acme", Type: "person", ID: "ada"}
	zero := Condition{}
	calls := []struct {
		name string
		call func(db *Client) error
	}{
		{"Delete", func(db *Client) error { return db.Delete(ctx, k, If(zero)) }},
		{"Delete, zero in And", func(db *Client) error { return db.Delete(ctx, k, If(Exists().And(zero))) }},
		{"Patch", func(db *Client) error {
			_, err := db.Patch(ctx, k, Patch{Set: map[string]any{"a": 1}}, If(zero.And(Exists())))
			return err
		}},
		{"Set", func(db *Client) error { _, err := db.Set(ctx, &Entity{Key: k}, If(zero)); return err }},
		{"TxCheck", func(db *Client) error { _, err := db.Transact(ctx, TxCheck(k, zero)); return err }},
		{"TxCheck, zero in And", func(db *Client) error { _, err := db.Transact(ctx, TxCheck(k, Absent().And(zero))); return err }},
		{"TxPatch", func(db *Client) error {
			_, err := db.Transact(ctx, TxPatch(k, Patch{Set: map[string]any{"a": 1}}, If(zero)))
			return err
		}},
	}
	for _, tt := range calls {
		t.Run(tt.name, func(t *testing.T) {
			api, sent := scriptedClient(t, 1, func(int, string, map[string]any) (int, string) { return 500, `{}` })
			db, err := New(api, Options{TablePrefix: "app"})
			require.NoError(t, err)
			require.NotPanics(t, func() { err = tt.call(db) })
			require.ErrorIs(t, err, ErrInvalid)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			require.Empty(t, sent.bodies, "no request was sent")
		})
	}
}

// TestATransactionDeletingTheSubjectOfAListItWritesIsRefusedBeforeAnyRequest: a
// TxDelete beside a list operation or a draw on the same entity cannot both
// commit; the transaction is refused before any request.
func TestATransactionDeletingTheSubjectOfAListItWritesIsRefusedBeforeAnyRequest(t *testing.T) {
	ctx := context.Background()
	k := Key{Scope: "acme", Type: "person", ID: "ada"}
	o := Key{Scope: "acme", Type: "person", ID: "bob"}
	for name, op := range map[string]Op{
		"TxAddRelationships":    TxAddRelationships(k, "follows", []Key{o}),
		"TxRemoveRelationships": TxRemoveRelationships(k, "follows", []Key{o}),
	} {
		t.Run(name, func(t *testing.T) {
			api, sent := scriptedClient(t, 1, func(int, string, map[string]any) (int, string) { return 500, `{}` })
			db, err := New(api, Options{TablePrefix: "app"})
			require.NoError(t, err)
			_, err = db.Transact(ctx, TxDelete(k), op)
			require.ErrorIs(t, err, ErrInvalid)
			require.Empty(t, sent.bodies, "no request was sent")
		})
	}
}
