package integration_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/ryno"
)

// issuesByStatus indexes issues by their project, status and creation time, one
// tuple each.
var issuesByStatus = []ryno.Index{{Type: "issue", Name: "by-status", Map: func(e *ryno.Entity, emit func(indexing.Value)) {
	opened, _ := time.Parse(time.RFC3339, e.Attributes["opened"].(string))
	emit(indexing.Tuple(indexing.String(e.Attributes["project"].(string)),
		indexing.String(e.Attributes["status"].(string)), indexing.Time(opened)))
}}}

// TestTupleValuesQueryAPrefixOfPartsAndARangeOnTheNext stores issues of projects
// whose names hold the characters a hand-made composite string would trip on, and
// queries the open issues of one project newest first, those opened in a window,
// and the other comparisons, each exactly.
func TestTupleValuesQueryAPrefixOfPartsAndARangeOnTheNext(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: issuesByStatus})
	projects := []string{"acme|web", "acme", "acme:web"}
	statuses := []string{"open", "closed", "open|stale"}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	day := func(i int) time.Time { return base.Add(time.Duration(i) * 24 * time.Hour) }
	var openAcme []string // ids of acme's open issues, oldest first
	n := 0
	for _, p := range projects {
		for i := range 6 {
			status := statuses[i%len(statuses)]
			id := fmt.Sprintf("i%02d", n)
			n++
			_, err := s.Create(ctx, &ryno.Entity{Key: ryno.Key{Scope: "acme", Type: "issue", ID: id}, Attributes: map[string]any{
				"project": p, "status": status, "opened": day(i).Format(time.RFC3339)}})
			require.NoError(t, err)
			if p == "acme" && status == "open" {
				openAcme = append(openAcme, id)
			}
		}
	}
	require.Len(t, openAcme, 2)
	index := ryno.ScopedIndex{Scope: "acme", Index: "by-status"}
	ids := func(cond indexing.Condition, desc bool) []string {
		t.Helper()
		var out []string
		for e, err := range s.AllInIndex(ctx, index, cond, ryno.PageOptions{Limit: 2, Descending: desc}) {
			require.NoError(t, err)
			out = append(out, e.ID)
		}
		return out
	}
	open := func(parts ...indexing.Value) indexing.Value {
		return indexing.Tuple(append([]indexing.Value{indexing.String("acme"), indexing.String("open")}, parts...)...)
	}

	require.Equal(t, []string{openAcme[1], openAcme[0]}, ids(indexing.BeginsWith(open()), true),
		"acme's open issues newest first: not acme|web's, not acme:web's, not the open|stale ones")
	require.Equal(t, openAcme[1:], ids(indexing.Between(open(indexing.Time(day(1))), open(indexing.Time(day(3)))), false),
		"opened in the window")
	require.Equal(t, []string{"i07", "i10", "i06"}, ids(indexing.Less(open(indexing.Time(day(3)))), false),
		"below (acme, open, day 3): acme's closed issues by day, then its open one of day 0; "+
			"not open|stale, which sorts after open, nor another project")
	require.Equal(t, openAcme[1:], ids(indexing.Equal(open(indexing.Time(day(3)))), false))
	got := ids(indexing.Greater(indexing.Tuple(indexing.String("acme"), indexing.String("open"))), false)
	require.Equal(t, openAcme, got[:2], "a tuple sorts before its extensions: Greater of the prefix starts at its issues")
	require.Len(t, ids(indexing.BeginsWith(indexing.Tuple(indexing.String("acme"))), false), 6, "every issue of acme, none of the others")
}
