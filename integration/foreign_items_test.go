package integration_test

import (
	"errors"
	"maps"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/ryno"
)

// Items another program wrote: the original JavaScript RynoDB, whose record has
// no version, shape or token and times without milliseconds, or a hand edit in the
// console. foreignCreated is their creation time, stored in other layouts than the
// store's.
var foreignCreated = time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)

const (
	jsCreated     = "2019-01-01T00:00:00Z"      // as the original wrote a whole second
	jsUpdated     = "2019-01-02T03:04:05+02:00" // an offset: 01:04:05 in UTC
	editedCreated = "2019-01-01T01:00:00+01:00" // foreignCreated, by hand
	editedUpdated = "2019-01-02T01:04:05.5Z"    // fewer fractional digits
)

// foreignStore is a store whose "book" type has an index of the Created time, so
// that its writes go through transactions with index entries, and "person" none.
func foreignStore(t *testing.T) *store {
	t.Helper()
	created := func(e *ryno.Entity, emit func(indexing.Value)) { emit(indexing.Time(e.Created)) }
	return newStoreOpts(t, nil, ryno.Options{Indexes: []ryno.Index{{Type: "book", Name: "created", Map: created}}})
}

// putOriginal puts the item of k as the original JavaScript RynoDB wrote it, with
// the times given and attrs.
func putOriginal(t *testing.T, s *store, k ryno.Key, created, updated string, attrs map[string]types.AttributeValue) {
	t.Helper()
	item := map[string]types.AttributeValue{
		"_scope": str(k.Scope), "_type": str(k.Type), "_id": str(k.ID),
		"_scope_type_key": str(schema.ScopeTypeKey(k.Scope, k.Type)),
		"_created":        str(created), "_updated": str(updated),
		"_meta":          &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
		"_index_entries": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
	}
	maps.Copy(item, attrs)
	_, err := s.raw.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.Names().Entities), Item: item})
	require.NoError(t, err)
}

// createEdited creates k with the store, then sets its times by hand, as in the
// console: it has a version, a shape and a token, and times in another layout.
func createEdited(t *testing.T, s *store, k ryno.Key, created, updated string) {
	t.Helper()
	_, err := s.Create(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"v": "stored"}})
	require.NoError(t, err)
	_, err = s.raw.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.Names().Entities), Key: rawKey(k),
		UpdateExpression:          aws.String("SET #c = :c, #u = :u"),
		ExpressionAttributeNames:  map[string]string{"#c": "_created", "#u": "_updated"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":c": str(created), ":u": str(updated)},
	})
	require.NoError(t, err)
}

// storedItem reads the item of k as stored; nil for none.
func storedItem(t *testing.T, s *store, k ryno.Key) map[string]types.AttributeValue {
	t.Helper()
	out, err := s.raw.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.Names().Entities), Key: rawKey(k), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	return out.Item
}

// storedString is the string attribute name of the item of k as stored.
func storedString(t *testing.T, s *store, k ryno.Key, name string) string {
	t.Helper()
	v, ok := storedItem(t, s, k)[name].(*types.AttributeValueMemberS)
	require.True(t, ok, "%s of %s is a string", name, k)
	return v.Value
}

func TestItemsWithTimesInOtherLayoutsRead(t *testing.T) {
	s := foreignStore(t)
	ada, bob, carl := personKey("ada"), personKey("bob"), personKey("carl")
	putOriginal(t, s, ada, jsCreated, jsUpdated, map[string]types.AttributeValue{"name": str("Ada")})
	createEdited(t, s, bob, editedCreated, editedUpdated)
	_, err := s.Create(ctx, person("carl", nil))
	require.NoError(t, err)

	got, err := s.Get(ctx, ada)
	require.NoError(t, err)
	require.Equal(t, foreignCreated, got.Created)
	require.Equal(t, time.Date(2019, 1, 2, 1, 4, 5, 0, time.UTC), got.Updated)
	require.Zero(t, got.Version, "the original wrote no version")
	require.Equal(t, map[string]any{"name": "Ada"}, got.Attributes)
	got, err = s.Get(ctx, bob)
	require.NoError(t, err)
	require.Equal(t, foreignCreated, got.Created)
	require.Equal(t, time.Date(2019, 1, 2, 1, 4, 5, 500e6, time.UTC), got.Updated)

	all, err := s.BatchGet(ctx, []ryno.Key{ada, bob, carl})
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{ada, bob, carl}, keysOfEntities(all))

	page, err := s.ListByType(ctx, ada.TypeOf(), ryno.PageOptions{})
	require.NoError(t, err)
	require.ElementsMatch(t, []ryno.Key{ada, bob, carl}, keysOfEntities(page.Items))
	for _, descending := range []bool{false, true} {
		// A page of one ends at each item: the cursor after a time in another
		// layout goes on.
		var listed []ryno.Key
		for e, err := range s.AllByType(ctx, ada.TypeOf(), ryno.PageOptions{Limit: 1, Descending: descending}) {
			require.NoError(t, err)
			listed = append(listed, e.Key)
		}
		require.ElementsMatch(t, []ryno.Key{ada, bob, carl}, listed, "descending %v", descending)
	}
}

// TestWritesOfAnItemWithTimesInOtherLayouts writes, in every way, entities whose
// times another program stored in other layouts: each write passes its conditions
// on the stored Created, keeps Created, and stores both times in the store's layout.
func TestWritesOfAnItemWithTimesInOtherLayouts(t *testing.T) {
	dynamotest.Parallel(t)
	changed := map[string]any{"v": "x"}
	withVersion := func(read *ryno.Entity, opts ...ryno.WriteOption) []ryno.WriteOption {
		if read.Version > 0 {
			opts = append(opts, ryno.IfVersion(read.Version))
		}
		return opts
	}
	writes := []struct {
		name  string
		write func(s *store, read *ryno.Entity) error
	}{
		{"Update of the entity read", func(s *store, read *ryno.Entity) error {
			read.Attributes = changed
			_, err := s.Update(ctx, read)
			return err
		}},
		{"Update without a version", func(s *store, read *ryno.Entity) error {
			_, err := s.Update(ctx, &ryno.Entity{Key: read.Key, Attributes: changed})
			return err
		}},
		{"Update with IfCreated", func(s *store, read *ryno.Entity) error {
			_, err := s.Update(ctx, &ryno.Entity{Key: read.Key, Attributes: changed}, withVersion(read, ryno.IfCreated(read.Created))...)
			return err
		}},
		{"Set without a version", func(s *store, read *ryno.Entity) error {
			_, err := s.Set(ctx, &ryno.Entity{Key: read.Key, Attributes: changed})
			return err
		}},
		{"Set with IfCreated", func(s *store, read *ryno.Entity) error {
			_, err := s.Set(ctx, &ryno.Entity{Key: read.Key, Attributes: changed}, withVersion(read, ryno.IfCreated(read.Created))...)
			return err
		}},
		{"Modify", func(s *store, read *ryno.Entity) error {
			_, err := s.Modify(ctx, read.Key, func(e *ryno.Entity) error {
				e.Attributes = changed
				return nil
			})
			return err
		}},
		{"Patch", func(s *store, read *ryno.Entity) error {
			_, err := s.Patch(ctx, read.Key, ryno.Patch{Set: changed}, withVersion(read)...)
			return err
		}},
		{"TxUpdate of the entity read", func(s *store, read *ryno.Entity) error {
			read.Attributes = changed
			_, err := s.Transact(ctx, ryno.TxUpdate(read))
			return err
		}},
		{"TxPatch", func(s *store, read *ryno.Entity) error {
			_, err := s.Transact(ctx, ryno.TxPatch(read.Key, ryno.Patch{Set: changed}, withVersion(read)...))
			return err
		}},
		{"Patch with IfCreated", func(s *store, read *ryno.Entity) error {
			_, err := s.Patch(ctx, read.Key, ryno.Patch{Set: changed}, withVersion(read, ryno.IfCreated(read.Created))...)
			return err
		}},
		{"Modify with IfCreated", func(s *store, read *ryno.Entity) error {
			_, err := s.Modify(ctx, read.Key, func(e *ryno.Entity) error {
				e.Attributes = changed
				return nil
			}, ryno.IfCreated(read.Created))
			return err
		}},
		{"TxPatch with IfCreated", func(s *store, read *ryno.Entity) error {
			_, err := s.Transact(ctx, ryno.TxPatch(read.Key, ryno.Patch{Set: changed}, withVersion(read, ryno.IfCreated(read.Created))...))
			return err
		}},
	}
	deletes := []struct {
		name  string
		write func(s *store, read *ryno.Entity) error
	}{
		{"Delete", func(s *store, read *ryno.Entity) error { return s.Delete(ctx, read.Key) }},
		{"Delete with IfCreated", func(s *store, read *ryno.Entity) error {
			return s.Delete(ctx, read.Key, withVersion(read, ryno.IfCreated(read.Created))...)
		}},
		{"TxDelete", func(s *store, read *ryno.Entity) error {
			_, err := s.Transact(ctx, ryno.TxDelete(read.Key, withVersion(read)...))
			return err
		}},
		{"TxDelete with IfCreated", func(s *store, read *ryno.Entity) error {
			_, err := s.Transact(ctx, ryno.TxDelete(read.Key, withVersion(read, ryno.IfCreated(read.Created))...))
			return err
		}},
	}
	kinds := []struct {
		name string
		put  func(t *testing.T, s *store, k ryno.Key)
	}{
		{"of the original store", func(t *testing.T, s *store, k ryno.Key) {
			putOriginal(t, s, k, jsCreated, jsUpdated, map[string]types.AttributeValue{"v": str("stored")})
		}},
		{"edited by hand", func(t *testing.T, s *store, k ryno.Key) { createEdited(t, s, k, editedCreated, editedUpdated) }},
	}
	s := foreignStore(t)
	n := 0
	for _, kind := range kinds {
		for _, typ := range []string{"person", "book"} {
			for _, w := range writes {
				t.Run(w.name+", "+typ+" "+kind.name, func(t *testing.T) {
					n++
					k := ryno.Key{Scope: "acme", Type: typ, ID: strconv.Itoa(n)}
					kind.put(t, s, k)
					read, err := s.Get(ctx, k)
					require.NoError(t, err)
					require.NoError(t, w.write(s, read))

					require.Equal(t, schema.FormatTime(foreignCreated), storedString(t, s, k, "_created"), "written in the store's layout")
					require.True(t, schema.InLayout(storedString(t, s, k, "_updated")), "written in the store's layout")
					got, err := s.Get(ctx, k)
					require.NoError(t, err)
					require.Equal(t, foreignCreated, got.Created, "Created kept")
					require.Equal(t, "x", got.Attributes["v"])
					if typ == "book" {
						found, err := s.QueryIndex(ctx, ryno.ScopedIndex{Scope: "acme", Index: "created"}, indexing.Equal(indexing.Time(foreignCreated)), ryno.PageOptions{})
						require.NoError(t, err)
						require.Contains(t, keysOfEntities(found.Items), k, "the map function saw Created")
					}

					got.Attributes = map[string]any{"v": "again"} // and the next write as any other
					_, err = s.Update(ctx, got)
					require.NoError(t, err)
				})
			}
			for _, d := range deletes {
				t.Run(d.name+", "+typ+" "+kind.name, func(t *testing.T) {
					n++
					k := ryno.Key{Scope: "acme", Type: typ, ID: strconv.Itoa(n)}
					kind.put(t, s, k)
					read, err := s.Get(ctx, k)
					require.NoError(t, err)

					another := *read
					another.Created = foreignCreated.Add(time.Millisecond)
					var conflict *ryno.ConflictError
					require.ErrorAs(t, s.Delete(ctx, k, withVersion(read, ryno.IfCreated(another.Created))...), &conflict, "another life is refused")
					_, err = s.Update(ctx, &ryno.Entity{Key: k, Attributes: changed}, ryno.IfVersion(max(read.Version, 1)), ryno.IfCreated(another.Created))
					require.ErrorAs(t, err, &conflict, "another life is refused")
					require.Equal(t, jsOrEdited(kind.name), storedString(t, s, k, "_created"), "nothing written")

					require.NoError(t, d.write(s, read))
					_, err = s.Get(ctx, k)
					require.ErrorIs(t, err, ryno.ErrNotFound)
					require.Nil(t, storedItem(t, s, k))
				})
			}
		}
	}
}

// jsOrEdited is the _created the items of kind store.
func jsOrEdited(kind string) string {
	if kind == "edited by hand" {
		return editedCreated
	}
	return jsCreated
}

// TestAnItemThatCannotBeReadIsNamedAndTheOthersAreKept lists entities among which
// one has a _created and an _updated that are no times: every read names it, a
// listing returns the others with it, writes that keep Created refuse it, and Delete
// deletes it.
func TestAnItemThatCannotBeReadIsNamedAndTheOthersAreKept(t *testing.T) {
	s := foreignStore(t)
	ada, bad, carl := personKey("ada"), personKey("bad"), personKey("carl")
	putOriginal(t, s, ada, jsCreated, jsUpdated, nil)
	putOriginal(t, s, bad, "yesterday", "yesterday", map[string]types.AttributeValue{"v": str("stored")})
	_, err := s.Create(ctx, person("carl", nil))
	require.NoError(t, err)
	requireUnreadable := func(t *testing.T, err error) {
		t.Helper()
		require.ErrorIs(t, err, ryno.ErrUnreadable)
		var u *ryno.UnreadableError
		require.ErrorAs(t, err, &u)
		require.Equal(t, []ryno.Key{bad}, u.Keys())
		require.ErrorContains(t, err, bad.String())
		require.ErrorContains(t, err, `"yesterday"`)
		require.NotErrorIs(t, err, ryno.ErrInvalid, "nothing the caller sent is wrong")
	}

	_, err = s.Get(ctx, bad)
	requireUnreadable(t, err)
	got, err := s.BatchGet(ctx, []ryno.Key{ada, bad, carl})
	requireUnreadable(t, err)
	require.Equal(t, []ryno.Key{ada, {}, carl}, keysOfEntities(got), "the others are read")

	page, err := s.ListByType(ctx, ada.TypeOf(), ryno.PageOptions{})
	requireUnreadable(t, err)
	require.NotNil(t, page, "the page comes with the error")
	require.ElementsMatch(t, []ryno.Key{ada, carl}, keysOfEntities(page.Items))
	for _, descending := range []bool{false, true} {
		// In pages of one, the item is a page of its own, and its cursor goes on.
		var listed []ryno.Key
		var errs []error
		for e, err := range s.AllByType(ctx, ada.TypeOf(), ryno.PageOptions{Limit: 1, Descending: descending}) {
			if err != nil {
				errs = append(errs, err)
				continue
			}
			listed = append(listed, e.Key)
		}
		require.ElementsMatch(t, []ryno.Key{ada, carl}, listed, "descending %v", descending)
		require.Len(t, errs, 1)
		requireUnreadable(t, errs[0])
	}
	var stopped int
	for _, err := range s.AllByType(ctx, ada.TypeOf(), ryno.PageOptions{Descending: true}) {
		stopped++
		if err != nil {
			break // a loop that stops at an error stops there
		}
	}
	require.Equal(t, 3, stopped, "the two entities, then the error")

	_, err = s.AddRelationships(ctx, carl, "knows", []ryno.Key{ada, bad})
	require.NoError(t, err)
	related, err := s.RelatedEntities(ctx, carl, "knows", ryno.PageOptions{})
	requireUnreadable(t, err)
	require.Equal(t, []ryno.Key{ada}, keysOfEntities(related.Items))

	// Writes that keep what is stored refuse it, and write nothing.
	fresh := &ryno.Entity{Key: bad, Attributes: map[string]any{"v": "x"}}
	refusals := map[string]error{}
	_, refusals["Update"] = s.Update(ctx, fresh)
	_, refusals["Set"] = s.Set(ctx, fresh)
	_, refusals["Patch"] = s.Patch(ctx, bad, ryno.Patch{Set: map[string]any{"v": "x"}})
	_, refusals["Modify"] = s.Modify(ctx, bad, func(*ryno.Entity) error { return errors.New("not called") })
	_, refusals["TxUpdate"] = s.Transact(ctx, ryno.TxUpdate(fresh))
	refusals["Delete with IfCreated"] = s.Delete(ctx, bad, ryno.IfCreated(foreignCreated))
	for name, err := range refusals {
		t.Run(name, func(t *testing.T) { requireUnreadable(t, err) })
	}
	require.Equal(t, "yesterday", storedString(t, s, bad, "_created"))
	require.Equal(t, "stored", storedString(t, s, bad, "v"))

	require.NoError(t, s.Delete(ctx, bad))
	require.Nil(t, storedItem(t, s, bad))
	page, err = s.ListByType(ctx, ada.TypeOf(), ryno.PageOptions{})
	require.NoError(t, err)
	require.ElementsMatch(t, []ryno.Key{ada, carl}, keysOfEntities(page.Items))
	related, err = s.RelatedEntities(ctx, carl, "knows", ryno.PageOptions{})
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{ada}, keysOfEntities(related.Items), "the edge to it went with it")
}

// TestAnExpiryHeldAsAStringIsRead stores expiries as RFC 3339 strings, as a hand
// edit may, which DynamoDB's time to live ignores: the store reads them, and the
// next write stores a number.
func TestAnExpiryHeldAsAStringIsRead(t *testing.T) {
	s := foreignStore(t)
	later, passed := personKey("later"), personKey("passed")
	at := schema.FormatTime(foreignCreated) // the store's layout: only the expiry is foreign
	putOriginal(t, s, later, at, at, map[string]types.AttributeValue{"_expires": str("2099-01-01T00:00:00Z")})
	putOriginal(t, s, passed, at, at, map[string]types.AttributeValue{"_expires": str("2019-06-01T00:00:00Z")})

	_, err := s.Get(ctx, passed)
	require.ErrorIs(t, err, ryno.ErrNotFound, "expired")
	page, err := s.ListByType(ctx, later.TypeOf(), ryno.PageOptions{})
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{later}, keysOfEntities(page.Items))
	var traces []ryno.Trace
	found, err := s.Check(ctx, ryno.CheckOptions{OnTrace: func(tr ryno.Trace) { traces = append(traces, tr) }})
	require.NoError(t, err)
	require.Equal(t, 1, found.Traces, "%+v", traces)
	require.Equal(t, ryno.TraceExpired, traces[0].Kind, "the time to live will never delete it")
	require.Equal(t, passed, traces[0].Key)

	read, err := s.Get(ctx, later)
	require.NoError(t, err)
	require.Equal(t, time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC), read.Expires)
	_, err = s.Patch(ctx, later, ryno.Patch{Set: map[string]any{"v": "x"}})
	require.NoError(t, err, "a string is no expiry passed, to DynamoDB")
	read, err = s.Get(ctx, later)
	require.NoError(t, err)
	_, err = s.Update(ctx, read)
	require.NoError(t, err)
	stored := storedItem(t, s, later)["_expires"]
	require.Equal(t, &types.AttributeValueMemberN{Value: strconv.FormatInt(read.Expires.Unix(), 10)}, stored, "stored as a number")

	created, err := s.Create(ctx, &ryno.Entity{Key: passed, Attributes: map[string]any{"v": "new"}})
	require.NoError(t, err, "the expired entity is deleted first")
	require.True(t, created.Expires.IsZero())
	require.NotContains(t, storedItem(t, s, passed), "_expires")
}

func personKey(id string) ryno.Key { return ryno.Key{Scope: "acme", Type: "person", ID: id} }

// keysOfEntities returns the keys of entities, the zero key for nil.
func keysOfEntities(entities []*ryno.Entity) []ryno.Key {
	keys := make([]ryno.Key, len(entities))
	for i, e := range entities {
		if e != nil {
			keys[i] = e.Key
		}
	}
	return keys
}
