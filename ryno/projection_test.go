package ryno

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
)

// refusingClient returns a client whose every request fails the test.
func refusingClient(t *testing.T) *Client {
	t.Helper()
	api, _ := scriptedClient(t, 1, func(_ int, api string, _ map[string]any) (int, string) {
		t.Errorf("%s sent; the call should have been refused before any request", api)
		return 500, "{}"
	})
	db, err := New(api, Options{TablePrefix: "app"})
	require.NoError(t, err)
	return db
}

func TestProjectionOfBadNamesIsRefusedBeforeAnyRequest(t *testing.T) {
	db := refusingClient(t)
	ctx := context.Background()
	si := ScopedIndex{Scope: "s", Index: "age"}
	for _, p := range []Projection{
		{Attributes: []string{"_version"}},
		{Attributes: []string{""}},
		{Attributes: []string{"title", "_meta"}},
		{Attributes: slices.Repeat([]string{"a"}, maxProjected+1)},
	} {
		calls := map[string]func() error{
			"Get":         func() error { _, err := db.Get(ctx, stateKey, Project(p)); return err },
			"BatchGet":    func() error { _, err := db.BatchGet(ctx, []Key{stateKey}, Project(p)); return err },
			"GetByUnique": func() error { _, err := db.GetByUnique(ctx, si, indexing.Int(1), Project(p)); return err },
			"ListByType": func() error {
				_, err := db.ListByType(ctx, stateKey.TypeOf(), PageOptions{Projection: p})
				return err
			},
			"RelatedEntities": func() error {
				_, err := db.RelatedEntities(ctx, stateKey, "p", PageOptions{Projection: p})
				return err
			},
			"ReverseRelatedEntities": func() error {
				_, err := db.ReverseRelatedEntities(ctx, stateKey, "p", PageOptions{Projection: p})
				return err
			},
			"QueryIndex": func() error {
				_, err := db.QueryIndex(ctx, si, indexing.Equal(indexing.Int(1)), PageOptions{Projection: p})
				return err
			},
		}
		for name, call := range calls {
			err := call()
			require.ErrorIs(t, err, ErrInvalid, "%s with %v", name, p.Attributes)
		}
	}
}

func TestListingsWithoutEntitiesRefuseAProjection(t *testing.T) {
	db := refusingClient(t)
	ctx := context.Background()
	p := PageOptions{Projection: Projection{Attributes: []string{"title"}}}
	_, err := db.Relationships(ctx, stateKey, "p", p)
	require.ErrorIs(t, err, ErrInvalid)
	_, err = db.ReverseRelationships(ctx, stateKey, "p", p)
	require.ErrorIs(t, err, ErrInvalid)
	_, err = db.LookupUnique(ctx, ScopedIndex{Scope: "s", Index: "age"}, indexing.Int(1), Project(p.Projection))
	require.ErrorIs(t, err, ErrInvalid)
}

// TestPartialEntitiesAreNotWrittenWhole writes an entity read in part in every
// whole form: each is refused before any request, and Patch is the way named.
func TestPartialEntitiesAreNotWrittenWhole(t *testing.T) {
	db := refusingClient(t)
	ctx := context.Background()
	partial := func() *Entity {
		e := &Entity{Key: stateKey, Attributes: map[string]any{"title": "t"}, Version: 3}
		Projection{Attributes: []string{"title"}}.apply(e)
		return e
	}
	type book struct {
		Record
		Title string `dynamodbav:"title"`
	}
	typed := func() *book {
		var b book
		require.NoError(t, partial().Decode(&b))
		require.True(t, b.Partial(), "a struct decoded from a partial entity is partial")
		return &b
	}
	writes := map[string]func() error{
		"Create":   func() error { _, err := db.Create(ctx, partial()); return err },
		"Update":   func() error { _, err := db.Update(ctx, partial()); return err },
		"Set":      func() error { _, err := db.Set(ctx, partial()); return err },
		"TxCreate": func() error { _, err := db.Transact(ctx, TxCreate(partial())); return err },
		"TxUpdate": func() error { _, err := db.Transact(ctx, TxUpdate(partial())); return err },
		"TxSet":    func() error { _, err := db.Transact(ctx, TxSet(partial())); return err },
		"CreateAs": func() error { return CreateAs(ctx, db, typed()) },
		"UpdateAs": func() error { return UpdateAs(ctx, db, typed()) },
		"SetAs":    func() error { return SetAs(ctx, db, typed()) },
	}
	for name, write := range writes {
		err := write()
		require.ErrorIs(t, err, ErrInvalid, name)
		require.Contains(t, err.Error(), "Patch", "%s: the error names the way to change it", name)
		var v *ValidationError
		require.True(t, errors.As(err, &v), name)
	}
}

func TestProjectionCutsAWholeEntityDown(t *testing.T) {
	e := &Entity{Key: stateKey, Attributes: map[string]any{"title": "t", "body": "b"}, Meta: map[string]any{"m": 1}, Version: 2}
	Projection{Attributes: []string{"title", "missing"}}.apply(e)
	require.Equal(t, map[string]any{"title": "t"}, e.Attributes)
	require.Nil(t, e.Meta, "Meta is read only when the projection asks for it")
	require.True(t, e.Partial())
	require.Equal(t, int64(2), e.Version)
	require.True(t, strings.HasSuffix(e.String(), "(partial)"), e.String())

	whole := &Entity{Key: stateKey, Attributes: map[string]any{"title": "t"}}
	Projection{}.apply(whole)
	require.False(t, whole.Partial(), "the zero Projection reads whole entities")

	withMeta := &Entity{Key: stateKey, Attributes: map[string]any{"title": "t"}, Meta: map[string]any{"m": 1}}
	Projection{Attributes: []string{}, Meta: true}.apply(withMeta)
	require.Empty(t, withMeta.Attributes, "Attributes empty but not nil reads none")
	require.Equal(t, map[string]any{"m": 1}, withMeta.Meta)
}

// TestGetInPartSendsAProjection checks the GetItem that Get sends with a
// Projection: it names the attributes asked for and those the store judges an
// item by, and no other (neither _meta nor the record of index values).
func TestGetInPartSendsAProjection(t *testing.T) {
	api, sent := scriptedClient(t, 1, func(int, string, map[string]any) (int, string) {
		return 200, `{"Item":{"_id":{"S":"i"},"_scope_type_key":{"S":"s:t"},"_scope":{"S":"s"},"_type":{"S":"t"},` +
			`"_version":{"N":"4"},"title":{"S":"Dune"}}}`
	})
	db, err := New(api, Options{TablePrefix: "app"})
	require.NoError(t, err)
	e, err := db.Get(context.Background(), stateKey, Project(Projection{Attributes: []string{"title"}}))
	require.NoError(t, err)
	require.True(t, e.Partial())
	require.Equal(t, map[string]any{"title": "Dune"}, e.Attributes)
	require.Equal(t, int64(4), e.Version)

	body := sent.body(0)
	expr, _ := body["ProjectionExpression"].(string)
	require.NotEmpty(t, expr, "the GetItem names what it reads")
	names, _ := body["ExpressionAttributeNames"].(map[string]any)
	var projected []string
	for _, placeholder := range strings.Split(expr, ", ") {
		projected = append(projected, names[placeholder].(string))
	}
	slices.Sort(projected)
	require.Equal(t, []string{"_created", "_deleting", "_expires", "_id", "_scope", "_scope_type_key", "_type", "_updated", "_version", "title"}, projected)
}
