package integration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

var ctx = context.Background()

func person(id string, attrs map[string]any) *ryno.Entity {
	return &ryno.Entity{Key: ryno.Key{Scope: "acme", Type: "person", ID: id}, Attributes: attrs}
}

func TestCreateThenGetRoundTripsEveryKindOfValue(t *testing.T) {
	db, counter, _ := newStore(t)
	e := person("ada", map[string]any{
		"name":    "Ada Lovelace",
		"empty":   "",
		"big":     int64(9007199254740993), // not exact as a float64
		"ratio":   0.1,
		"alive":   false,
		"nothing": nil,
		"tags":    []any{"math", int64(1815)},
		"address": map[string]any{"city": "London", "zip": "W1"},
		"blob":    []byte{0, 1, 2},
	})
	e.Meta = map[string]any{"source": "import", "rev": 3}

	created, err := db.Create(ctx, e)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"PutItem": 1}, requests(counter))
	require.False(t, created.Created.IsZero())
	require.Equal(t, created.Created, created.Updated)

	got, err := db.Get(ctx, e.Key)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"GetItem": 1}, requests(counter))
	require.Equal(t, e.Key, got.Key)
	require.Equal(t, created.Created, got.Created)
	require.Equal(t, created.Updated, got.Updated)
	require.Equal(t, map[string]any{
		"name":    "Ada Lovelace",
		"empty":   "",
		"big":     json.Number("9007199254740993"),
		"ratio":   json.Number("0.1"),
		"alive":   false,
		"nothing": nil,
		"tags":    []any{"math", json.Number("1815")},
		"address": map[string]any{"city": "London", "zip": "W1"},
		"blob":    []byte{0, 1, 2},
	}, got.Attributes)
	require.Equal(t, map[string]any{"source": "import", "rev": json.Number("3")}, got.Meta)
}

func TestEntitiesEncodeFromAndDecodeIntoStructs(t *testing.T) {
	type account struct {
		Owner   string  `dynamodbav:"owner"`
		Number  int64   `dynamodbav:"number"`
		Balance float64 `dynamodbav:"balance"`
		Limit   uint64  `dynamodbav:"limit"`
	}
	db, _, _ := newStore(t)
	want := account{Owner: "ada", Number: 1<<62 + 1, Balance: -12.5, Limit: 1<<64 - 1}
	e, err := ryno.NewEntity(ryno.Key{Scope: "acme", Type: "account", ID: "a1"}, want)
	require.NoError(t, err)
	_, err = db.Set(ctx, e)
	require.NoError(t, err)

	got, err := db.Get(ctx, e.Key)
	require.NoError(t, err)
	var decoded account
	require.NoError(t, got.Decode(&decoded))
	require.Equal(t, want, decoded, "integers survive exactly")
}

func TestCreateOnAnExistingKeyConflicts(t *testing.T) {
	db, counter, _ := newStore(t)
	_, err := db.Create(ctx, person("ada", map[string]any{"v": "first"}))
	require.NoError(t, err)
	counter.Reset()

	_, err = db.Create(ctx, person("ada", map[string]any{"v": "second"}))
	require.ErrorIs(t, err, ryno.ErrConflict)
	require.Equal(t, map[string]int{"PutItem": 1}, requests(counter))

	got, err := db.Get(ctx, person("ada", nil).Key)
	require.NoError(t, err)
	require.Equal(t, "first", got.Attributes["v"], "the stored entity is untouched")
}

func TestUpdateOfAMissingEntityIsNotFound(t *testing.T) {
	tests := []struct {
		name     string
		created  time.Time
		version  int64
		requests map[string]int
	}{
		{"without a version: the update's condition fails", time.Time{}, 0, map[string]int{"UpdateItem": 1}},
		{"with Created but no version: read first", time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), 0, map[string]int{"GetItem": 1}},
		{"with a version: the put's condition fails", time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), 3, map[string]int{"PutItem": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, counter, _ := newStore(t)
			e := person("ghost", map[string]any{"v": 1})
			e.Created, e.Version = tt.created, tt.version
			_, err := db.Update(ctx, e)
			require.ErrorIs(t, err, ryno.ErrNotFound)
			require.Equal(t, tt.requests, requests(counter))

			_, err = db.Get(ctx, e.Key)
			require.ErrorIs(t, err, ryno.ErrNotFound, "nothing was written")
		})
	}
}

func TestUpdateKeepsCreatedAndReplacesAttributes(t *testing.T) {
	db, counter, _ := newStore(t)
	created, err := db.Create(ctx, person("ada", map[string]any{"a": "1", "b": "2"}))
	require.NoError(t, err)
	read, err := db.Get(ctx, created.Key)
	require.NoError(t, err)
	counter.Reset()

	read.Attributes = map[string]any{"a": "changed"}
	updated, err := db.Update(ctx, read)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"PutItem": 1}, requests(counter), "an entity read from the store costs one request")
	require.Equal(t, created.Created, updated.Created)
	require.True(t, updated.Updated.After(created.Updated))

	got, err := db.Get(ctx, created.Key)
	require.NoError(t, err)
	require.Equal(t, map[string]any{"a": "changed"}, got.Attributes, "b is gone: a put replaces the whole set")
	require.Equal(t, created.Created, got.Created)
	require.Equal(t, updated.Updated, got.Updated)
}

func TestUpdateWithoutAVersionIsOneRequest(t *testing.T) {
	db, counter, _ := newStore(t)
	created, err := db.Create(ctx, person("ada", map[string]any{"v": "a"}))
	require.NoError(t, err)
	counter.Reset()

	updated, err := db.Update(ctx, person("ada", map[string]any{"v": "x"}))
	require.NoError(t, err)
	require.Equal(t, map[string]int{"UpdateItem": 1}, requests(counter), "the same attribute names: updated in place")
	require.Equal(t, created.Created, updated.Created)
	require.Equal(t, created.Version+1, updated.Version)
}

// TestAWriteWithoutAVersionLeavesNothingOfTheStoredAttributes writes entities
// without their versions over stored ones, written by another client, whose
// attribute names differ, or that a patch changed: nothing of the stored attributes
// survives, at the cost of one refused update, since the writer has never met that
// shape.
func TestAWriteWithoutAVersionLeavesNothingOfTheStoredAttributes(t *testing.T) {
	tests := []struct {
		name   string
		stored map[string]any
		meta   map[string]any
		patch  *ryno.Patch
		write  map[string]any
		calls  map[string]int
	}{
		{"the same names", map[string]any{"a": "1", "b": "2"}, nil, nil, map[string]any{"a": "3", "b": "4"},
			map[string]int{"UpdateItem": 1}},
		{"a name dropped", map[string]any{"a": "1", "b": "2"}, nil, nil, map[string]any{"a": "3"},
			map[string]int{"UpdateItem": 1, "PutItem": 1}},
		{"a name added", map[string]any{"a": "1"}, nil, nil, map[string]any{"a": "3", "c": "5"},
			map[string]int{"UpdateItem": 1, "PutItem": 1}},
		{"metadata dropped", map[string]any{"a": "1"}, map[string]any{"m": "x"}, nil, map[string]any{"a": "3"},
			map[string]int{"UpdateItem": 1, "PutItem": 1}},
		{"a name a patch added", map[string]any{"a": "1"}, nil, &ryno.Patch{Set: map[string]any{"p": "1"}}, map[string]any{"a": "3"},
			map[string]int{"UpdateItem": 1, "PutItem": 1}},
		{"a patch changing no name", map[string]any{"a": "1"}, nil, &ryno.Patch{Set: map[string]any{"a": "2"}}, map[string]any{"a": "3"},
			map[string]int{"UpdateItem": 1, "PutItem": 1}},
	}
	for _, tt := range tests {
		for _, op := range []string{"Set", "Update"} {
			t.Run(tt.name+", "+op, func(t *testing.T) {
				s := newStoreWith(t, nil)
				db, counter := s.Client, s.counter
				creator := newClientOn(t, s, ryno.Options{})
				stored := person("ada", tt.stored)
				stored.Meta = tt.meta
				created, err := creator.Create(ctx, stored)
				require.NoError(t, err)
				if tt.patch != nil {
					_, err := creator.Patch(ctx, stored.Key, *tt.patch)
					require.NoError(t, err)
				}
				counter.Reset()

				write := db.Set
				if op == "Update" {
					write = db.Update
				}
				got, err := write(ctx, person("ada", tt.write))
				require.NoError(t, err)
				require.Equal(t, tt.calls, requests(counter))
				read, err := db.Get(ctx, stored.Key)
				require.NoError(t, err)
				require.Equal(t, person("ada", tt.write).Attributes, read.Attributes, "only the attributes written")
				require.Empty(t, read.Meta)
				require.Equal(t, created.Created, read.Created)
				require.Equal(t, got.Version, read.Version)
				require.Equal(t, got.Attributes, read.Attributes)
			})
		}
	}
}

// TestAWriteWithoutAVersionOverAShapeItHasMetIsOneUpdate writes an entity whose
// optional attributes come and go, as a struct with omitempty fields does, without
// its version: over a stored shape the client has written, read, or been refused
// by before, the write is one UpdateItem that removes the names it does not set. A
// shape it has not met (another client's, or one a Patch left) costs one refused
// update, once.
func TestAWriteWithoutAVersionOverAShapeItHasMetIsOneUpdate(t *testing.T) {
	full := map[string]any{"name": "Ada", "phone": "555", "email": "ada@example.com"}
	short := map[string]any{"name": "Ada"}
	other := map[string]any{"name": "Ada", "twitter": "@ada"}
	type step struct {
		by    string // "db", the client counted, or "other", another client
		op    string // "Set", "Get" or "Patch"
		attrs map[string]any
		calls map[string]int // of db's writes
	}
	one := map[string]int{"UpdateItem": 1}
	refused := map[string]int{"UpdateItem": 1, "PutItem": 1}
	tests := []struct {
		name  string
		steps []step
	}{
		{"its own earlier writes", []step{
			{"db", "Set", full, one}, {"db", "Set", short, one}, {"db", "Set", full, one}, {"db", "Set", other, one},
			{"db", "Set", short, one}, {"db", "Set", full, one},
		}},
		{"a shape it read", []step{
			{"other", "Set", full, nil}, {"db", "Get", nil, nil}, {"db", "Set", short, one},
		}},
		{"a shape it has not met, then met", []step{
			{"other", "Set", full, nil}, {"db", "Set", short, refused}, {"other", "Set", full, nil}, {"db", "Set", short, one},
		}},
		{"a shape another client wrote since", []step{
			{"db", "Set", full, one}, {"other", "Set", other, nil}, {"db", "Set", short, refused}, {"db", "Set", other, one},
		}},
		{"a Patch since, which records no shape", []step{
			{"db", "Set", full, one}, {"other", "Patch", map[string]any{"phone": "556"}, nil}, {"db", "Set", short, refused},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStoreWith(t, nil)
			clients := map[string]*ryno.Client{"db": s.Client, "other": newClientOn(t, s, ryno.Options{})}
			reader := newClientOn(t, s, ryno.Options{}) // reads apart, so db learns nothing from them
			k := pk("ada")
			for i, st := range tt.steps {
				c := clients[st.by]
				s.counter.Reset()
				var err error
				switch st.op {
				case "Set":
					_, err = c.Set(ctx, person("ada", st.attrs))
				case "Get":
					_, err = c.Get(ctx, k)
				case "Patch":
					_, err = c.Patch(ctx, k, ryno.Patch{Set: st.attrs})
				}
				require.NoError(t, err, "step %d", i)
				if st.calls != nil {
					require.Equal(t, st.calls, requests(s.counter), "step %d: %s of %v", i, st.op, st.attrs)
				}
				if st.op == "Set" {
					read, err := reader.Get(ctx, k)
					require.NoError(t, err)
					require.Equal(t, person("ada", st.attrs).Attributes, read.Attributes, "step %d: only the attributes written", i)
				}
			}
		})
	}
}

func TestSetTwiceKeepsCreatedAndMovesUpdated(t *testing.T) {
	db, counter, _ := newStore(t)
	first, err := db.Set(ctx, person("ada", map[string]any{"v": 1}))
	require.NoError(t, err)
	require.Equal(t, map[string]int{"UpdateItem": 1}, requests(counter), "a new entity costs one request")

	second, err := db.Set(ctx, person("ada", map[string]any{"v": 2}))
	require.NoError(t, err)
	require.Equal(t, map[string]int{"UpdateItem": 1}, requests(counter), "without its version, of the same attribute names: one update in place")
	require.Equal(t, first.Version+1, second.Version)
	require.Equal(t, first.Created, second.Created)
	require.True(t, second.Updated.After(first.Updated))

	third, err := db.Set(ctx, second)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"PutItem": 1}, requests(counter), "with the stored Created: one request")
	require.Equal(t, first.Created, third.Created)
	require.True(t, third.Updated.After(second.Updated))

	got, err := db.Get(ctx, first.Key)
	require.NoError(t, err)
	require.Equal(t, first.Created, got.Created)
	require.Equal(t, third.Updated, got.Updated)
}

func TestSetWithAWrongCreatedStillKeepsTheStoredOne(t *testing.T) {
	db, counter, _ := newStore(t)
	first, err := db.Set(ctx, person("ada", nil))
	require.NoError(t, err)
	counter.Reset()

	stale := person("ada", map[string]any{"v": 1})
	stale.Created = first.Created.Add(-time.Hour)
	got, err := db.Set(ctx, stale)
	require.NoError(t, err)
	require.Equal(t, first.Created, got.Created)
	require.Equal(t, map[string]int{"PutItem": 2}, requests(counter))

	// The entity read is deleted: a Set of it, carrying its version, conflicts.
	require.NoError(t, db.Delete(ctx, first.Key))
	counter.Reset()
	_, err = db.Set(ctx, got)
	require.ErrorIs(t, err, ryno.ErrConflict)
	require.ErrorIs(t, err, ryno.ErrNotFound)
	require.Equal(t, map[string]int{"PutItem": 1}, requests(counter))

	// Without a version, a Created for an entity that no longer exists is ignored:
	// Set creates it anew.
	got.Version = 0
	recreated, err := db.Set(ctx, got)
	require.NoError(t, err)
	require.True(t, recreated.Created.After(first.Created))
	require.Equal(t, int64(1), recreated.Version)
	require.Equal(t, map[string]int{"PutItem": 1}, requests(counter))
}

func TestDeleteIsIdempotent(t *testing.T) {
	db, counter, _ := newStore(t)
	e, err := db.Create(ctx, person("ada", nil))
	require.NoError(t, err)
	counter.Reset()

	require.NoError(t, db.Delete(ctx, e.Key))
	require.Equal(t, map[string]int{"UpdateItem": 1, "Query": 3, "DeleteItem": 1}, requests(counter),
		"the tombstone, the reads of what refers to it (nothing here), then the entity")
	_, err = db.Get(ctx, e.Key)
	require.ErrorIs(t, err, ryno.ErrNotFound)
	require.NoError(t, db.Delete(ctx, e.Key), "deleting a missing entity is not an error")
}

func TestKeysWithDelimitersRoundTripAndNeverCollide(t *testing.T) {
	db, _, _ := newStore(t)
	keys := []ryno.Key{
		{Scope: "a:b", Type: "c", ID: "1"},
		{Scope: "a", Type: "b:c", ID: "1"},
		{Scope: "a%3Ab", Type: "c", ID: "1"},
		{Scope: "a", Type: "b%3Ac", ID: "1"},
		{Scope: "s", Type: "t", ID: "x:y%z"},
		{Scope: "s", Type: "t", ID: "x%3Ay%25z"},
	}
	for i, k := range keys {
		_, err := db.Create(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"i": i}})
		require.NoError(t, err, "key %v is distinct from every other", k)
	}
	for i, k := range keys {
		got, err := db.Get(ctx, k)
		require.NoError(t, err)
		require.Equal(t, k, got.Key)
		require.Equal(t, json.Number(fmt.Sprint(i)), got.Attributes["i"])

		page, err := db.ListByType(ctx, ryno.Type{Scope: k.Scope, Name: k.Type}, ryno.PageOptions{})
		require.NoError(t, err)
		var ids []string
		for _, e := range page.Items {
			ids = append(ids, e.Scope+"|"+e.Type+"|"+e.ID)
		}
		want := 1
		if k.Scope == "s" {
			want = 2
		}
		require.Len(t, ids, want, "type %q of scope %q lists only its own entities: %v", k.Type, k.Scope, ids)
	}
}

func TestBadInputSendsNoRequest(t *testing.T) {
	db, counter, _ := newStore(t)
	good := ryno.Key{Scope: "s", Type: "t", ID: "i"}
	huge := strings.Repeat("x", 400*1024)
	longID := strings.Repeat(":", 700) // 2,100 bytes once escaped

	writes := []struct {
		name  string
		e     *ryno.Entity
		field string
	}{
		{"nil entity", nil, "Entity"},
		{"empty scope", &ryno.Entity{Key: ryno.Key{Type: "t", ID: "i"}}, "Key.Scope"},
		{"empty id", &ryno.Entity{Key: ryno.Key{Scope: "s", Type: "t"}}, "Key.ID"},
		{"control character", &ryno.Entity{Key: ryno.Key{Scope: "s", Type: "t", ID: "a\nb"}}, "Key.ID"},
		{"invalid UTF-8", &ryno.Entity{Key: ryno.Key{Scope: "s\xff", Type: "t", ID: "i"}}, "Key.Scope"},
		{"key over DynamoDB's limit", &ryno.Entity{Key: ryno.Key{Scope: "s", Type: "t", ID: longID}}, "Key"},
		{"reserved attribute name", &ryno.Entity{Key: good, Attributes: map[string]any{"_id": "x"}}, "Attributes._id"},
		{"empty attribute name", &ryno.Entity{Key: good, Attributes: map[string]any{"": "x"}}, "Attributes"},
		{"unencodable value", &ryno.Entity{Key: good, Attributes: map[string]any{"f": func() {}}}, "Attributes.f"},
		{"item over 400 KB", &ryno.Entity{Key: good, Attributes: map[string]any{"big": huge}}, "Entity"},
		{"infinite number", &ryno.Entity{Key: good, Attributes: map[string]any{"x": math.Inf(1)}}, "Attributes.x"},
		{"number out of DynamoDB's range", &ryno.Entity{Key: good, Attributes: map[string]any{"x": []any{1, 1e200}}}, "Attributes.x[1]"},
		{"NaN in the metadata", &ryno.Entity{Key: good, Meta: map[string]any{"m": math.NaN()}}, "Meta.m"},
	}
	for _, tt := range writes {
		t.Run(tt.name, func(t *testing.T) {
			for name, write := range map[string]func(context.Context, *ryno.Entity, ...ryno.WriteOption) (*ryno.Entity, error){
				"Create": db.Create, "Update": db.Update, "Set": db.Set,
			} {
				_, err := write(ctx, tt.e)
				require.ErrorIs(t, err, ryno.ErrInvalid, name)
				var ve *ryno.ValidationError
				require.ErrorAs(t, err, &ve, name)
				require.Equal(t, tt.field, ve.Field, name)
			}
			require.Zero(t, counter.Total(), "no request was sent")
		})
	}

	reads := []struct {
		name string
		call func() error
		want error
	}{
		{"Get with an empty type", func() error { _, err := db.Get(ctx, ryno.Key{Scope: "s", ID: "i"}); return err }, ryno.ErrInvalid},
		{"Delete with a control character", func() error { return db.Delete(ctx, ryno.Key{Scope: "s", Type: "t\x00", ID: "i"}) }, ryno.ErrInvalid},
		{"BatchGet with one bad key", func() error {
			_, err := db.BatchGet(ctx, []ryno.Key{good, {Scope: "s", Type: "t"}})
			return err
		}, ryno.ErrInvalid},
		{"ListByType with an empty scope", func() error {
			_, err := db.ListByType(ctx, ryno.Type{Scope: "", Name: "t"}, ryno.PageOptions{})
			return err
		}, ryno.ErrInvalid},
		{"ListByType with a negative limit", func() error {
			_, err := db.ListByType(ctx, ryno.Type{Scope: "s", Name: "t"}, ryno.PageOptions{Limit: -1})
			return err
		}, ryno.ErrInvalid},
		{"ListByType with a garbage cursor", func() error {
			_, err := db.ListByType(ctx, ryno.Type{Scope: "s", Name: "t"}, ryno.PageOptions{Cursor: "not a cursor!"})
			return err
		}, ryno.ErrInvalidCursor},
		{"ListByType with base64 that is not a cursor", func() error {
			_, err := db.ListByType(ctx, ryno.Type{Scope: "s", Name: "t"}, ryno.PageOptions{Cursor: "eyJmb28iOjF9"})
			return err
		}, ryno.ErrInvalidCursor},
	}
	for _, tt := range reads {
		t.Run(tt.name, func(t *testing.T) {
			require.ErrorIs(t, tt.call(), tt.want)
			require.Zero(t, counter.Total(), "no request was sent")
		})
	}
}

func TestNewRejectsAnInvalidPrefix(t *testing.T) {
	for _, prefix := range []string{"", "has space", "slash/no", strings.Repeat("p", 300)} {
		_, err := ryno.New(dynamotest.API(t), ryno.Options{TablePrefix: prefix})
		var ve *ryno.ValidationError
		require.ErrorAs(t, err, &ve, "prefix %q", prefix)
		require.Equal(t, "TablePrefix", ve.Field)
	}
}
