package integration_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/ryno"
)

// createPeople creates n entities of type person, one after another, and returns
// their ids in creation (and so Updated) order.
func createPeople(t *testing.T, db *ryno.Client, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = string(rune('a'+i%26)) + string(rune('0'+i/26))
		_, err := db.Create(ctx, person(ids[i], map[string]any{"n": i}))
		require.NoError(t, err)
	}
	return ids
}

// pageThrough lists every page of persons and returns the ids of each page, checking
// that each page costs one Query.
func pageThrough(t *testing.T, db *ryno.Client, counter interface {
	Counts() map[string]int
	Reset()
}, p ryno.PageOptions) [][]string {
	t.Helper()
	var pages [][]string
	for {
		counter.Reset()
		page, err := db.ListByType(ctx, ryno.Type{Scope: "acme", Name: "person"}, p)
		require.NoError(t, err)
		require.Equal(t, map[string]int{"Query": 1}, counter.Counts(), "one request per page")
		var ids []string
		for _, e := range page.Items {
			ids = append(ids, e.ID)
		}
		pages = append(pages, ids)
		if page.Cursor == "" {
			return pages
		}
		p.Cursor = page.Cursor
		require.Less(t, len(pages), 100, "paging must end")
	}
}

func reversed(s []string) []string {
	r := make([]string, len(s))
	for i, v := range s {
		r[len(s)-1-i] = v
	}
	return r
}

func TestListByTypePagesForwardsAndBackwards(t *testing.T) {
	db, counter, _ := newStore(t)
	ids := createPeople(t, db, 8)
	// Other types and scopes never show up.
	_, err := db.Create(ctx, &ryno.Entity{Key: ryno.Key{Scope: "acme", Type: "post", ID: "p"}})
	require.NoError(t, err)
	_, err = db.Create(ctx, &ryno.Entity{Key: ryno.Key{Scope: "other", Type: "person", ID: "a0"}})
	require.NoError(t, err)

	forward := pageThrough(t, db, counter, ryno.PageOptions{Limit: 3})
	require.Equal(t, [][]string{ids[0:3], ids[3:6], ids[6:8]}, forward, "oldest first")

	backward := pageThrough(t, db, counter, ryno.PageOptions{Limit: 3, Descending: true})
	rev := reversed(ids)
	require.Equal(t, [][]string{rev[0:3], rev[3:6], rev[6:8]}, backward, "newest first")
}

func TestListByTypeLastFullPageHasNoCursor(t *testing.T) {
	db, counter, _ := newStore(t)
	ids := createPeople(t, db, 6)
	require.Equal(t, [][]string{ids[0:3], ids[3:6]}, pageThrough(t, db, counter, ryno.PageOptions{Limit: 3}),
		"no empty trailing page")
	require.Equal(t, [][]string{ids}, pageThrough(t, db, counter, ryno.PageOptions{Limit: 6}),
		"a page that holds everything has no cursor")
	require.Equal(t, [][]string{ids}, pageThrough(t, db, counter, ryno.PageOptions{Limit: math.MaxInt}),
		"a limit beyond what a Query takes is the largest it takes")
}

func TestListByTypeOrderFollowsUpdates(t *testing.T) {
	db, _, _ := newStore(t)
	ids := createPeople(t, db, 3)
	first, err := db.Get(ctx, person(ids[0], nil).Key)
	require.NoError(t, err)
	_, err = db.Update(ctx, first)
	require.NoError(t, err)

	var got []string
	for e, err := range db.AllByType(ctx, ryno.Type{Scope: "acme", Name: "person"}, ryno.PageOptions{Limit: 1}) {
		require.NoError(t, err)
		got = append(got, e.ID)
	}
	require.Equal(t, []string{ids[1], ids[2], ids[0]}, got)
}

func TestCursorsOnlyContinueTheirOwnQuery(t *testing.T) {
	db, _, _ := newStore(t)
	createPeople(t, db, 3)
	page, err := db.ListByType(ctx, ryno.Type{Scope: "acme", Name: "person"}, ryno.PageOptions{Limit: 1})
	require.NoError(t, err)
	require.NotEmpty(t, page.Cursor)

	_, err = db.ListByType(ctx, ryno.Type{Scope: "acme", Name: "post"}, ryno.PageOptions{Limit: 1, Cursor: page.Cursor})
	require.ErrorIs(t, err, ryno.ErrInvalidCursor, "another type")
	_, err = db.ListByType(ctx, ryno.Type{Scope: "other", Name: "person"}, ryno.PageOptions{Limit: 1, Cursor: page.Cursor})
	require.ErrorIs(t, err, ryno.ErrInvalidCursor, "another scope")
	_, err = db.ListByType(ctx, ryno.Type{Scope: "acme", Name: "person"}, ryno.PageOptions{Limit: 1, Cursor: page.Cursor, Descending: true})
	require.ErrorIs(t, err, ryno.ErrInvalidCursor, "the other direction")
	_, err = db.ListByType(ctx, ryno.Type{Scope: "acme", Name: "person"}, ryno.PageOptions{Limit: 5, Cursor: page.Cursor})
	require.NoError(t, err, "another page size is fine")
}
