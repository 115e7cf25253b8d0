package integration_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/integration/dynamotest"
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
	return twoLivesOf(t, db, "ada")
}

// twoLivesOf is twoLives for the person id.
func twoLivesOf(t *testing.T, db *ryno.Client, id string) (first, second *ryno.Entity) {
	t.Helper()
	first, err := db.Create(ctx, person(id, map[string]any{"v": "first life"}))
	require.NoError(t, err)
	require.NoError(t, db.Delete(ctx, first.Key))
	second, err = db.Create(ctx, person(id, map[string]any{"v": "second life"}))
	require.NoError(t, err)
	require.Equal(t, first.Version, second.Version, "versions start again at 1")
	require.False(t, first.Created.Equal(second.Created), "the clock moved on")
	return first, second
}

// personLife is a person of twoLives as a struct.
type personLife struct {
	ryno.Record
	V string `dynamodbav:"v"`
}

// lifeOf returns e as a personLife, its Record filled as GetAs fills it.
func lifeOf(t *testing.T, e *ryno.Entity) *personLife {
	t.Helper()
	v := new(personLife)
	require.NoError(t, e.Decode(v))
	require.Equal(t, e.Created, v.Created)
	return v
}

// requireOtherLife requires err to refuse a write naming a life of its key that is
// gone: a *ConflictError matching ErrNotFound too.
func requireOtherLife(t *testing.T, err error) {
	t.Helper()
	var conflict *ryno.ConflictError
	require.ErrorAs(t, err, &conflict)
	require.ErrorIs(t, err, ryno.ErrConflict)
	require.ErrorIs(t, err, ryno.ErrNotFound, "the life it named is gone")
}

// requireStored requires e to be stored as it is, index entries included.
func requireStored(t *testing.T, s *store, e *ryno.Entity) {
	t.Helper()
	got, err := s.Get(ctx, e.Key, ryno.Consistent())
	require.NoError(t, err)
	require.Equal(t, e, got, "nothing was written")
	requireIndexExact(t, s)
}

// lifeStores are a store of a type without indexes, whose Patch is one UpdateItem,
// and one of an indexed type, whose Patch reads and writes as Modify does.
func lifeStores(t *testing.T) map[string]*store {
	return map[string]*store{
		"plain":   newStoreWith(t, nil),
		"indexed": newStoreOpts(t, nil, ryno.Options{Indexes: mixedIndexes}),
	}
}

// TestTypedWritesOfAnEarlierLifeAreRefused writes back a struct read from a key's
// first life onto its second life at the same version: UpdateAs and SetAs check the
// Created of its Record, as Update checks an entity read, and write nothing. A
// struct of the second life is written.
func TestTypedWritesOfAnEarlierLifeAreRefused(t *testing.T) {
	writes := map[string]func(*ryno.Client, *personLife) error{
		"UpdateAs": func(db *ryno.Client, v *personLife) error { return ryno.UpdateAs(ctx, db, v) },
		"SetAs":    func(db *ryno.Client, v *personLife) error { return ryno.SetAs(ctx, db, v) },
	}
	for kind, s := range lifeStores(t) {
		for name, write := range writes {
			t.Run(kind+"/"+name, func(t *testing.T) {
				first, second := twoLivesOf(t, s.Client, name)
				stale := lifeOf(t, first)
				stale.V = "lost"
				requireOtherLife(t, write(s.Client, stale))
				requireStored(t, s, second)

				current := lifeOf(t, second)
				current.V = "kept"
				require.NoError(t, write(s.Client, current))
				require.Equal(t, second.Version+1, current.Version)
				require.Equal(t, second.Created, current.Created)
				got, err := s.Get(ctx, second.Key, ryno.Consistent())
				require.NoError(t, err)
				require.Equal(t, "kept", got.Attributes["v"])
			})
		}
	}
}

// TestIfCreatedOnEveryWriteThatTakesIfVersion carries an ETag of a key's first life,
// its version and Created, into every write that takes IfVersion, on the key's
// second life at the same version: each is refused as a write of a life that is
// gone, and writes nothing. IfCreated alone refuses it too. The second life's own
// ETag passes.
func TestIfCreatedOnEveryWriteThatTakesIfVersion(t *testing.T) {
	dynamotest.Parallel(t)
	type write func(db *ryno.Client, k ryno.Key, opts ...ryno.WriteOption) error
	changed := func() map[string]any { return map[string]any{"v": "changed"} }
	writes := map[string]write{
		"Update": func(db *ryno.Client, k ryno.Key, opts ...ryno.WriteOption) error {
			_, err := db.Update(ctx, &ryno.Entity{Key: k, Attributes: changed()}, opts...)
			return err
		},
		"Set": func(db *ryno.Client, k ryno.Key, opts ...ryno.WriteOption) error {
			_, err := db.Set(ctx, &ryno.Entity{Key: k, Attributes: changed()}, opts...)
			return err
		},
		"Patch": func(db *ryno.Client, k ryno.Key, opts ...ryno.WriteOption) error {
			_, err := db.Patch(ctx, k, ryno.Patch{Set: changed()}, opts...)
			return err
		},
		"Modify": func(db *ryno.Client, k ryno.Key, opts ...ryno.WriteOption) error {
			_, err := db.Modify(ctx, k, func(e *ryno.Entity) error { e.Attributes = changed(); return nil }, opts...)
			return err
		},
		"ModifyAs": func(db *ryno.Client, k ryno.Key, opts ...ryno.WriteOption) error {
			_, err := ryno.ModifyAs(ctx, db, k, func(v *personLife) error { v.V = "changed"; return nil }, opts...)
			return err
		},
		"Delete": func(db *ryno.Client, k ryno.Key, opts ...ryno.WriteOption) error {
			return db.Delete(ctx, k, opts...)
		},
		"TxUpdate": func(db *ryno.Client, k ryno.Key, opts ...ryno.WriteOption) error {
			_, err := db.Transact(ctx, ryno.TxUpdate(&ryno.Entity{Key: k, Attributes: changed()}, opts...))
			return err
		},
		"TxSet": func(db *ryno.Client, k ryno.Key, opts ...ryno.WriteOption) error {
			_, err := db.Transact(ctx, ryno.TxSet(&ryno.Entity{Key: k, Attributes: changed()}, opts...))
			return err
		},
		"TxPatch": func(db *ryno.Client, k ryno.Key, opts ...ryno.WriteOption) error {
			_, err := db.Transact(ctx, ryno.TxPatch(k, ryno.Patch{Set: changed()}, opts...))
			return err
		},
		"TxDelete": func(db *ryno.Client, k ryno.Key, opts ...ryno.WriteOption) error {
			_, err := db.Transact(ctx, ryno.TxDelete(k, opts...))
			return err
		},
	}
	etags := map[string]func(e *ryno.Entity) []ryno.WriteOption{
		"ETag": func(e *ryno.Entity) []ryno.WriteOption {
			return []ryno.WriteOption{ryno.IfVersion(e.Version), ryno.IfCreated(e.Created)}
		},
		"IfCreated": func(e *ryno.Entity) []ryno.WriteOption { return []ryno.WriteOption{ryno.IfCreated(e.Created)} },
	}
	for kind, s := range lifeStores(t) {
		for name, write := range writes {
			for tag, etag := range etags {
				t.Run(kind+"/"+name+"/"+tag, func(t *testing.T) {
					first, second := twoLivesOf(t, s.Client, name+"-"+tag)
					requireOtherLife(t, write(s.Client, first.Key, etag(first)...))
					requireStored(t, s, second)

					require.NoError(t, write(s.Client, second.Key, etag(second)...))
					got, err := s.Get(ctx, second.Key, ryno.Consistent())
					if strings.HasSuffix(name, "Delete") {
						require.ErrorIs(t, err, ryno.ErrNotFound)
						return
					}
					require.NoError(t, err)
					require.Equal(t, "changed", got.Attributes["v"])
					require.Equal(t, second.Created, got.Created)
					requireIndexExact(t, s)
				})
			}
		}
	}
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
// Created passes. Create, which expects no entity, refuses IfCreated.
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

	_, err = db.Create(ctx, person("eve", nil), ryno.IfCreated(second.Created))
	require.ErrorIs(t, err, ryno.ErrInvalid, "Create expects no entity, of any life")

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

// TestModifyUnderIfCreatedDoesNotTryAnotherLife deletes and creates the entity again
// while fn runs: the write of the life read is refused, and Modify does not read the
// new life to call fn again.
func TestModifyUnderIfCreatedDoesNotTryAnotherLife(t *testing.T) {
	s := newStoreWith(t, nil)
	e, err := s.Create(ctx, person("ada", map[string]any{"v": "first life"}))
	require.NoError(t, err)
	other := newClientOn(t, s, ryno.Options{}) // another process, not counted
	s.counter.Reset()

	calls := 0
	_, err = s.Modify(ctx, e.Key, func(read *ryno.Entity) error {
		if calls++; calls == 1 {
			require.NoError(t, other.Delete(ctx, e.Key))
			_, err := other.Create(ctx, person("ada", map[string]any{"v": "second life"}))
			require.NoError(t, err)
		}
		read.Attributes["v"] = "lost"
		return nil
	}, ryno.IfCreated(e.Created))
	requireOtherLife(t, err)
	require.Equal(t, 1, calls)
	require.Equal(t, 1, s.counter.Count("GetItem"), "one attempt: the life is gone for good")
	got, err := s.Get(ctx, e.Key, ryno.Consistent())
	require.NoError(t, err)
	require.Equal(t, "second life", got.Attributes["v"], "nothing was written")
}

// TestPatchChecksTheLifeInItsOneUpdateItem: a Patch of a type without indexes is one
// UpdateItem with IfCreated as without, refused or not; only under IfCreated does its
// condition name _created.
func TestPatchChecksTheLifeInItsOneUpdateItem(t *testing.T) {
	var rec *dynamotest.Recorder
	s := newStoreWith(t, func(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
		rec = dynamotest.NewRecorder(api, dynamotest.RecorderOptions{})
		return rec
	})
	first, second := twoLives(t, s.Client)
	add := ryno.Patch{Add: map[string]any{"n": 1}}
	cases := []struct {
		name    string
		opts    []ryno.WriteOption
		refused bool
	}{
		{"without IfCreated", nil, false},
		{"IfCreated of the life stored", []ryno.WriteOption{ryno.IfCreated(second.Created)}, false},
		{"an ETag of the life stored", []ryno.WriteOption{ryno.IfVersion(second.Version + 2), ryno.IfCreated(second.Created)}, false},
		{"IfCreated of a life gone", []ryno.WriteOption{ryno.IfCreated(first.Created)}, true},
		{"an ETag of a life gone", []ryno.WriteOption{ryno.IfVersion(second.Version + 3), ryno.IfCreated(first.Created)}, true},
	}
	for _, c := range cases {
		rec.Reset()
		_, err := s.Patch(ctx, first.Key, add, c.opts...)
		if c.refused {
			requireOtherLife(t, err)
		} else {
			require.NoError(t, err, c.name)
		}
		require.Equal(t, map[string]int{"UpdateItem": 1}, rec.Counts(), c.name)
		// Every patch checks that _created is in the store's layout; under IfCreated it
		// requires the life's, in the same condition.
		in := rec.Requests()[0].Input.(*dynamodb.UpdateItemInput)
		var values []string
		for _, v := range in.ExpressionAttributeValues {
			if s, ok := v.(*types.AttributeValueMemberS); ok {
				values = append(values, s.Value)
			}
		}
		life := slices.ContainsFunc([]time.Time{first.Created, second.Created}, func(t time.Time) bool {
			return slices.Contains(values, t.UTC().Format("2006-01-02T15:04:05.000Z"))
		})
		require.Equal(t, c.opts != nil, life, c.name)
	}
	got, err := s.Get(ctx, first.Key, ryno.Consistent())
	require.NoError(t, err)
	require.Equal(t, json.Number("3"), got.Attributes["n"], "the three patches of the life stored")
}

// TestIfCreatedIsCheckedBeforeAnyRequest: Create and TxCreate expect no entity, of
// any life; an IfCreated no stored Created can equal, or an option that contradicts
// the Record of a typed write, is refused before any request.
func TestIfCreatedIsCheckedBeforeAnyRequest(t *testing.T) {
	db, counter, _ := newStore(t)
	k := person("ada", nil).Key
	created := time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC)
	read := &personLife{Record: ryno.Record{Key: k, Version: 1, Created: created}}
	refused := map[string]error{}
	_, refused["Create"] = db.Create(ctx, person("ada", nil), ryno.IfCreated(created))
	_, refused["TxCreate"] = db.Transact(ctx, ryno.TxCreate(person("ada", nil), ryno.IfCreated(created)))
	refused["CreateAs"] = ryno.CreateAs(ctx, db, &personLife{Record: ryno.Record{Key: k}}, ryno.IfCreated(created))
	_, refused["year 10000"] = db.Patch(ctx, k, ryno.Patch{Set: map[string]any{"v": 1}}, ryno.IfCreated(created.AddDate(8000, 0, 0)))
	refused["UpdateAs, another life"] = ryno.UpdateAs(ctx, db, read, ryno.IfCreated(created.Add(time.Second)))
	refused["SetAs, another version"] = ryno.SetAs(ctx, db, read, ryno.IfVersion(2))
	for name, err := range refused {
		require.ErrorIs(t, err, ryno.ErrInvalid, name)
	}
	require.Zero(t, counter.Total(), "no request")
}

// TestIfVersionOfAMissingEntityIsAConflict carries a version into every write that
// takes IfVersion, on a key with no entity (never created, or deleted): each fails
// with a *ConflictError matching ErrNotFound too, as IfVersion promises, and
// creates nothing.
func TestIfVersionOfAMissingEntityIsAConflict(t *testing.T) {
	dynamotest.Parallel(t)
	writes := map[string]func(db *ryno.Client, k ryno.Key) error{
		"Update": func(db *ryno.Client, k ryno.Key) error {
			_, err := db.Update(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"v": "x"}}, ryno.IfVersion(1))
			return err
		},
		"Set": func(db *ryno.Client, k ryno.Key) error {
			_, err := db.Set(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"v": "x"}}, ryno.IfVersion(1))
			return err
		},
		"Patch": func(db *ryno.Client, k ryno.Key) error {
			_, err := db.Patch(ctx, k, ryno.Patch{Set: map[string]any{"v": "x"}}, ryno.IfVersion(1))
			return err
		},
		"Modify": func(db *ryno.Client, k ryno.Key) error {
			_, err := db.Modify(ctx, k, func(e *ryno.Entity) error { e.Attributes["v"] = "x"; return nil }, ryno.IfVersion(1))
			return err
		},
		"Delete": func(db *ryno.Client, k ryno.Key) error { return db.Delete(ctx, k, ryno.IfVersion(1)) },
	}
	for kind, s := range lifeStores(t) {
		for name, write := range writes {
			t.Run(kind+"/"+name, func(t *testing.T) {
				never := ryno.Key{Scope: "acme", Type: "person", ID: "never-" + name}
				gone, _ := twoLivesOf(t, s.Client, "gone-"+name)
				require.NoError(t, s.Delete(ctx, gone.Key))
				for _, k := range []ryno.Key{never, gone.Key} {
					err := write(s.Client, k)
					requireOtherLife(t, err)
					_, err = s.Get(ctx, k, ryno.Consistent())
					require.ErrorIs(t, err, ryno.ErrNotFound, "nothing created")
				}
			})
		}
	}
}
