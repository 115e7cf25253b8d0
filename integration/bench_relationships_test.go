package integration_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// Predicates of the relationship benchmarks.
const (
	benchFollows = "follows"
	benchWrote   = "wrote"
)

// benchStoreAndSeeder returns, besides benchStore's client and counter, a client on
// the same tables whose requests the counter does not see: seeding with it inside an
// operation leaves requests/op and rounds/op to the operation.
func benchStoreAndSeeder(b *testing.B) (db *ryno.Client, counter *dynamotest.Counter, seeder *ryno.Client) {
	b.Helper()
	api := dynamotest.API(b)
	opts := ryno.Options{TablePrefix: dynamotest.Tables(b, api)}
	counter = dynamotest.NewCounter(api)
	db, err := ryno.New(counter, opts)
	if err != nil {
		b.Fatal(err)
	}
	if seeder, err = ryno.New(api, opts); err != nil {
		b.Fatal(err)
	}
	return db, counter, seeder
}

// seedList sets the subject with its list under predicate exactly objects.
func seedList(b *testing.B, db *ryno.Client, subject ryno.Key, predicate string, objects []ryno.Key) {
	b.Helper()
	if _, err := db.Set(ctx, &ryno.Entity{Key: subject}, ryno.ReplaceLists(map[string][]ryno.Key{predicate: objects})); err != nil {
		b.Fatal(err)
	}
}

// seedFollowers sets each follower with its list of people followed holding
// object, a few followers at a time.
func seedFollowers(b *testing.B, db *ryno.Client, followers []ryno.Key, object ryno.Key) {
	b.Helper()
	var g errgroup.Group
	g.SetLimit(8)
	for _, f := range followers {
		g.Go(func() error {
			_, err := db.Set(ctx, &ryno.Entity{Key: f}, ryno.ReplaceLists(map[string][]ryno.Key{benchFollows: {object}}))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
}

// wantLen reports a result of an unexpected size as an error.
func wantLen[T any](what string, items []T, n int) error {
	if len(items) != n {
		return fmt.Errorf("%s: got %d items, want %d", what, len(items), n)
	}
	return nil
}

// pager reads the pages of a listing one after the other, from the first again after
// the last.
type pager[T any] struct {
	read   func(ryno.PageOptions) (*ryno.Page[T], error)
	limit  int
	cursor string
}

// next reads the next page and checks that it is full.
func (p *pager[T]) next() error {
	page, err := p.read(ryno.PageOptions{Limit: p.limit, Cursor: p.cursor})
	if err != nil {
		return err
	}
	p.cursor = page.Cursor
	return wantLen("page", page.Items, p.limit)
}

func BenchmarkHasRelationshipIn300(b *testing.B) {
	db, counter := benchStore(b)
	subject, objects := pk("subject"), pks("o", 300)
	seedList(b, db, subject, benchFollows, objects)
	measure(b, counter, func(i int) error {
		object := objects[i%len(objects)]
		ok, err := db.HasRelationship(ctx, subject, benchFollows, object)
		if err == nil && !ok {
			err = fmt.Errorf("%s does not follow %s", subject, object)
		}
		return err
	})
}

func BenchmarkRelationshipsPageOf25From300(b *testing.B) {
	db, counter := benchStore(b)
	subject := pk("subject")
	seedList(b, db, subject, benchFollows, pks("o", 300))
	p := &pager[ryno.Relationship]{limit: 25, read: func(o ryno.PageOptions) (*ryno.Page[ryno.Relationship], error) {
		return db.Relationships(ctx, subject, benchFollows, o)
	}}
	measure(b, counter, func(int) error { return p.next() })
}

func BenchmarkRelatedEntitiesPageOf100(b *testing.B) {
	db, counter := benchStore(b)
	subject := pk("subject")
	objects := make([]ryno.Key, 0, 100)
	for _, e := range seedEntities(b, db, 100) {
		objects = append(objects, e.Key)
	}
	seedList(b, db, subject, benchFollows, objects)
	p := &pager[*ryno.Entity]{limit: 100, read: func(o ryno.PageOptions) (*ryno.Page[*ryno.Entity], error) {
		return db.RelatedEntities(ctx, subject, benchFollows, o)
	}}
	measure(b, counter, func(int) error { return p.next() })
}

func BenchmarkReverseRelationshipsPageOf25From100(b *testing.B) {
	db, counter := benchStore(b)
	object := pk("object")
	seedFollowers(b, db, pks("f", 100), object)
	p := &pager[ryno.Relationship]{limit: 25, read: func(o ryno.PageOptions) (*ryno.Page[ryno.Relationship], error) {
		return db.ReverseRelationships(ctx, object, "", o)
	}}
	measure(b, counter, func(int) error { return p.next() })
}

func BenchmarkAddRelationshipsOf2(b *testing.B) {
	db, counter := benchStore(b)
	subject, added := pk("subject"), pks("new", 2*b.N)
	seedList(b, db, subject, benchFollows, pks("o", 100))
	measure(b, counter, func(i int) error {
		return changed(db.AddRelationships(ctx, subject, benchFollows, []ryno.Key{added[2*i], added[2*i+1]}))
	})
}

func BenchmarkRemoveRelationshipsOf2(b *testing.B) {
	db, counter := benchStore(b)
	subject, removed := pk("subject"), pks("gone", 2*b.N)
	seedList(b, db, subject, benchFollows, slices.Concat(pks("o", 100), removed))
	measure(b, counter, func(i int) error {
		return changed(db.RemoveRelationships(ctx, subject, benchFollows, []ryno.Key{removed[2*i], removed[2*i+1]}))
	})
}

func BenchmarkReplaceRelationships60Changing10(b *testing.B) {
	db, counter := benchStore(b)
	subject, before := pk("subject"), pks("o", 60)
	after := slices.Clone(before)
	for i, k := range pks("x", 10) {
		after[6*i] = k
	}
	seedList(b, db, subject, benchFollows, before)
	lists := [][]ryno.Key{after, before}
	measure(b, counter, func(i int) error {
		return db.ReplaceRelationships(ctx, subject, benchFollows, lists[i%2])
	})
}

func BenchmarkSetNewWithRelationshipsOf2Predicates(b *testing.B) {
	db, counter := benchStore(b)
	people, posts := pks("o", 3), pks("post", 2)
	measure(b, counter, func(i int) error {
		e := benchEntity(i)
		_, err := db.Set(ctx, e, ryno.ReplaceLists(map[string][]ryno.Key{benchFollows: people, benchWrote: posts}))
		return err
	})
}

func BenchmarkGetWithRelationships(b *testing.B) {
	db, counter := benchStore(b)
	e := benchEntity(0)
	if _, err := db.Set(ctx, e, ryno.ReplaceLists(map[string][]ryno.Key{benchFollows: pks("o", 10), benchWrote: pks("post", 5)})); err != nil {
		b.Fatal(err)
	}
	measure(b, counter, func(int) error {
		got, err := db.Get(ctx, e.Key, ryno.WithRelationships())
		if err != nil {
			return err
		}
		return wantLen("following", got.Relationships[benchFollows], 10)
	})
}

// BenchmarkDeleteCascade50In50Out deletes an entity that benchFollows 50 people and has
// 50 followers. Each operation re-seeds them first, uncounted and untimed.
func BenchmarkDeleteCascade50In50Out(b *testing.B) {
	db, counter, seeder := benchStoreAndSeeder(b)
	hub := benchEntity(0)
	lists := ryno.ReplaceLists(map[string][]ryno.Key{benchFollows: pks("o", 50)})
	followers := pks("f", 50)
	measure(b, counter, func(int) error {
		b.StopTimer()
		if _, err := seeder.Set(ctx, hub, lists); err != nil {
			return err
		}
		seedFollowers(b, seeder, followers, hub.Key)
		b.StartTimer()
		return db.Delete(ctx, hub.Key)
	})
}

// BenchmarkDeleteOwnerOf1000IssuesOf3Comments deletes a project that owns 1000
// issues of 3 comments each (Options.Owns): 4001 entities and their edges. Each
// iteration seeds a tree of its own first, untimed. s-to-hidden is the time until
// the first request that deletes something: the whole tree is marked by then.
func BenchmarkDeleteOwnerOf1000IssuesOf3Comments(b *testing.B) {
	const issues, comments = 1000, 3
	api := dynamotest.API(b)
	counter := dynamotest.NewCounter(api)
	opts := ryno.Options{TablePrefix: dynamotest.Tables(b, api), Owns: []ryno.Owns{{Type: "project", Predicate: "issues"}, {Type: "issue", Predicate: "comments"}}}
	seeder, err := ryno.New(api, opts)
	if err != nil {
		b.Fatal(err)
	}
	var hidden atomic.Int64 // the time of the first deleting request, in Unix nanoseconds
	db, err := ryno.New(dynamotest.Wrap(counter, func(ctx context.Context, op string, send func(context.Context) error) error {
		if deletingOp(op) {
			hidden.CompareAndSwap(0, time.Now().UnixNano())
		}
		return send(ctx)
	}), opts)
	if err != nil {
		b.Fatal(err)
	}
	seed := func(n int) ryno.Key {
		root := ryno.Key{Scope: "bench", Type: "project", ID: fmt.Sprintf("p%d", n)}
		if _, err := seeder.Create(ctx, &ryno.Entity{Key: root}); err != nil {
			b.Fatal(err)
		}
		owned := make([]ryno.Key, issues)
		err := parallelBench(issues, 16, func(i int) error {
			issue := ryno.Key{Scope: "bench", Type: "issue", ID: fmt.Sprintf("p%d-%d", n, i)}
			owned[i] = issue
			if _, err := seeder.Create(ctx, &ryno.Entity{Key: issue}); err != nil {
				return err
			}
			cs := make([]ryno.Key, comments)
			for j := range cs {
				cs[j] = ryno.Key{Scope: "bench", Type: "comment", ID: fmt.Sprintf("%s-%d", issue.ID, j)}
				if _, err := seeder.Create(ctx, &ryno.Entity{Key: cs[j]}); err != nil {
					return err
				}
			}
			_, err := seeder.AddRelationships(ctx, issue, "comments", cs)
			return err
		})
		if err == nil {
			err = seeder.ReplaceRelationships(ctx, root, "issues", owned)
		}
		if err != nil {
			b.Fatal(err)
		}
		return root
	}
	var elapsed, toHidden time.Duration
	b.ResetTimer()
	for n := range b.N {
		b.StopTimer()
		root := seed(n)
		counter.Reset()
		hidden.Store(0)
		b.StartTimer()
		start := time.Now()
		if err := db.Delete(ctx, root); err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(start)
		toHidden += time.Unix(0, hidden.Load()).Sub(start)
	}
	b.StopTimer()
	b.ReportMetric(float64(counter.Total())/float64(b.N), "requests/op")
	b.ReportMetric(float64(counter.Rounds())/float64(b.N), "rounds/op")
	b.ReportMetric(elapsed.Seconds()/float64(b.N), "s/delete")
	b.ReportMetric(toHidden.Seconds()/float64(b.N), "s-to-hidden")
}

// parallelBench runs f for 0..n-1, limit at a time, and returns the first error.
func parallelBench(n, limit int, f func(i int) error) error {
	sem := make(chan struct{}, limit)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[i] = f(i)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
