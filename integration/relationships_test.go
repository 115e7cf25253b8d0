package integration_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/ryno"
)

func pk(id string) ryno.Key { return ryno.Key{Scope: "acme", Type: "person", ID: id} }

func pks(prefix string, n int) []ryno.Key {
	keys := make([]ryno.Key, n)
	for i := range keys {
		keys[i] = pk(fmt.Sprintf("%s%04d", prefix, i))
	}
	return keys
}

// objectsOf lists the objects of every relationship of subject under predicate, in
// order, paging with limit.
func objectsOf(t *testing.T, db *ryno.Client, subject ryno.Key, predicate string, limit int) []ryno.Key {
	t.Helper()
	var objects []ryno.Key
	for r, err := range db.AllRelationships(ctx, subject, predicate, ryno.PageOptions{Limit: limit}) {
		require.NoError(t, err)
		require.Equal(t, subject, r.Subject)
		objects = append(objects, r.Object)
	}
	return objects
}

func subjectsPointingAt(t *testing.T, db *ryno.Client, object ryno.Key) []ryno.Key {
	t.Helper()
	var subjects []ryno.Key
	p := ryno.PageOptions{Limit: 50}
	for {
		page, err := db.ReverseRelationships(ctx, object, "", p)
		require.NoError(t, err)
		for _, r := range page.Items {
			require.Equal(t, object, r.Object)
			subjects = append(subjects, r.Subject)
		}
		if page.Cursor == "" {
			return subjects
		}
		p.Cursor = page.Cursor
	}
}

func TestPredicatesThatArePrefixesNeverMix(t *testing.T) {
	db, _, _ := newStore(t)
	ada := pk("ada")
	_, err := db.Set(ctx, &ryno.Entity{Key: ada}, ryno.ReplaceLists(map[string][]ryno.Key{
		"friend":  {pk("b"), pk("c")},
		"friends": {pk("d")},
	}))
	require.NoError(t, err)

	require.Equal(t, []ryno.Key{pk("b"), pk("c")}, objectsOf(t, db, ada, "friend", 10))
	require.Equal(t, []ryno.Key{pk("d")}, objectsOf(t, db, ada, "friends", 10))
	require.Equal(t, []ryno.Key{pk("b"), pk("c"), pk("d")}, objectsOf(t, db, ada, "", 10), "all: by predicate, then position")

	has := func(predicate string, o ryno.Key) bool {
		ok, err := db.HasRelationship(ctx, ada, predicate, o)
		require.NoError(t, err)
		return ok
	}
	require.False(t, has("friend", pk("d")))
	require.True(t, has("friends", pk("d")))
	require.True(t, has("friend", pk("b")))
	require.False(t, has("friends", pk("b")))

	require.NoError(t, changed(db.RemoveRelationships(ctx, ada, "friend", []ryno.Key{pk("d")})))
	require.NoError(t, db.ReplaceRelationships(ctx, ada, "friend", nil))
	require.Empty(t, objectsOf(t, db, ada, "friend", 10))
	require.Equal(t, []ryno.Key{pk("d")}, objectsOf(t, db, ada, "friends", 10), "friends is untouched")
}

func TestRelationshipKeysWithDelimitersRoundTripAndNeverCollide(t *testing.T) {
	db, _, _ := newStore(t)
	s1 := ryno.Key{Scope: "a:b", Type: "c", ID: "x%3A1"}
	s2 := ryno.Key{Scope: "a", Type: "b:c", ID: "x%3A1"}
	o1 := ryno.Key{Scope: "o:1%", Type: "t:t", ID: "%25:"}
	o2 := ryno.Key{Scope: "o", Type: "1%:t", ID: "t:%25:"}
	const predicate = "likes:much%"
	createSubjects(t, db, s1, s2)

	require.NoError(t, changed(db.AddRelationships(ctx, s1, predicate, []ryno.Key{o1, o2})))
	require.NoError(t, changed(db.AddRelationships(ctx, s2, predicate, []ryno.Key{o2})))

	require.Equal(t, []ryno.Key{o1, o2}, objectsOf(t, db, s1, predicate, 1))
	require.Equal(t, []ryno.Key{o2}, objectsOf(t, db, s2, predicate, 1))
	require.Empty(t, objectsOf(t, db, s1, "likes", 10), "a predicate that is a prefix before escaping")
	require.Equal(t, []ryno.Key{s1}, subjectsPointingAt(t, db, o1))
	require.ElementsMatch(t, []ryno.Key{s1, s2}, subjectsPointingAt(t, db, o2))

	page, err := db.Relationships(ctx, s1, predicate, ryno.PageOptions{})
	require.NoError(t, err)
	require.Equal(t, []ryno.Relationship{
		{Subject: s1, Predicate: predicate, Index: 0, Object: o1},
		{Subject: s1, Predicate: predicate, Index: 1, Object: o2},
	}, page.Items)

	ok, err := db.HasRelationship(ctx, s2, predicate, o1)
	require.NoError(t, err)
	require.False(t, ok)
}

func TestThreeHundredObjectsComeBackCompleteAndInOrder(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreWith(t, nil)
	subject := pk("hub")
	objects := pks("o", 300)
	for i, k := range objects {
		_, err := s.Create(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"i": i}})
		require.NoError(t, err)
	}
	// Store them in an order that is not key order, to see list order kept.
	shuffled := append(append([]ryno.Key{}, objects[150:]...), objects[:150]...)
	createSubjects(t, s.Client, subject)
	s.counter.Reset()

	added, err := s.AddRelationships(ctx, subject, "follows", shuffled)
	require.NoError(t, err)
	require.Equal(t, shuffled, added)
	counts := requests(s.counter)
	require.Equal(t, 10, counts["TransactWriteItems"],
		"more than one transaction holds: the lease, the intent, 600 entries and markers in chunks of 98, the release")

	require.Equal(t, shuffled, objectsOf(t, s.Client, subject, "follows", 7))

	// Objects across pages, with one page larger than a BatchGetItem request.
	var got []ryno.Key
	p := ryno.PageOptions{Limit: 120}
	for {
		s.counter.Reset()
		page, err := s.RelatedEntities(ctx, subject, "follows", p)
		require.NoError(t, err)
		n := len(page.Items)
		require.Equal(t, map[string]int{"Query": 1, "BatchGetItem": (n + 99) / 100}, requests(s.counter))
		for _, e := range page.Items {
			got = append(got, e.Key)
		}
		if page.Cursor == "" {
			break
		}
		p.Cursor = page.Cursor
	}
	require.Equal(t, shuffled, got)
}

func TestRelatedEntitiesSkipsObjectsThatDoNotExist(t *testing.T) {
	db, _, _ := newStore(t)
	_, err := db.Create(ctx, &ryno.Entity{Key: pk("real")})
	require.NoError(t, err)
	createSubjects(t, db, pk("s"))
	require.NoError(t, changed(db.AddRelationships(ctx, pk("s"), "knows", []ryno.Key{pk("ghost"), pk("real"), pk("ghost2"), pk("real")})))

	page, err := db.RelatedEntities(ctx, pk("s"), "knows", ryno.PageOptions{})
	require.NoError(t, err)
	require.Len(t, page.Items, 1, "adding the same object twice adds it once")
	require.Equal(t, pk("real"), page.Items[0].Key)
	require.Empty(t, page.Cursor)
}

func TestAddAndRemoveRelationships(t *testing.T) {
	s := newStoreWith(t, nil)
	subject := pk("ada")
	a, b, c := pk("a"), pk("b"), pk("c")
	createSubjects(t, s.Client, subject)
	s.counter.Reset()

	added, err := s.AddRelationships(ctx, subject, "likes", []ryno.Key{a, b})
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{a, b}, added)
	require.Equal(t, map[string]int{"BatchGetItem": 1, "TransactWriteItems": 1}, requests(s.counter),
		"the head and the objects' markers in one read, then one transaction")
	added, err = s.AddRelationships(ctx, subject, "likes", []ryno.Key{b, c, c})
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{c}, added, "b was there")
	require.Equal(t, []ryno.Key{a, b, c}, objectsOf(t, s.Client, subject, "likes", 10))

	s.counter.Reset()
	removed, err := s.RemoveRelationships(ctx, subject, "likes", []ryno.Key{b, pk("absent")})
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{b}, removed)
	require.Equal(t, map[string]int{"BatchGetItem": 1, "TransactWriteItems": 1}, requests(s.counter))
	require.Equal(t, []ryno.Key{a, c}, objectsOf(t, s.Client, subject, "likes", 10))

	require.NoError(t, changed(s.AddRelationships(ctx, subject, "likes", []ryno.Key{b})))
	require.Equal(t, []ryno.Key{a, c, b}, objectsOf(t, s.Client, subject, "likes", 10), "appended after the last")
	page, err := s.Relationships(ctx, subject, "likes", ryno.PageOptions{})
	require.NoError(t, err)
	require.Equal(t, []int{0, 2, 3}, []int{page.Items[0].Index, page.Items[1].Index, page.Items[2].Index},
		"removal leaves a gap")

	// Many objects at once: beyond one transaction, under a lease.
	many := pks("m", 60)
	require.NoError(t, changed(s.AddRelationships(ctx, subject, "likes", append(many, a))))
	require.Len(t, objectsOf(t, s.Client, subject, "likes", 100), 63)
	require.NoError(t, changed(s.RemoveRelationships(ctx, subject, "likes", append(many, a, a))))
	require.Equal(t, []ryno.Key{c, b}, objectsOf(t, s.Client, subject, "likes", 10))

	// Duplicates put there by a replace are all removed.
	require.NoError(t, s.ReplaceRelationships(ctx, subject, "likes", []ryno.Key{a, b, a, a}))
	require.NoError(t, changed(s.RemoveRelationships(ctx, subject, "likes", []ryno.Key{a})))
	require.Equal(t, []ryno.Key{b}, objectsOf(t, s.Client, subject, "likes", 10))
	requireListExact(t, s, subject, "likes")
}

func TestReplaceWritesOnlyTheDifference(t *testing.T) {
	s := newStoreWith(t, nil)
	subject := pk("ada")
	existing := pks("o", 60)
	createSubjects(t, s.Client, subject)
	require.NoError(t, s.ReplaceRelationships(ctx, subject, "reads", existing))

	// Keep 55, drop 5 from the middle, add 3 at the end and 2 in the middle.
	target := append([]ryno.Key{}, existing[:10]...)
	target = append(target, pk("new-a"), pk("new-b"))
	target = append(target, existing[15:]...)
	target = append(target, pk("new-c"), pk("new-d"), pk("new-e"))
	s.counter.Reset()

	require.NoError(t, s.ReplaceRelationships(ctx, subject, "reads", target))
	require.Equal(t, map[string]int{"BatchGetItem": 1, "Query": 1, "TransactWriteItems": 1}, requests(s.counter),
		"the head and the subject in one BatchGetItem, beside the list; 5 deletes and 5 puts with their markers fit one transaction: the 55 kept entries are not rewritten")
	require.Equal(t, target, objectsOf(t, s.Client, subject, "reads", 25))

	s.counter.Reset()
	require.NoError(t, s.ReplaceRelationships(ctx, subject, "reads", target))
	require.Equal(t, map[string]int{"BatchGetItem": 1, "Query": 1, "TransactWriteItems": 1}, requests(s.counter),
		"an unchanged list writes nothing: the transaction only checks it is still the one read")

	reversed := make([]ryno.Key, len(target))
	for i, k := range target {
		reversed[len(target)-1-i] = k
	}
	require.NoError(t, s.ReplaceRelationships(ctx, subject, "reads", reversed))
	require.Equal(t, reversed, objectsOf(t, s.Client, subject, "reads", 25))
	requireListExact(t, s, subject, "reads")
}

func TestHasRelationshipIsOneRequestWhateverTheListLength(t *testing.T) {
	s := newStoreWith(t, nil)
	subject := pk("ada")
	objects := pks("o", 300)
	createSubjects(t, s.Client, subject)
	require.NoError(t, s.ReplaceRelationships(ctx, subject, "knows", objects))
	for _, tt := range []struct {
		object ryno.Key
		want   bool
	}{{objects[0], true}, {objects[299], true}, {objects[150], true}, {pk("stranger"), false}} {
		s.counter.Reset()
		ok, err := s.HasRelationship(ctx, subject, "knows", tt.object)
		require.NoError(t, err)
		require.Equal(t, tt.want, ok, tt.object.ID)
		require.Equal(t, map[string]int{"Query": 1}, requests(s.counter))
	}
}

func TestSetCreateAndUpdateWriteRelationships(t *testing.T) {
	s := newStoreWith(t, nil)
	ada := pk("ada")
	_, err := s.Set(ctx, &ryno.Entity{Key: ada}, ryno.ReplaceLists(map[string][]ryno.Key{
		"friend": {pk("b"), pk("c")},
		"likes":  {pk("x")},
	}))
	require.NoError(t, err)
	require.Equal(t, 2, s.counter.Rounds(), "a blind Set reads the item and its lists first, in one round (no create to be refused)")
	require.Equal(t, 1, requests(s.counter)["TransactWriteItems"], "the entity and its lists in one transaction")
	requireListExact(t, s, ada, "friend")

	// Predicates absent are untouched; an empty list clears one.
	got, err := s.Get(ctx, ada)
	require.NoError(t, err)
	_, err = s.Update(ctx, got, ryno.ReplaceLists(map[string][]ryno.Key{"friend": {pk("c")}}))
	require.NoError(t, err)
	withRels, err := s.Get(ctx, ada, ryno.WithRelationships())
	require.NoError(t, err)
	require.Equal(t, map[string][]ryno.Key{"friend": {pk("c")}, "likes": {pk("x")}}, withRels.Relationships)

	_, err = s.Set(ctx, &ryno.Entity{Key: ada, Created: withRels.Created}, ryno.ReplaceLists(map[string][]ryno.Key{"likes": {}}))
	require.NoError(t, err)
	s.counter.Reset()
	withRels, err = s.Get(ctx, ada, ryno.WithRelationships("friend", "likes"))
	require.NoError(t, err)
	require.Equal(t, map[string][]ryno.Key{"friend": {pk("c")}, "likes": {}}, withRels.Relationships)
	require.Equal(t, map[string]int{"GetItem": 1, "Query": 2}, requests(s.counter))

	// A Create that conflicts writes no relationship.
	_, err = s.Create(ctx, &ryno.Entity{Key: ada}, ryno.ReplaceLists(map[string][]ryno.Key{"friend": {pk("z")}}))
	require.ErrorIs(t, err, ryno.ErrConflict)
	require.Equal(t, []ryno.Key{pk("c")}, objectsOf(t, s.Client, ada, "friend", 10))

	_, err = s.Get(ctx, pk("nobody"), ryno.WithRelationships())
	require.ErrorIs(t, err, ryno.ErrNotFound)
}

func TestSetReadsItsListsInParallel(t *testing.T) {
	var gate *dynamotest.Gate
	var armed atomic.Bool
	s := newStoreWith(t, func(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
		gate = dynamotest.NewGate(api, 3) // the heads and the two lists
		return dynamotest.Wrap(api, func(ctx context.Context, op string, send func(context.Context) error) error {
			if !armed.Load() {
				return send(ctx)
			}
			return gate.Hook(ctx, op, send)
		})
	})
	ada, err := s.Create(ctx, &ryno.Entity{Key: pk("ada")})
	require.NoError(t, err)
	armed.Store(true)
	_, err = s.Set(ctx, ada, ryno.ReplaceLists(map[string][]ryno.Key{"friend": {pk("b")}, "likes": {pk("x")}}))
	require.NoError(t, err)
	require.True(t, gate.Opened())
}

// seedIncoming writes, directly to the table, one relationship entry from each of
// subjects to object.
func seedIncoming(t *testing.T, raw *dynamodb.Client, names schema.Names, subjects []ryno.Key, object ryno.Key) {
	t.Helper()
	var reqs []types.WriteRequest
	for _, s := range subjects {
		e := relationships.Entry{Subject: s, Predicate: "follows", Object: object}
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: e.Item()}})
	}
	for len(reqs) > 0 {
		n := min(25, len(reqs))
		out, err := raw.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{names.Relationships: reqs[:n]}})
		require.NoError(t, err)
		require.Empty(t, out.UnprocessedItems)
		reqs = reqs[n:]
	}
}

// entryCount returns how many relationship entries table holds: its items but the
// lists' heads and markers.
func entryCount(t *testing.T, raw *dynamodb.Client, table string) int {
	t.Helper()
	n := 0
	p := dynamodb.NewScanPaginator(raw, &dynamodb.ScanInput{
		TableName:                 aws.String(table),
		Select:                    types.SelectCount,
		FilterExpression:          aws.String("#k > :start"),
		ExpressionAttributeNames:  map[string]string{"#k": schema.AttrPredicateKey},
		ExpressionAttributeValues: map[string]types.AttributeValue{":start": str(schema.EntriesStart)},
	})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		require.NoError(t, err)
		n += int(out.Count)
	}
	return n
}

// itemCount returns how many items a table holds.
func itemCount(t *testing.T, raw *dynamodb.Client, table string) int {
	t.Helper()
	n := 0
	p := dynamodb.NewScanPaginator(raw, &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		require.NoError(t, err)
		n += int(out.Count)
	}
	return n
}

func TestDeleteRemovesEveryEdgeInBothDirections(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreWith(t, nil)
	names := s.Names()
	hub := pk("hub")
	_, err := s.Create(ctx, &ryno.Entity{Key: hub})
	require.NoError(t, err)
	outgoing := pks("out", 1000)
	require.NoError(t, changed(s.AddRelationships(ctx, hub, "links", outgoing)))
	seedIncoming(t, s.raw, names, pks("in", 1000), hub)
	// Index entries of the hub, as an index would write them.
	for _, v := range []string{"a", "b", "c"} {
		item, err := indexentries.Entry{Scope: hub.Scope, Type: hub.Type, ID: hub.ID, IndexName: "tag", Value: indexing.String(v)}.Item()
		require.NoError(t, err)
		_, err = s.raw.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(names.IndexEntries), Item: item})
		require.NoError(t, err)
	}
	// An edge between two other entities stays.
	createSubjects(t, s.Client, pk("x"))
	require.NoError(t, changed(s.AddRelationships(ctx, pk("x"), "links", []ryno.Key{pk("y")})))
	require.Equal(t, 2001, entryCount(t, s.raw, names.Relationships))
	require.Len(t, subjectsPointingAt(t, s.Client, outgoing[500]), 1)
	s.counter.Reset()

	require.NoError(t, s.Delete(ctx, hub))
	// 2001 items of its own (entries, markers, head) in 21 transactions and its 3
	// index entries in one; the 1000 incoming entries, of lists written before heads
	// existed, in 31, each refused once when it finds the first list without a head,
	// which reads the others' heads.
	require.LessOrEqual(t, s.counter.Count("TransactWriteItems"), 22+2*31,
		"a transaction of lists without heads is refused once, not once per list")

	_, err = s.Get(ctx, hub)
	require.ErrorIs(t, err, ryno.ErrNotFound)
	require.Empty(t, objectsOf(t, s.Client, hub, "", 100))
	require.Empty(t, subjectsPointingAt(t, s.Client, hub))
	require.Empty(t, subjectsPointingAt(t, s.Client, outgoing[500]), "its former objects no longer list it")
	require.Equal(t, 1, entryCount(t, s.raw, names.Relationships), "only the unrelated edge is left")
	require.Equal(t, 3, itemCount(t, s.raw, names.Relationships), "with its list's head and marker")
	requireListExact(t, s, pk("x"), "links")
	require.Zero(t, itemCount(t, s.raw, names.IndexEntries))
}

func TestDeleteRequests(t *testing.T) {
	s := newStoreWith(t, nil)
	a := pk("a")
	// Entries of a missing entity, in both directions.
	seedIncoming(t, s.raw, s.Names(), []ryno.Key{pk("c")}, a)
	seedIncoming(t, s.raw, s.Names(), []ryno.Key{a}, pk("b"))
	s.counter.Reset()

	require.NoError(t, s.Delete(ctx, a))
	require.Equal(t, map[string]int{"UpdateItem": 1, "Query": 3, "TransactWriteItems": 2}, requests(s.counter),
		"a refused tombstone (a is missing), three reads, the deletes in a transaction checking a is still missing; "+
			"c's list was written without a head, so the first transaction is refused and the second deletes c's entry alone")
	require.Zero(t, entryCount(t, s.raw, s.Names().Relationships))

	s.counter.Reset()
	require.NoError(t, s.Delete(ctx, a))
	require.Equal(t, map[string]int{"UpdateItem": 1, "Query": 3}, requests(s.counter), "nothing left to delete")

	createSubjects(t, s.Client, a, pk("c"))
	require.NoError(t, changed(s.AddRelationships(ctx, a, "knows", []ryno.Key{pk("b")})))
	require.NoError(t, changed(s.AddRelationships(ctx, pk("c"), "knows", []ryno.Key{a})))
	s.counter.Reset()
	require.NoError(t, s.Delete(ctx, a))
	require.Equal(t, map[string]int{"UpdateItem": 1, "Query": 3, "TransactWriteItems": 1}, requests(s.counter),
		"the tombstone, three reads, then in one transaction: a's list, c's entry with its head and marker, and the entity")
	requireListExact(t, s, pk("c"), "knows")
	require.Equal(t, 1, itemCount(t, s.raw, s.Names().Relationships), "c's empty list keeps its head")
}

var errInjected = errors.New("injected failure")

// rawKey returns the primary key of k's item in the entities table.
func rawKey(k ryno.Key) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"_id":             str(k.ID),
		"_scope_type_key": str(schema.ScopeTypeKey(k.Scope, k.Type)),
	}
}

func TestDeleteCutOffHalfWayCompletesWhenCalledAgain(t *testing.T) {
	dynamotest.Parallel(t)
	tests := []struct {
		name  string
		fault func(cancel context.CancelFunc) func() error
		want  error
	}{
		{"a request fails", func(context.CancelFunc) func() error {
			return func() error { return errInjected }
		}, errInjected},
		{"the context is cancelled", func(cancel context.CancelFunc) func() error {
			return func() error { cancel(); return context.Canceled }
		}, context.Canceled},
	}
	// The hub has 200 entries of its own (with their markers and head, 401 items
	// in 5 transactions) and 200 entries pointing at it, 50 in each of 4 lists (a
	// transaction each, with the list's head and the hub's marker). The cut comes
	// once 2 transactions have returned; with at most 2 in flight, 2 or 3 are done.
	const inFlight = 2
	fans := pks("fan", 4)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var faults *dynamotest.Faults
			s := newStoreOpts(t, func(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
				faults = dynamotest.NewFaults(api)
				return faults
			}, ryno.Options{MaxConcurrency: inFlight, Retry: ryno.RetryOptions{MaxAttempts: 2}})
			names := s.Names()
			hub := pk("hub")
			createSubjects(t, s.Client, append(fans, hub)...)
			require.NoError(t, changed(s.AddRelationships(ctx, hub, "links", pks("out", 200))))
			for _, f := range fans {
				require.NoError(t, s.ReplaceRelationships(ctx, f, "links", slices.Repeat([]ryno.Key{hub}, 50)))
			}
			before := itemCount(t, s.raw, names.Relationships)

			cutCtx, cancel := context.WithCancel(ctx)
			defer cancel()
			faults.FailAfter("TransactWriteItems", 2, tt.fault(cancel))
			err := s.Delete(cutCtx, hub)
			require.ErrorIs(t, err, tt.want)
			_, err = s.Get(ctx, hub)
			require.ErrorIs(t, err, ryno.ErrNotFound, "the tombstone is there: the entity is gone for readers")
			item, err := s.raw.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(names.Entities), Key: rawKey(hub)})
			require.NoError(t, err)
			require.NotNil(t, item.Item, "the item goes last, so it is still there")
			left := itemCount(t, s.raw, names.Relationships)
			require.Greater(t, left, before-3*99, "the delete was cut off half-way")
			require.Less(t, left, before)

			faults.Clear()
			require.NoError(t, s.Delete(ctx, hub))
			require.Zero(t, entryCount(t, s.raw, names.Relationships))
			for _, f := range fans {
				requireListExact(t, s, f, "links")
			}
			requireListExact(t, s, hub, "links")
			_, err = s.Get(ctx, hub)
			require.ErrorIs(t, err, ryno.ErrNotFound)
		})
	}
}

func TestRelationshipCallsRejectBadInputWithoutARequest(t *testing.T) {
	s := newStoreWith(t, nil)
	good := pk("a")
	calls := map[string]func() error{
		"empty predicate to Add":       func() error { return changed(s.AddRelationships(ctx, good, "", []ryno.Key{pk("b")})) },
		"bad object to Remove":         func() error { return changed(s.RemoveRelationships(ctx, good, "p", []ryno.Key{ryno.Key{Scope: "s"}})) },
		"control character to Replace": func() error { return s.ReplaceRelationships(ctx, good, "p\n", []ryno.Key{pk("b")}) },
		"bad subject to Relationships": func() error { _, err := s.Relationships(ctx, ryno.Key{}, "", ryno.PageOptions{}); return err },
		"bad object to Reverse":        func() error { _, err := s.ReverseRelationships(ctx, ryno.Key{}, "", ryno.PageOptions{}); return err },
		"empty predicate to Has":       func() error { _, err := s.HasRelationship(ctx, good, "", pk("b")); return err },
		"bad object in Set": func() error {
			_, err := s.Set(ctx, &ryno.Entity{Key: good}, ryno.ReplaceLists(map[string][]ryno.Key{"p": {{}}}))
			return err
		},
		"empty predicate in Set": func() error {
			_, err := s.Set(ctx, &ryno.Entity{Key: good}, ryno.ReplaceLists(map[string][]ryno.Key{"": {pk("b")}}))
			return err
		},
		"bad predicate to Get":        func() error { _, err := s.Get(ctx, good, ryno.WithRelationships("")); return err },
		"cursor of another subject":   func() error { return reuseCursor(s, pk("z"), "p") },
		"cursor of another predicate": func() error { return reuseCursor(s, pk("a"), "q") },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			s.counter.Reset()
			err := call()
			require.True(t, errors.Is(err, ryno.ErrInvalid) || errors.Is(err, ryno.ErrInvalidCursor), "%v", err)
			require.Zero(t, s.counter.Total())
		})
	}
}

// reuseCursor takes a cursor of the relationships of a under p and passes it to a
// listing of subject under predicate, returning that listing's error.
func reuseCursor(s *store, subject ryno.Key, predicate string) error {
	if _, err := s.Set(ctx, &ryno.Entity{Key: pk("a")}, ryno.ReplaceLists(map[string][]ryno.Key{"p": {pk("b"), pk("c")}})); err != nil {
		return err
	}
	page, err := s.Relationships(ctx, pk("a"), "p", ryno.PageOptions{Limit: 1})
	if err != nil {
		return err
	}
	s.counter.Reset()
	_, err = s.Relationships(ctx, subject, predicate, ryno.PageOptions{Limit: 1, Cursor: page.Cursor})
	return err
}

// createAll creates an entity for each of keys, so that lists can be written for them.
func createSubjects(t *testing.T, db *ryno.Client, keys ...ryno.Key) {
	t.Helper()
	for _, k := range keys {
		_, err := db.Create(ctx, &ryno.Entity{Key: k})
		require.NoError(t, err)
	}
}

func TestDeleteOfAnEntityInItsOwnList(t *testing.T) {
	s := newStoreWith(t, nil)
	narcissus := pk("narcissus")
	createSubjects(t, s.Client, narcissus, pk("echo"))
	require.NoError(t, s.ReplaceRelationships(ctx, narcissus, "follows", []ryno.Key{narcissus, pk("echo"), narcissus}))
	require.NoError(t, s.ReplaceRelationships(ctx, pk("echo"), "follows", []ryno.Key{narcissus}))

	require.NoError(t, s.Delete(ctx, narcissus), "its own entries are swept once, with its partition")
	requireNothingOf(t, s, narcissus, true)
	require.Empty(t, objectsOf(t, s.Client, pk("echo"), "follows", 10))
	requireListExact(t, s, pk("echo"), "follows")
}
