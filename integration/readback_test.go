package integration_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/ryno"
)

// TestEntityReadWithListsWrittenBackKeepsLists reads an entity with its lists, lets
// another writer change a list, and writes the entity back: the lists stay as the
// other writer left them, since Entity.Relationships is a read result only.
func TestEntityReadWithListsWrittenBackKeepsLists(t *testing.T) {
	s := newStoreWith(t, nil)
	ada := pk("ada")
	_, err := s.Create(ctx, &ryno.Entity{Key: ada, Attributes: map[string]any{"n": 1}},
		ryno.ReplaceLists(map[string][]ryno.Key{"follows": {pk("b")}, "likes": {pk("x")}}))
	require.NoError(t, err)

	for name, write := range map[string]func(*ryno.Entity) error{
		"update": func(e *ryno.Entity) error { _, err := s.Update(ctx, e); return err },
		"set":    func(e *ryno.Entity) error { _, err := s.Set(ctx, e); return err },
		"transaction": func(e *ryno.Entity) error {
			_, err := s.Transact(ctx, ryno.TxUpdate(e))
			return err
		},
		"modify": func(e *ryno.Entity) error {
			_, err := s.Modify(ctx, e.Key, func(m *ryno.Entity) error {
				m.Relationships = e.Relationships
				m.Attributes["n"] = 2
				return nil
			})
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			read, err := s.Get(ctx, ada, ryno.WithRelationships())
			require.NoError(t, err)
			require.NotEmpty(t, read.Relationships["follows"])

			c := pk("c-" + name)
			added, err := s.AddRelationships(ctx, ada, "follows", []ryno.Key{c})
			require.NoError(t, err)
			require.Equal(t, []ryno.Key{c}, added)
			want := append(append([]ryno.Key{}, read.Relationships["follows"]...), c)

			read.Version = 0 // write whatever is stored: the list change is not a conflict to catch
			require.NoError(t, write(read))
			require.Equal(t, want, objectsOf(t, s.Client, ada, "follows", 100))
			require.Equal(t, []ryno.Key{pk("x")}, objectsOf(t, s.Client, ada, "likes", 10))
			requireListExact(t, s, ada, "follows")
		})
	}
}

// TestReplaceListsOnlyWhereItWrites refuses ReplaceLists on calls that write no list.
func TestReplaceListsOnlyWhereItWrites(t *testing.T) {
	s := newStoreWith(t, nil)
	ada, err := s.Create(ctx, &ryno.Entity{Key: pk("ada")})
	require.NoError(t, err)
	lists := ryno.ReplaceLists(map[string][]ryno.Key{"follows": {pk("b")}})
	s.counter.Reset()

	require.ErrorIs(t, s.Delete(ctx, ada.Key, lists), ryno.ErrInvalid)
	_, err = s.Patch(ctx, ada.Key, ryno.Patch{Set: map[string]any{"a": 1}}, lists)
	require.ErrorIs(t, err, ryno.ErrInvalid)
	_, err = s.Transact(ctx, ryno.TxDelete(ada.Key, lists))
	require.ErrorIs(t, err, ryno.ErrInvalid)
	_, err = s.Create(ctx, &ryno.Entity{Key: pk("bob")}, ryno.IfVersion(1))
	require.ErrorIs(t, err, ryno.ErrInvalid)
	require.Zero(t, s.counter.Total(), "refused before any request")
}

// TestIfVersionOnUpdateAndSet checks IfVersion on an entity that carries no Version,
// as an HTTP handler builds it from a request body and an If-Match header.
func TestIfVersionOnUpdateAndSet(t *testing.T) {
	s := newStoreWith(t, nil)
	ada, err := s.Create(ctx, &ryno.Entity{Key: pk("ada"), Attributes: map[string]any{"n": 1}})
	require.NoError(t, err)
	body := func() *ryno.Entity { return &ryno.Entity{Key: ada.Key, Attributes: map[string]any{"n": 2}} }
	stale := ryno.IfVersion(ada.Version + 1)

	_, err = s.Update(ctx, body(), stale)
	require.ErrorIs(t, err, ryno.ErrConflict)
	_, err = s.Set(ctx, body(), stale)
	require.ErrorIs(t, err, ryno.ErrConflict)
	_, err = s.Transact(ctx, ryno.TxUpdate(body(), stale))
	require.ErrorIs(t, err, ryno.ErrConflict)
	_, err = s.Modify(ctx, ada.Key, func(e *ryno.Entity) error { e.Attributes["n"] = 3; return nil }, stale)
	require.ErrorIs(t, err, ryno.ErrConflict)
	got, err := s.Get(ctx, ada.Key)
	require.NoError(t, err)
	require.Equal(t, ada.Version, got.Version, "no refused write landed")

	withOther := body()
	withOther.Version = ada.Version + 5
	_, err = s.Update(ctx, withOther, ryno.IfVersion(ada.Version))
	require.ErrorIs(t, err, ryno.ErrInvalid, "two versions to expect")

	stored, err := s.Set(ctx, body(), ryno.IfVersion(ada.Version))
	require.NoError(t, err)
	require.Equal(t, ada.Version+1, stored.Version)
}
