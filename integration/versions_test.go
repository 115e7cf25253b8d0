package integration_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/ryno"
)

func TestCreateOfAnExistingEntityIsErrExists(t *testing.T) {
	db, _, _ := newStore(t)
	e, err := db.Create(ctx, person("ada", nil))
	require.NoError(t, err)
	require.Equal(t, int64(1), e.Version)
	_, err = db.Create(ctx, person("ada", nil))
	require.ErrorIs(t, err, ryno.ErrExists)
	require.ErrorIs(t, err, ryno.ErrConflict, "ErrExists also matches ErrConflict")
	require.NotErrorIs(t, err, ryno.ErrNotFound)
}

func TestEveryWriteBumpsTheVersion(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: mixedIndexes})
	k := person("ada", nil).Key
	e, err := s.Set(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"age": 1}})
	require.NoError(t, err)
	require.Equal(t, int64(1), e.Version)
	e, err = s.Update(ctx, e)
	require.NoError(t, err)
	require.Equal(t, int64(2), e.Version)
	e, err = s.Set(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"age": 2}})
	require.NoError(t, err)
	require.Equal(t, int64(3), e.Version)
	e, err = s.Patch(ctx, k, ryno.Patch{Add: map[string]any{"age": 1}})
	require.NoError(t, err)
	require.Equal(t, int64(4), e.Version)
	e, err = s.Modify(ctx, k, func(e *ryno.Entity) error { e.Attributes["name"] = "Ada"; return nil })
	require.NoError(t, err)
	require.Equal(t, int64(5), e.Version)

	got, err := s.Get(ctx, k)
	require.NoError(t, err)
	require.Equal(t, e, got, "each call returns the entity as stored")
	requireIndexExact(t, s)
}

func TestAStaleVersionConflictsAndWritesNothing(t *testing.T) {
	for _, mode := range []string{"Update", "Set"} {
		t.Run(mode, func(t *testing.T) {
			s := newStoreOpts(t, nil, ryno.Options{Indexes: mixedIndexes})
			write := s.Update
			if mode == "Set" {
				write = s.Set
			}
			stale, err := s.Create(ctx, person("ada", map[string]any{"age": 1}))
			require.NoError(t, err)
			fresh, err := s.Get(ctx, stale.Key)
			require.NoError(t, err)
			fresh.Attributes["age"] = 2
			_, err = s.Update(ctx, fresh)
			require.NoError(t, err)

			stale.Attributes["age"] = 3
			_, err = write(ctx, stale)
			require.ErrorIs(t, err, ryno.ErrConflict)
			var conflict *ryno.ConflictError
			require.ErrorAs(t, err, &conflict)
			require.Equal(t, ryno.ConflictError{Key: stale.Key, Expected: 1, Stored: 2, Reason: conflict.Reason}, *conflict)
			got, err := s.Get(ctx, stale.Key)
			require.NoError(t, err)
			require.Equal(t, json.Number("2"), got.Attributes["age"], "nothing was written")
			requireIndexExact(t, s)

			require.NoError(t, s.Delete(ctx, stale.Key))
			_, err = write(ctx, got)
			require.ErrorIs(t, err, ryno.ErrConflict, "the entity read was deleted")
			require.ErrorIs(t, err, ryno.ErrNotFound)
			_, err = s.Get(ctx, stale.Key)
			require.ErrorIs(t, err, ryno.ErrNotFound, "nothing was written")
		})
	}
}

// twoLives creates ada, deletes her and creates her again, and returns both lives
// as their creates returned them: at the same version.
func twoLives(t *testing.T, db *ryno.Client) (first, second *ryno.Entity) {
	t.Helper()
	first, err := db.Create(ctx, person("ada", map[string]any{"v": "first life"}))
	require.NoError(t, err)
	require.NoError(t, db.Delete(ctx, first.Key))
	second, err = db.Create(ctx, person("ada", map[string]any{"v": "second life"}))
	require.NoError(t, err)
	require.Equal(t, first.Version, second.Version, "versions start again at 1")
	return first, second
}

func TestAnEntityDeletedAndCreatedAgainIsNotTheOneRead(t *testing.T) {
	db, _, _ := newStore(t)
	read, _ := twoLives(t, db)
	_, err := db.Update(ctx, read)
	require.ErrorIs(t, err, ryno.ErrConflict, "Created tells the two lives apart")
}

// TestIfCreatedTellsTheLivesOfAKeyApart carries an ETag of an entity's first life,
// its version and Created, into writes of its second life at the same version:
// Update, Set and Delete with IfCreated refuse them, and the second life's own
// Created passes. Calls that do not take IfCreated refuse it before any request.
func TestIfCreatedTellsTheLivesOfAKeyApart(t *testing.T) {
	db, _, _ := newStore(t)
	first, second := twoLives(t, db)
	require.False(t, first.Created.Equal(second.Created), "the clock moved on")

	stale := []ryno.WriteOption{ryno.IfVersion(first.Version), ryno.IfCreated(first.Created)}
	var conflict *ryno.ConflictError
	_, err := db.Update(ctx, person("ada", map[string]any{"v": "lost"}), stale...)
	require.ErrorAs(t, err, &conflict, "Update")
	_, err = db.Set(ctx, person("ada", map[string]any{"v": "lost"}), stale...)
	require.ErrorAs(t, err, &conflict, "Set")
	err = db.Delete(ctx, first.Key, stale...)
	require.ErrorAs(t, err, &conflict, "Delete")
	require.ErrorIs(t, err, ryno.ErrNotFound, "the life the ETag named is gone")
	got, err := db.Get(ctx, first.Key, ryno.Consistent())
	require.NoError(t, err)
	require.Equal(t, "second life", got.Attributes["v"], "nothing was written")

	_, err = db.Patch(ctx, first.Key, ryno.Patch{Set: map[string]any{"v": "x"}}, ryno.IfCreated(second.Created))
	require.ErrorIs(t, err, ryno.ErrInvalid, "Patch does not take IfCreated")

	current := []ryno.WriteOption{ryno.IfVersion(second.Version), ryno.IfCreated(second.Created)}
	updated, err := db.Update(ctx, person("ada", map[string]any{"v": "kept"}), current...)
	require.NoError(t, err)
	require.NoError(t, db.Delete(ctx, first.Key, ryno.IfVersion(updated.Version), ryno.IfCreated(updated.Created)))
	_, err = db.Get(ctx, first.Key, ryno.Consistent())
	require.ErrorIs(t, err, ryno.ErrNotFound)
}

func TestAVersionWithoutCreatedIsCheckedToo(t *testing.T) {
	// An HTTP service gets the version from If-Match and the attributes from the
	// body: the entity carries no Created.
	db, counter, _ := newStore(t)
	created, err := db.Create(ctx, person("ada", map[string]any{"v": 1}))
	require.NoError(t, err)
	counter.Reset()

	e := person("ada", map[string]any{"v": 2})
	e.Version = 1
	updated, err := db.Update(ctx, e)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"GetItem": 1, "PutItem": 1}, requests(counter), "Created is read first")
	require.Equal(t, created.Created, updated.Created)
	require.Equal(t, int64(2), updated.Version)

	_, err = db.Update(ctx, e) // still version 1
	require.ErrorIs(t, err, ryno.ErrConflict)
}

func TestDeleteIfVersion(t *testing.T) {
	db, _, _ := newStore(t)
	e, err := db.Create(ctx, person("ada", nil))
	require.NoError(t, err)

	err = db.Delete(ctx, e.Key, ryno.IfVersion(2))
	require.ErrorIs(t, err, ryno.ErrConflict)
	_, err = db.Get(ctx, e.Key)
	require.NoError(t, err, "a Delete expecting another version deletes nothing")

	require.NoError(t, db.Delete(ctx, e.Key, ryno.IfVersion(1)))
	_, err = db.Get(ctx, e.Key)
	require.ErrorIs(t, err, ryno.ErrNotFound)

	err = db.Delete(ctx, e.Key, ryno.IfVersion(1))
	require.ErrorIs(t, err, ryno.ErrConflict, "the entity expected is gone")
	require.ErrorIs(t, err, ryno.ErrNotFound)
	require.NoError(t, db.Delete(ctx, e.Key), "without a version, deleting a missing entity is fine")
}

func TestPatchSetsRemovesAndAddsInOneRequest(t *testing.T) {
	db, counter, _ := newStore(t)
	k := person("ada", nil).Key
	_, err := db.Create(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"name": "Ada", "nick": "A", "n": 1.5, "keep": true}})
	require.NoError(t, err)
	counter.Reset()

	e, err := db.Patch(ctx, k, ryno.Patch{
		Set:    map[string]any{"name": "Ada Lovelace", "born": 1815, "a.b[0]": "top level"},
		Remove: []string{"nick", "never-there"},
		Add:    map[string]any{"n": 2.25, "visits": 1},
	})
	require.NoError(t, err)
	require.Equal(t, map[string]int{"UpdateItem": 1}, requests(counter))
	want := map[string]any{
		"name": "Ada Lovelace", "born": json.Number("1815"), "keep": true, "a.b[0]": "top level",
		"n": json.Number("3.75"), "visits": json.Number("1"),
	}
	require.Equal(t, want, e.Attributes, "the entity as stored, numbers as Get returns them")
	require.Equal(t, int64(2), e.Version)
	got, err := db.Get(ctx, k)
	require.NoError(t, err)
	require.Equal(t, e, got)
	require.True(t, got.Updated.After(got.Created))
}

func TestPatchFailures(t *testing.T) {
	db, counter, _ := newStore(t)
	k := person("ada", nil).Key
	_, err := db.Create(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"name": "Ada"}})
	require.NoError(t, err)
	counter.Reset()

	invalid := map[string]ryno.Patch{
		"nothing":           {},
		"a reserved name":   {Set: map[string]any{"_version": 9}},
		"a name twice":      {Set: map[string]any{"a": 1}, Remove: []string{"a"}},
		"adding a string":   {Add: map[string]any{"n": "1"}},
		"an invalid number": {Add: map[string]any{"n": 1e200}},
		"a func":            {Set: map[string]any{"f": func() {}}},
		"too large":         {Set: map[string]any{"big": strings.Repeat("x", 410_000)}},
	}
	for name, p := range invalid {
		_, err := db.Patch(ctx, k, p)
		require.ErrorIs(t, err, ryno.ErrInvalid, name)
	}
	require.Zero(t, counter.Total(), "no request for invalid input")

	_, err = db.Patch(ctx, person("ghost", nil).Key, ryno.Patch{Set: map[string]any{"a": 1}})
	require.ErrorIs(t, err, ryno.ErrNotFound)
	_, err = db.Patch(ctx, k, ryno.Patch{Set: map[string]any{"a": 1}}, ryno.IfVersion(7))
	require.ErrorIs(t, err, ryno.ErrConflict)
	_, err = db.Patch(ctx, k, ryno.Patch{Add: map[string]any{"name": 1}})
	require.ErrorIs(t, err, ryno.ErrInvalid, "adding to a string: DynamoDB refuses it, nothing is written")
	_, err = db.Patch(ctx, k, ryno.Patch{Set: map[string]any{"big1": strings.Repeat("x", 300_000)}})
	require.NoError(t, err)
	_, err = db.Patch(ctx, k, ryno.Patch{Set: map[string]any{"big2": strings.Repeat("x", 300_000)}})
	require.ErrorIs(t, err, ryno.ErrInvalid, "the item would exceed 400 KB")

	got, err := db.Get(ctx, k)
	require.NoError(t, err)
	require.Equal(t, int64(2), got.Version, "only the valid patch was written")
}

func TestPatchOfAnIndexedTypeKeepsItsEntries(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: mixedIndexes})
	k := person("ada", nil).Key
	_, err := s.Create(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"age": 35, "email": "ada@example.com", "name": "Ada"}})
	require.NoError(t, err)

	e, err := s.Patch(ctx, k, ryno.Patch{Add: map[string]any{"age": 1}, Set: map[string]any{"name": "Countess"}})
	require.NoError(t, err)
	require.Equal(t, json.Number("36"), e.Attributes["age"])
	requireIndexExact(t, s)
	page, err := s.QueryIndex(ctx, ryno.ScopedIndex{Scope: "acme", Index: "age"}, indexing.Equal(indexing.Int(36)), ryno.PageOptions{})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)

	_, err = s.Patch(ctx, k, ryno.Patch{Remove: []string{"email"}}, ryno.IfVersion(1))
	require.ErrorIs(t, err, ryno.ErrConflict)
	_, err = s.Patch(ctx, k, ryno.Patch{Remove: []string{"email"}}, ryno.IfVersion(2))
	require.NoError(t, err)
	requireIndexExact(t, s)
	_, err = s.Patch(ctx, k, ryno.Patch{Add: map[string]any{"name": 1}})
	require.ErrorIs(t, err, ryno.ErrInvalid, "adding to a string")
	_, err = s.Patch(ctx, k, ryno.Patch{Add: map[string]any{"email": 1}})
	require.NoError(t, err, "email is gone: it counts as 0")
	requireIndexExact(t, s)
}

func TestModifyFailures(t *testing.T) {
	db, _, _ := newStore(t)
	k := person("ada", nil).Key
	_, err := db.Modify(ctx, k, func(*ryno.Entity) error { return nil })
	require.ErrorIs(t, err, ryno.ErrNotFound)

	_, err = db.Create(ctx, &ryno.Entity{Key: k})
	require.NoError(t, err)
	errStop := errors.New("stop")
	_, err = db.Modify(ctx, k, func(e *ryno.Entity) error { e.Attributes["x"] = 1; return errStop })
	require.ErrorIs(t, err, errStop)
	_, err = db.Modify(ctx, k, func(e *ryno.Entity) error { e.ID = "other"; return nil })
	require.ErrorIs(t, err, ryno.ErrInvalid)
	got, err := db.Get(ctx, k)
	require.NoError(t, err)
	require.Equal(t, int64(1), got.Version, "nothing was written")
}

func TestWritersWithoutTheIndexDefinitionsAreRefused(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: mixedIndexes})
	k := person("ada", nil).Key
	e, err := s.Create(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"age": 36, "email": "ada@example.com"}})
	require.NoError(t, err)

	unaware := newClientOn(t, s, ryno.Options{}) // registers no index
	writes := map[string]func() error{
		"blind Set": func() error {
			_, err := unaware.Set(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"age": 1}})
			return err
		},
		"versioned Update": func() error {
			_, err := unaware.Update(ctx, e)
			return err
		},
		"Patch": func() error {
			_, err := unaware.Patch(ctx, k, ryno.Patch{Add: map[string]any{"age": 1}})
			return err
		},
	}
	for name, write := range writes {
		err := write()
		require.ErrorIs(t, err, ryno.ErrUnknownIndex, name)
		var unknown *ryno.UnknownIndexError
		require.ErrorAs(t, err, &unknown, name)
		require.Equal(t, []string{"age", "email"}, unknown.Indexes, name)
	}
	got, err := s.Get(ctx, k)
	require.NoError(t, err)
	require.Equal(t, int64(1), got.Version, "nothing was written")

	// A client with one more index writes it, and then the first client lacks it.
	more := newClientOn(t, s, ryno.Options{Indexes: append(mixedIndexes[:2:2], ryno.Index{Type: "person", Name: "name", Map: emitName})})
	got, err = more.Update(ctx, got)
	require.NoError(t, err)
	_, err = s.Update(ctx, got)
	require.ErrorIs(t, err, ryno.ErrUnknownIndex)

	// Reindex drops an index deliberately.
	_, err = s.Reindex(ctx, ryno.Type{Scope: "acme", Name: "person"}, nil)
	require.NoError(t, err)
	got, err = s.Get(ctx, k)
	require.NoError(t, err)
	_, err = s.Update(ctx, got)
	require.NoError(t, err)
	requireIndexExact(t, s)
}

func emitName(e *ryno.Entity, emit func(indexing.Value)) {
	if s, ok := e.Attributes["name"].(string); ok {
		emit(indexing.String(s))
	}
}

func TestIndexedWritesStayWithinTheirRounds(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: mixedIndexes})
	k := person("ada", nil).Key
	e, err := s.Create(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"age": 1, "email": "a@example.com"}})
	require.NoError(t, err)
	require.Equal(t, 1, s.counter.Rounds(), "a new entity: one transaction")

	s.counter.Reset()
	e.Attributes["age"] = 2
	_, err = s.Update(ctx, e)
	require.NoError(t, err)
	require.LessOrEqual(t, s.counter.Rounds(), 2, "carrying its version: the entries, then the transaction")

	s.counter.Reset()
	_, err = s.Set(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"age": 3, "email": "b@example.com"}})
	require.NoError(t, err)
	require.Equal(t, 2, s.counter.Rounds(), "blind: the item and its entries, then the transaction")
	require.Equal(t, map[string]int{"GetItem": 1, "Query": 1, "TransactWriteItems": 1}, s.counter.Counts(),
		"blind: one write, which the read made sure would not be refused")
	requireIndexExact(t, s)

	s.counter.Reset()
	_, err = s.Set(ctx, &ryno.Entity{Key: person("grace", nil).Key, Attributes: map[string]any{"age": 4, "email": "g@example.com"}})
	require.NoError(t, err)
	require.Equal(t, 2, s.counter.Rounds(), "blind, new: the read finds nothing, then the transaction")
	require.Equal(t, map[string]int{"GetItem": 1, "Query": 1, "TransactWriteItems": 1}, s.counter.Counts())
	requireIndexExact(t, s)
}
