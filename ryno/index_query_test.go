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

// TestQueryIndexReadsTheEntitiesAsOptionsAsk answers the index Query with one entry
// and checks how the entity is read: strongly consistently under
// Options.ConsistentRead, eventually otherwise.
func TestQueryIndexReadsTheEntitiesAsOptionsAsk(t *testing.T) {
	entry := `{"Items": [{"_scope": {"S": "acme"}, "_type": {"S": "doc"}, "_id": {"S": "d1"},
		"_index_name": {"S": "tag"}, "_index_key": {"S": "` + indexing.String("a").Encoding() + `"}}]}`
	for _, consistent := range []bool{false, true} {
		api, sent := scriptedClient(t, 1, func(_ int, op string, _ map[string]any) (int, string) {
			if op == "Query" {
				return 200, entry
			}
			return 200, `{"Responses": {}}`
		})
		db, err := New(api, Options{TablePrefix: "app", ConsistentRead: consistent, Indexes: []Index{
			{Type: "doc", Name: "tag", Map: func(*Entity, func(indexing.Value)) {}},
		}})
		require.NoError(t, err)
		page, err := db.QueryIndex(context.Background(), ScopedIndex{Scope: "acme", Index: "tag"}, indexing.All(), PageOptions{})
		require.NoError(t, err)
		require.Empty(t, page.Items, "the entity is missing")
		require.Len(t, sent.bodies, 2, "the Query, then the BatchGetItem")
		got := sent.body(1)["RequestItems"].(map[string]any)["app_entities_master"].(map[string]any)["ConsistentRead"]
		require.Equal(t, consistent, got, "ConsistentRead %v", consistent)
	}
}
