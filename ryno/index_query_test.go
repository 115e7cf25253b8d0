package ryno

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
)

// TestQueriesOfAnUnregisteredIndexSendNoRequest: every call naming an index the
// client does not register fails as LookupUnique does, before any request.
func TestQueriesOfAnUnregisteredIndexSendNoRequest(t *testing.T) {
	ctx := context.Background()
	si := ScopedIndex{Scope: "acme", Index: "agee"} // registered: "age"
	cond := indexing.All()
	firstErr := func(seq func(yield func(error) bool)) error {
		var err error
		seq(func(e error) bool { err = e; return false })
		return err
	}
	calls := []struct {
		name string
		call func(db *Client) error
	}{
		{"LookupUnique", func(db *Client) error { _, err := db.LookupUnique(ctx, si, indexing.Int(1)); return err }},
		{"GetByUnique", func(db *Client) error { _, err := db.GetByUnique(ctx, si, indexing.Int(1)); return err }},
		{"QueryIndex", func(db *Client) error { _, err := db.QueryIndex(ctx, si, cond, PageOptions{}); return err }},
		{"QueryIndexEntries", func(db *Client) error { _, err := db.QueryIndexEntries(ctx, si, cond, PageOptions{}); return err }},
		{"AllInIndex", func(db *Client) error {
			return firstErr(func(yield func(error) bool) {
				for _, err := range db.AllInIndex(ctx, si, cond, PageOptions{}) {
					if !yield(err) {
						return
					}
				}
			})
		}},
		{"AllIndexEntries", func(db *Client) error {
			return firstErr(func(yield func(error) bool) {
				for _, err := range db.AllIndexEntries(ctx, si, cond, PageOptions{}) {
					if !yield(err) {
						return
					}
				}
			})
		}},
	}
	want := &ValidationError{Field: "index", Value: "agee", Reason: "is not registered"}
	for _, tt := range calls {
		t.Run(tt.name, func(t *testing.T) {
			api, sent := scriptedClient(t, 1, func(int, string, map[string]any) (int, string) { return 200, `{"Items": []}` })
			db, err := New(api, Options{TablePrefix: "app", Indexes: []Index{
				{Type: "person", Name: "age", Unique: true, Map: func(*Entity, func(indexing.Value)) {}},
			}})
			require.NoError(t, err)
			err = tt.call(db)
			require.ErrorIs(t, err, ErrInvalid)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			require.Equal(t, want, ve)
			require.Empty(t, sent.bodies, "no request was sent")
		})
	}
}
