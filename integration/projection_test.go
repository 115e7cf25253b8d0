package integration_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// emailOnly names the attribute the reads in part of these tests return.
var emailOnly = ryno.Projection{Attributes: []string{"email"}}

// requirePartial checks that e was read in part: only the email of the user, with
// its key, version and timestamps, and no Meta.
func requirePartial(t *testing.T, e *ryno.Entity, id string) {
	t.Helper()
	require.NotNil(t, e, id)
	require.Equal(t, id, e.ID)
	require.True(t, e.Partial(), "%s is marked partial", id)
	require.Equal(t, map[string]any{"email": id + "@example.com"}, e.Attributes, "%s holds only what was named", id)
	require.Nil(t, e.Meta, "%s: Meta was not asked for", id)
	require.Positive(t, e.Version)
	require.False(t, e.Created.IsZero())
	require.False(t, e.Updated.IsZero())
}

// projectedUsers stores users a to e, each with an email, an age, a biography and
// metadata; a follows b and c.
func projectedUsers(t *testing.T) *store {
	t.Helper()
	s := newStoreOpts(t, nil, ryno.Options{Indexes: uniqueIndexes})
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		u := user(id, id+"@example.com")
		u.Attributes["bio"] = strings.Repeat(id, 2000)
		u.Meta = map[string]any{"source": "import"}
		_, err := s.Create(ctx, u)
		require.NoError(t, err)
	}
	_, err := s.AddRelationships(ctx, user("a", "").Key, "follows", []ryno.Key{user("b", "").Key, user("c", "").Key})
	require.NoError(t, err)
	return s
}

func TestReadsInPartReturnOnlyWhatTheyName(t *testing.T) {
	dynamotest.Parallel(t)
	s := projectedUsers(t)
	a, b, c := user("a", "").Key, user("b", "").Key, user("c", "").Key

	e, err := s.Get(ctx, a, ryno.Project(emailOnly))
	require.NoError(t, err)
	requirePartial(t, e, "a")

	e, err = s.Get(ctx, a, ryno.Project(ryno.Projection{Attributes: []string{"email"}, Meta: true}), ryno.WithRelationships("follows"))
	require.NoError(t, err)
	require.Equal(t, map[string]any{"source": "import"}, e.Meta, "Meta when asked for")
	require.Equal(t, map[string][]ryno.Key{"follows": {b, c}}, e.Relationships, "the lists are read whole beside")
	require.True(t, e.Partial())

	got, err := s.BatchGet(ctx, []ryno.Key{a, user("missing", "").Key, b}, ryno.Project(emailOnly))
	require.NoError(t, err)
	requirePartial(t, got[0], "a")
	require.Nil(t, got[1])
	requirePartial(t, got[2], "b")

	for _, descending := range []bool{false, true} {
		var ids []string
		for e, err := range s.AllByType(ctx, a.TypeOf(), ryno.PageOptions{Limit: 2, Descending: descending, Projection: emailOnly}) {
			require.NoError(t, err)
			requirePartial(t, e, e.ID)
			ids = append(ids, e.ID)
		}
		want := []string{"a", "b", "c", "d", "e"}
		if descending {
			slices.Reverse(want)
		}
		require.Equal(t, want, ids, "pages of 2 in part, each entity once, in order")
	}

	related, err := s.RelatedEntities(ctx, a, "follows", ryno.PageOptions{Projection: emailOnly})
	require.NoError(t, err)
	require.Len(t, related.Items, 2)
	requirePartial(t, related.Items[0], "b")
	requirePartial(t, related.Items[1], "c")
	require.NotEmpty(t, related.ListVersion, "the list is read whole")

	reverse, err := s.ReverseRelatedEntities(ctx, b, "follows", ryno.PageOptions{Projection: emailOnly})
	require.NoError(t, err)
	require.Len(t, reverse.Items, 1)
	requirePartial(t, reverse.Items[0], "a")

	byAge, err := s.QueryIndex(ctx, ryno.ScopedIndex{Scope: "acme", Index: "user-age"}, indexing.Equal(indexing.Int(30)), ryno.PageOptions{Projection: emailOnly})
	require.NoError(t, err)
	require.Len(t, byAge.Items, 5)
	for _, e := range byAge.Items {
		requirePartial(t, e, e.ID)
	}

	e, err = s.GetByUnique(ctx, ryno.ScopedIndex{Scope: "acme", Index: "user-email"}, indexing.String("c@example.com"), ryno.Project(emailOnly))
	require.NoError(t, err)
	requirePartial(t, e, "c")
}

// TestReadsInPartKeepTheirChecks changes what the reads in part judge entities by:
// an entity whose age changed leaves QueryIndex, one whose email moved is no longer
// found by its old value, and a deleted one is found by none.
func TestReadsInPartKeepTheirChecks(t *testing.T) {
	dynamotest.Parallel(t)
	s := projectedUsers(t)
	_, err := s.Patch(ctx, user("b", "").Key, ryno.Patch{Set: map[string]any{"age": 31}})
	require.NoError(t, err)
	_, err = s.Patch(ctx, user("c", "").Key, ryno.Patch{Set: map[string]any{"email": "c2@example.com"}})
	require.NoError(t, err)
	require.NoError(t, s.Delete(ctx, user("d", "").Key))

	byAge, err := s.QueryIndex(ctx, ryno.ScopedIndex{Scope: "acme", Index: "user-age"}, indexing.Equal(indexing.Int(30)), ryno.PageOptions{Projection: emailOnly})
	require.NoError(t, err)
	var ids []string
	for _, e := range byAge.Items {
		ids = append(ids, e.ID)
	}
	require.ElementsMatch(t, []string{"a", "c", "e"}, ids)

	byEmail := ryno.ScopedIndex{Scope: "acme", Index: "user-email"}
	_, err = s.GetByUnique(ctx, byEmail, indexing.String("c@example.com"), ryno.Project(emailOnly))
	require.ErrorIs(t, err, ryno.ErrNotFound, "the old value is held by none")
	e, err := s.GetByUnique(ctx, byEmail, indexing.String("c2@example.com"), ryno.Project(emailOnly))
	require.NoError(t, err)
	require.Equal(t, map[string]any{"email": "c2@example.com"}, e.Attributes)

	_, err = s.Get(ctx, user("d", "").Key, ryno.Project(emailOnly))
	require.ErrorIs(t, err, ryno.ErrNotFound)
	page, err := s.ListByType(ctx, user("a", "").Key.TypeOf(), ryno.PageOptions{Projection: emailOnly})
	require.NoError(t, err)
	require.Len(t, page.Items, 4, "the deleted entity is not listed")
}

func TestReadsInPartSeeExpiredEntitiesAsMissing(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreOpts(t, nil, ryno.Options{})
	now := newManualClock()
	db := newClientOn(t, s, ryno.Options{Now: now.Now})
	u := user("a", "a@example.com")
	u.Expires = now.Now().Add(time.Hour)
	_, err := db.Create(ctx, u)
	require.NoError(t, err)
	_, err = db.Get(ctx, u.Key, ryno.Project(emailOnly))
	require.NoError(t, err)

	now.Advance(2 * time.Hour)
	_, err = db.Get(ctx, u.Key, ryno.Project(emailOnly))
	require.ErrorIs(t, err, ryno.ErrNotFound)
	page, err := db.ListByType(ctx, u.Key.TypeOf(), ryno.PageOptions{Projection: emailOnly})
	require.NoError(t, err)
	require.Empty(t, page.Items)
}

// TestPartialEntitiesAreChangedWithPatch reads an entity in part, is refused
// writing it whole, and patches it: what it did not read is kept.
func TestPartialEntitiesAreChangedWithPatch(t *testing.T) {
	dynamotest.Parallel(t)
	s := projectedUsers(t)
	a := user("a", "").Key
	type profile struct {
		ryno.Record
		Email string `dynamodbav:"email"`
		Bio   string `dynamodbav:"bio"`
	}
	p, err := ryno.GetAs[profile](ctx, s.Client, a, ryno.Project(emailOnly))
	require.NoError(t, err)
	require.True(t, p.Partial())
	require.Empty(t, p.Bio, "not read")

	p.Email = "a2@example.com"
	require.ErrorIs(t, ryno.UpdateAs(ctx, s.Client, p), ryno.ErrInvalid)
	require.ErrorIs(t, ryno.SetAs(ctx, s.Client, p), ryno.ErrInvalid)
	e, err := s.Get(ctx, a, ryno.Project(emailOnly))
	require.NoError(t, err)
	_, err = s.Update(ctx, e)
	require.ErrorIs(t, err, ryno.ErrInvalid)

	_, err = s.Patch(ctx, a, ryno.Patch{Set: map[string]any{"email": p.Email}}, ryno.IfVersion(p.Version))
	require.NoError(t, err)
	whole, err := s.Get(ctx, a)
	require.NoError(t, err)
	require.False(t, whole.Partial())
	require.Equal(t, "a2@example.com", whole.Attributes["email"])
	require.Equal(t, strings.Repeat("a", 2000), whole.Attributes["bio"], "what was not read is kept")
	require.Equal(t, map[string]any{"source": "import"}, whole.Meta)
	require.Equal(t, p.Version+1, whole.Version, "only the patch wrote")
}

// TestListingInPartMovesATenthOfTheBytes lists 100 articles of 40 KB each whole and
// naming two small attributes, and counts the bytes of the responses: the listing in
// part moves less than a tenth of them. DynamoDB ends a page at 1 MB read, before
// projecting, so both listings take the same pages.
func TestListingInPartMovesATenthOfTheBytes(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreOpts(t, nil, ryno.Options{})
	api, wire := dynamotest.CountWire(s.raw)
	db, err := ryno.New(api, ryno.Options{TablePrefix: s.prefix})
	require.NoError(t, err)
	articles := ryno.Type{Scope: "acme", Name: "article"}
	writeArticles(t, db, articles, 100, 40_000)

	read := func(p ryno.Projection) (bytes int64, entities []*ryno.Entity) {
		wire.Reset()
		for e, err := range db.AllByType(ctx, articles, ryno.PageOptions{Limit: 100, Projection: p}) {
			require.NoError(t, err)
			entities = append(entities, e)
		}
		require.Equal(t, 100, len(entities), "every article is listed")
		return wire.Read(), entities
	}
	whole, _ := read(ryno.Projection{})
	part, listed := read(ryno.Projection{Attributes: []string{"title", "slug"}})
	for _, e := range listed {
		require.True(t, e.Partial())
		require.Equal(t, []string{"slug", "title"}, slices.Sorted(maps.Keys(e.Attributes)), e.ID)
	}
	t.Logf("ListByType of 100 articles of 40 KB: %d bytes whole, %d in part (%.3f)", whole, part, float64(part)/float64(whole))
	require.Greater(t, whole, int64(100*40_000), "the whole listing carries every body")
	require.Less(t, part*10, whole, "in part it moves less than a tenth of the bytes")
}

// writeArticles stores n articles of type t with a body of size bytes each.
func writeArticles(t testing.TB, db *ryno.Client, typ ryno.Type, n, size int) {
	t.Helper()
	for i := range n {
		_, err := db.Create(ctx, &ryno.Entity{Key: ryno.Key{Scope: typ.Scope, Type: typ.Name, ID: fmt.Sprintf("a%03d", i)}, Attributes: map[string]any{
			"title": fmt.Sprintf("Article %d", i), "slug": fmt.Sprintf("article-%d", i), "body": strings.Repeat("x", size),
		}})
		require.NoError(t, err)
	}
}

// TestGetByUniqueInPartOfAnEntityWithoutARecord reads in part an entity whose item
// holds no record of its index values (as one written by an earlier version):
// GetByUnique reads it whole to run the map function, and returns it in part.
func TestGetByUniqueInPartOfAnEntityWithoutARecord(t *testing.T) {
	dynamotest.Parallel(t)
	s := projectedUsers(t)
	a := user("a", "").Key
	_, err := s.raw.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.Names().Entities), Key: rawKey(a),
		UpdateExpression: aws.String("REMOVE #r"), ExpressionAttributeNames: map[string]string{"#r": "_index_entries"},
	})
	require.NoError(t, err)
	s.counter.Reset()

	e, err := s.GetByUnique(ctx, ryno.ScopedIndex{Scope: "acme", Index: "user-email"}, indexing.String("a@example.com"), ryno.Project(emailOnly))
	require.NoError(t, err)
	requirePartial(t, e, "a")
	require.Equal(t, map[string]int{"GetItem": 3}, requests(s.counter), "the claim, the entity in part, then whole")
}
