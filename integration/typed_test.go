package integration_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/ryno"
)

type book struct {
	ryno.Record
	Title  string   `dynamodbav:"title" json:"title"`
	Pages  int      `dynamodbav:"pages" json:"pages"`
	Price  float64  `dynamodbav:"price" json:"price"`
	Copies int64    `dynamodbav:"copies" json:"copies"`
	Tags   []string `dynamodbav:"tags,stringset,omitempty" json:"tags,omitempty"`
}

// TestStructRoundTrip writes a struct, reads it back with GetAs, changes it and
// writes it again: its Record follows the stored key, timestamps and version, and a
// write from a stale copy is refused.
func TestStructRoundTrip(t *testing.T) {
	s := newStoreWith(t, nil)
	k := ryno.Key{Scope: "acme", Type: "book", ID: "b1"}
	b := &book{Record: ryno.Record{Key: k}, Title: "Go", Pages: 300, Price: 12.5, Copies: 1 << 53, Tags: []string{"lang"}}
	require.NoError(t, ryno.CreateAs(ctx, s.Client, b))
	require.Equal(t, int64(1), b.Version)
	require.False(t, b.Created.IsZero())
	require.Equal(t, b.Created, b.Updated)

	got, err := ryno.GetAs[book](ctx, s.Client, k)
	require.NoError(t, err)
	require.Equal(t, b, got)

	stale := *got
	got.Pages++
	require.NoError(t, ryno.SetAs(ctx, s.Client, got))
	require.Equal(t, int64(2), got.Version)
	require.Equal(t, b.Created, got.Created)
	require.True(t, got.Updated.After(b.Updated))

	stale.Title = "lost update"
	err = ryno.UpdateAs(ctx, s.Client, &stale)
	require.ErrorIs(t, err, ryno.ErrConflict)

	again, err := ryno.GetAs[book](ctx, s.Client, k)
	require.NoError(t, err)
	require.Equal(t, got, again)
	require.Equal(t, 301, again.Pages)

	page, err := ryno.PageAs[book](s.ListByType(ctx, ryno.Type{Scope: "acme", Name: "book"}, ryno.PageOptions{}))
	require.NoError(t, err)
	require.Equal(t, []*book{again}, page.Items)
	var all []*book
	for v, err := range ryno.ValuesAs[book](s.AllByType(ctx, ryno.Type{Scope: "acme", Name: "book"}, ryno.PageOptions{})) {
		require.NoError(t, err)
		all = append(all, v)
	}
	require.Equal(t, []*book{again}, all)
}

// TestGetResultEncodesNumbersAsJSONNumbers serves a Get result as JSON, as an HTTP
// handler does: numbers stay numbers, with every digit.
func TestGetResultEncodesNumbersAsJSONNumbers(t *testing.T) {
	s := newStoreWith(t, nil)
	k := ryno.Key{Scope: "acme", Type: "user", ID: "ada"}
	_, err := s.Create(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{
		"age": 36, "balance": json.Number("12345678901234567890.25"), "scores": []any{1, 2.5},
	}})
	require.NoError(t, err)
	e, err := s.Get(ctx, k)
	require.NoError(t, err)
	out, err := json.Marshal(e.Attributes)
	require.NoError(t, err)
	require.JSONEq(t, `{"age":36,"balance":12345678901234567890.25,"scores":[1,2.5]}`, string(out))

	var decoded map[string]any
	d := json.NewDecoder(bytesReader(out))
	d.UseNumber()
	require.NoError(t, d.Decode(&decoded))
	require.Equal(t, json.Number("12345678901234567890.25"), decoded["balance"])
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

// TestModifyAsChangesOnlyWhatTheStructNames modifies, through a struct that knows
// part of an entity, an entity that has more: the attributes and metadata the
// struct does not name stay as stored, those it names are written, a named field
// left empty under omitempty removes its attribute, and concurrent ModifyAs calls
// lose no update.
func TestModifyAsChangesOnlyWhatTheStructNames(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: slugIndexes})
	k := ryno.Key{Scope: "acme", Type: "book", ID: "b1"}
	_, err := s.Create(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{
		"title": "Go", "pages": 300, "tags": []string{"lang"}, "isbn": "978-0", "shelf": map[string]any{"row": 3},
	}, Meta: map[string]any{"source": "import"}})
	require.NoError(t, err)

	const writers = 8
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for g := range writers {
		wg.Go(func() {
			_, errs[g] = ryno.ModifyAs(ctx, s.Client, k, func(b *book) error {
				b.Pages++
				b.Tags = nil // omitempty: the attribute goes
				return nil
			})
		})
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))

	got, err := s.Get(ctx, k)
	require.NoError(t, err)
	require.Equal(t, "978-0", got.Attributes["isbn"], "not named by book: kept")
	require.NotNil(t, got.Attributes["shelf"], "kept")
	require.Equal(t, map[string]any{"source": "import"}, got.Meta, "metadata kept")
	require.NotContains(t, got.Attributes, "tags", "named and empty: removed")
	typed, err := ryno.GetAs[book](ctx, s.Client, k)
	require.NoError(t, err)
	require.Equal(t, 300+writers, typed.Pages, "no update lost")

	expires := s.clock.Now().Add(48 * time.Hour).Truncate(time.Second)
	_, err = ryno.ModifyAs(ctx, s.Client, k, func(b *book) error { b.Expires = expires; return nil })
	require.NoError(t, err)
	got, err = s.Get(ctx, k)
	require.NoError(t, err)
	require.True(t, expires.Equal(got.Expires), "the expiry set is written: %v", got.Expires)
	_, err = ryno.ModifyAs(ctx, s.Client, k, func(b *book) error { b.Pages++; return nil })
	require.NoError(t, err)
	got, err = s.Get(ctx, k)
	require.NoError(t, err)
	require.True(t, expires.Equal(got.Expires), "and kept by a write that does not change it")

	_, err = ryno.ModifyAs(ctx, s.Client, k, func(*book) error { return errInjected })
	require.ErrorIs(t, err, errInjected)
	_, err = ryno.ModifyAs(ctx, s.Client, ryno.Key{Scope: "acme", Type: "book", ID: "none"}, func(*book) error { return nil })
	require.ErrorIs(t, err, ryno.ErrNotFound)
}

type slugDoc struct {
	ryno.Record
	Slug string `dynamodbav:"slug"`
}

func TestTypedUniqueReadsAndTransactionResults(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: slugIndexes})
	results, err := s.Transact(ctx, ryno.TxCreate(doc("d1", "hello", 1)))
	require.NoError(t, err)
	created, err := ryno.ResultAs[slugDoc](results[0])
	require.NoError(t, err)
	require.Equal(t, "hello", created.Slug)
	require.Equal(t, int64(1), created.Version)

	got, err := ryno.GetByUniqueAs[slugDoc](ctx, s.Client, ryno.ScopedIndex{Scope: "acme", Index: "slug"}, indexing.String("hello"))
	require.NoError(t, err)
	require.Equal(t, created, got)
	none, err := ryno.ResultAs[slugDoc](ryno.OpResult{})
	require.NoError(t, err)
	require.Nil(t, none, "an operation that returns no entity")
}

type reader struct {
	ryno.Record
	Name string `dynamodbav:"name"`
}

func TestTypedReverseListingOfEntities(t *testing.T) {
	s := newStoreWith(t, nil)
	b := ryno.Key{Scope: "acme", Type: "book", ID: "go"}
	createSubjects(t, s.Client, b)
	readers := []ryno.Key{
		{Scope: "acme", Type: "reader", ID: "r2"},
		{Scope: "acme", Type: "reader", ID: "r0"},
		{Scope: "acme", Type: "reader", ID: "r1"},
		{Scope: "acme", Type: "reader", ID: "gone"},
	}
	for _, k := range readers {
		require.NoError(t, ryno.CreateAs(ctx, s.Client, &reader{Record: ryno.Record{Key: k}, Name: "name of " + k.ID}))
		_, err := s.AddRelationships(ctx, k, "read", []ryno.Key{b})
		require.NoError(t, err)
	}
	_, err := s.AddRelationships(ctx, readers[0], "liked", []ryno.Key{b})
	require.NoError(t, err)
	// The entry of a reader deleted since stays only until its Delete's sweep: write
	// it back by hand to see that a missing subject is skipped.
	gone := readers[3]
	require.NoError(t, s.Delete(ctx, gone))
	seedLegacyEntries(t, s.raw, s.Names(), []relationships.Entry{{Subject: gone, Predicate: "read", Object: b}})

	page, err := ryno.PageAs[reader](s.ReverseRelatedEntities(ctx, b, "read", ryno.PageOptions{Limit: 2}))
	require.NoError(t, err)
	require.NotEmpty(t, page.Cursor)
	require.Len(t, page.Items, 1, "gone sorts first and is skipped")
	require.Equal(t, "r0", page.Items[0].Key.ID)

	var names []string
	for r, err := range ryno.ValuesAs[reader](s.AllReverseRelatedEntities(ctx, b, "read", ryno.PageOptions{Limit: 2})) {
		require.NoError(t, err)
		names = append(names, r.Name)
	}
	require.Equal(t, []string{"name of r0", "name of r1", "name of r2"}, names, "in subject order, the missing one skipped")

	all := collect(t, s.AllReverseRelatedEntities(ctx, b, ryno.AllPredicates, ryno.PageOptions{}))
	require.Len(t, all, 4, "r2 liked and read it: it comes under each predicate")
	require.Equal(t, "r2", all[0].Key.ID, "liked sorts before read")
}

// bookTitle knows only the title of a book.
type bookTitle struct {
	ryno.Record
	Title string `dynamodbav:"title"`
	Note  string `dynamodbav:"note,omitempty"`
}

func TestTypedWritesKeepWhatTheStructDoesNotName(t *testing.T) {
	s := newStoreWith(t, nil)
	k := ryno.Key{Scope: "acme", Type: "book", ID: "b1"}
	stored, err := s.Create(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"title": "Go", "pages": 300, "note": "signed"},
		Meta: map[string]any{"source": "import"}})
	require.NoError(t, err)

	t.Run("UpdateAs", func(t *testing.T) {
		v := &bookTitle{Record: ryno.Record{Key: k, Version: stored.Version}, Title: "Go, 2nd edition"}
		require.NoError(t, ryno.UpdateAs(ctx, s.Client, v))
		require.Equal(t, stored.Version+1, v.Version)
		got, err := s.Get(ctx, k)
		require.NoError(t, err)
		require.Equal(t, map[string]any{"title": "Go, 2nd edition", "pages": json.Number("300")}, got.Attributes,
			"pages kept; note, named and left empty, removed")
		require.Equal(t, map[string]any{"source": "import"}, got.Meta)

		stale := &bookTitle{Record: ryno.Record{Key: k, Version: stored.Version}, Title: "lost"}
		require.ErrorIs(t, ryno.UpdateAs(ctx, s.Client, stale), ryno.ErrConflict)
		missing := &bookTitle{Record: ryno.Record{Key: ryno.Key{Scope: "acme", Type: "book", ID: "none"}}, Title: "x"}
		require.ErrorIs(t, ryno.UpdateAs(ctx, s.Client, missing), ryno.ErrNotFound)
	})

	t.Run("SetAs", func(t *testing.T) {
		v := &bookTitle{Record: ryno.Record{Key: k}, Title: "Go, 3rd edition", Note: "blind"}
		require.NoError(t, ryno.SetAs(ctx, s.Client, v))
		got, err := s.Get(ctx, k)
		require.NoError(t, err)
		require.Equal(t, map[string]any{"title": "Go, 3rd edition", "pages": json.Number("300"), "note": "blind"}, got.Attributes)
		require.Equal(t, got.Version, v.Version)

		fresh := &bookTitle{Record: ryno.Record{Key: ryno.Key{Scope: "acme", Type: "book", ID: "b2"}}, Title: "new"}
		require.NoError(t, ryno.SetAs(ctx, s.Client, fresh))
		require.Equal(t, int64(1), fresh.Version, "a missing entity is created")
		created, err := ryno.GetAs[bookTitle](ctx, s.Client, fresh.Key)
		require.NoError(t, err)
		require.Equal(t, fresh, created)
	})
}
