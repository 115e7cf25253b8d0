package integration_test

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// ixIndexes are the indexes of the index benchmarks: posts by tag, people by age and
// by email, the email entries projecting the name.
var ixIndexes = []ryno.Index{
	{Type: "post", Name: "tag", Map: emitTags},
	{Type: "person", Name: "age", Map: emitAge},
	{Type: "person", Name: "email", Map: emitEmail, Project: []string{"name"}},
}

// ixClients returns one client per set of indexes, all on the same fresh tables, and
// the counter their requests go through.
func ixClients(b *testing.B, indexSets ...[]ryno.Index) ([]*ryno.Client, *dynamotest.Counter) {
	b.Helper()
	api := dynamotest.API(b)
	prefix := dynamotest.Tables(b, api)
	counter := dynamotest.NewCounter(api)
	clients := make([]*ryno.Client, len(indexSets))
	for i, indexes := range indexSets {
		db, err := ryno.New(counter, ryno.Options{TablePrefix: prefix, Indexes: indexes})
		if err != nil {
			b.Fatal(err)
		}
		clients[i] = db
	}
	return clients, counter
}

// ixStore returns a client with the indexes on fresh tables, and the counter its
// requests go through.
func ixStore(b *testing.B, indexes []ryno.Index) (*ryno.Client, *dynamotest.Counter) {
	b.Helper()
	clients, counter := ixClients(b, indexes)
	return clients[0], counter
}

func ixPost(id string, tags []string) *ryno.Entity {
	return &ryno.Entity{
		Key:        ryno.Key{Scope: "bench", Type: "post", ID: id},
		Attributes: map[string]any{"title": "Notes", "tags": tags},
	}
}

// ixTags returns n tags: prefix00, prefix01, ...
func ixTags(prefix string, n int) []string {
	tags := make([]string, n)
	for i := range tags {
		tags[i] = fmt.Sprintf("%s%02d", prefix, i)
	}
	return tags
}

// ixSeed writes the entities, a few at a time.
func ixSeed(b *testing.B, db *ryno.Client, entities []*ryno.Entity) {
	b.Helper()
	var g errgroup.Group
	g.SetLimit(8)
	for _, e := range entities {
		g.Go(func() error {
			_, err := db.Set(ctx, e)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
}

// ixPeople returns n people aged 0 to n-1, with emails p000@example.com, ...
func ixPeople(n int) []*ryno.Entity {
	people := make([]*ryno.Entity, n)
	for i := range people {
		id := fmt.Sprintf("p%03d", i)
		people[i] = &ryno.Entity{
			Key:        ryno.Key{Scope: "bench", Type: "person", ID: id},
			Attributes: map[string]any{"name": "Person " + id, "email": id + "@example.com", "age": i},
		}
	}
	return people
}

// benchmarkSetChangingEntries sets a post that carries its Created time, switching
// its tags between two sets of k/2 that share none: each Set deletes k/2 entries and
// puts k/2.
func benchmarkSetChangingEntries(b *testing.B, k int) {
	db, counter := ixStore(b, ixIndexes)
	versions := [][]string{ixTags("a", k/2), ixTags("b", k/2)}
	e, err := db.Set(ctx, ixPost("post", versions[1]))
	if err != nil {
		b.Fatal(err)
	}
	measure(b, counter, func(i int) error {
		e.Attributes["tags"] = versions[i%2]
		e, err = db.Set(ctx, e)
		return err
	})
}

func BenchmarkIndexedSetChanging2Entries(b *testing.B)  { benchmarkSetChangingEntries(b, 2) }
func BenchmarkIndexedSetChanging60Entries(b *testing.B) { benchmarkSetChangingEntries(b, 60) }

// BenchmarkIndexedSetChangingNoEntry sets a post with 30 tags, changing only its
// title: the entries are read and none is written.
func BenchmarkIndexedSetChangingNoEntry(b *testing.B) {
	db, counter := ixStore(b, ixIndexes)
	e, err := db.Set(ctx, ixPost("post", ixTags("a", 30)))
	if err != nil {
		b.Fatal(err)
	}
	measure(b, counter, func(i int) error {
		e.Attributes["title"] = fmt.Sprintf("Notes, version %d", i)
		e, err = db.Set(ctx, e)
		return err
	})
}

// BenchmarkQueryIndexRangePageOf25 pages through the 50 people aged 20 to 69.
func BenchmarkQueryIndexRangePageOf25(b *testing.B) {
	db, counter := ixStore(b, ixIndexes)
	ixSeed(b, db, ixPeople(100))
	cond := indexing.Between(indexing.Int(20), indexing.Int(69))
	p := &pager[*ryno.Entity]{limit: 25, read: func(o ryno.PageOptions) (*ryno.Page[*ryno.Entity], error) {
		return db.QueryIndex(ctx, ryno.ScopedIndex{Scope: "bench", Index: "age"}, cond, o)
	}}
	measure(b, counter, func(int) error { return p.next() })
}

// BenchmarkQueryIndexEntriesPageOf25 pages through the email entries of 100 people,
// with their projected names.
func BenchmarkQueryIndexEntriesPageOf25(b *testing.B) {
	db, counter := ixStore(b, ixIndexes)
	ixSeed(b, db, ixPeople(100))
	cond := indexing.BeginsWith(indexing.String("p0"))
	p := &pager[ryno.IndexEntry]{limit: 25, read: func(o ryno.PageOptions) (*ryno.Page[ryno.IndexEntry], error) {
		return db.QueryIndexEntries(ctx, ryno.ScopedIndex{Scope: "bench", Index: "email"}, cond, o)
	}}
	measure(b, counter, func(int) error { return p.next() })
}

// ixReindexPosts is how many posts the Reindex benchmarks hold, two tags each.
const ixReindexPosts = 200

func ixSeedPosts(b *testing.B, db *ryno.Client) {
	b.Helper()
	posts := make([]*ryno.Entity, ixReindexPosts)
	for i := range posts {
		posts[i] = ixPost(fmt.Sprintf("post%03d", i), []string{"go", fmt.Sprintf("t%d", i%7)})
	}
	ixSeed(b, db, posts)
}

// ixReindex reindexes the posts and checks that it saw all of them.
func ixReindex(db *ryno.Client) error {
	done, err := db.Reindex(ctx, ryno.Type{Scope: "bench", Name: "post"}, nil)
	if err == nil && done.Entities != ixReindexPosts {
		err = fmt.Errorf("reindexed %d posts, want %d", done.Entities, ixReindexPosts)
	}
	return err
}

// BenchmarkReindex200IndexedPostsUnchanged reindexes posts whose entries are up to date: it reads
// them all and writes nothing.
func BenchmarkReindex200IndexedPostsUnchanged(b *testing.B) {
	db, counter := ixStore(b, ixIndexes)
	ixSeedPosts(b, db)
	measure(b, counter, func(int) error { return ixReindex(db) })
}

// BenchmarkReindex200IndexedPostsAfterMapChange alternates between two versions of the tag map
// function, the second upper-casing the tags: each Reindex replaces every entry (400
// deletes, 400 puts) and rewrites each post's record of its entries.
func BenchmarkReindex200IndexedPostsAfterMapChange(b *testing.B) {
	upper := func(e *ryno.Entity, emit func(indexing.Value)) {
		tags, _ := e.Attributes["tags"].([]any)
		for _, tag := range tags {
			emit(indexing.String(strings.ToUpper(tag.(string))))
		}
	}
	clients, counter := ixClients(b,
		[]ryno.Index{{Type: "post", Name: "tag", Map: emitTags}},
		[]ryno.Index{{Type: "post", Name: "tag", Map: upper}})
	ixSeedPosts(b, clients[0])
	measure(b, counter, func(i int) error { return ixReindex(clients[(i+1)%2]) })
}

// ixInline indexes people by age inline: on the entity item, in a GSI of the
// entities table.
var ixInline = []ryno.Index{{Type: "person", Name: "age", Map: emitAge, Inline: 1}}

// BenchmarkCreateWith2InlineIndexValues creates issues indexed inline by status
// and by priority: one PutItem each.
func BenchmarkCreateWith2InlineIndexValues(b *testing.B) {
	db, counter := ixStore(b, issueIndexes(true))
	measure(b, counter, func(i int) error {
		_, err := db.Create(ctx, issue(fmt.Sprintf("i%d", i), "ACME", "open", 1+i%28, i))
		return err
	})
}

// BenchmarkQueryIndexInlinePageOf25 pages through the 50 people aged 20 to 69 of
// an inline index: one Query a page, the GSI holding the entities.
func BenchmarkQueryIndexInlinePageOf25(b *testing.B) {
	db, counter := ixStore(b, ixInline)
	ixSeed(b, db, ixPeople(100))
	cond := indexing.Between(indexing.Int(20), indexing.Int(69))
	p := &pager[*ryno.Entity]{limit: 25, read: func(o ryno.PageOptions) (*ryno.Page[*ryno.Entity], error) {
		return db.QueryIndex(ctx, ryno.ScopedIndex{Scope: "bench", Index: "age"}, cond, o)
	}}
	measure(b, counter, func(int) error { return p.next() })
}
