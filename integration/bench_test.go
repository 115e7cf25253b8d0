package integration_test

import (
	"fmt"
	"testing"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// benchStore returns a client on fresh tables and the counter its requests go through.
func benchStore(b *testing.B) (*ryno.Client, *dynamotest.Counter) {
	b.Helper()
	api := dynamotest.API(b)
	counter := dynamotest.NewCounter(api)
	db, err := ryno.New(counter, ryno.Options{TablePrefix: dynamotest.Tables(b, api)})
	if err != nil {
		b.Fatal(err)
	}
	return db, counter
}

// measure runs op b.N times and reports the requests and rounds of requests each
// operation costs, besides time and allocations.
func measure(b *testing.B, counter *dynamotest.Counter, op func(i int) error) {
	b.Helper()
	b.ReportAllocs()
	counter.Reset()
	b.ResetTimer()
	for i := range b.N {
		if err := op(i); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(counter.Total())/float64(b.N), "requests/op")
	b.ReportMetric(float64(counter.Rounds())/float64(b.N), "rounds/op")
}

func benchEntity(i int) *ryno.Entity {
	return &ryno.Entity{
		Key:        ryno.Key{Scope: "bench", Type: "person", ID: fmt.Sprintf("p%08d", i)},
		Attributes: map[string]any{"name": "Ada Lovelace", "born": 1815, "tags": []string{"math", "poetry"}},
	}
}

// seedEntities creates n entities and returns them as stored.
func seedEntities(b *testing.B, db *ryno.Client, n int) []*ryno.Entity {
	b.Helper()
	stored := make([]*ryno.Entity, n)
	for i := range stored {
		e, err := db.Create(ctx, benchEntity(i))
		if err != nil {
			b.Fatal(err)
		}
		stored[i] = e
	}
	return stored
}

func BenchmarkGet(b *testing.B) {
	db, counter := benchStore(b)
	stored := seedEntities(b, db, 100)
	measure(b, counter, func(i int) error {
		_, err := db.Get(ctx, stored[i%len(stored)].Key)
		return err
	})
}

func BenchmarkCreate(b *testing.B) {
	db, counter := benchStore(b)
	measure(b, counter, func(i int) error {
		_, err := db.Create(ctx, benchEntity(i))
		return err
	})
}

func BenchmarkUpdateWithCreated(b *testing.B) {
	db, counter := benchStore(b)
	stored := seedEntities(b, db, 100)
	measure(b, counter, func(i int) error {
		e, err := db.Update(ctx, stored[i%len(stored)])
		stored[i%len(stored)] = e
		return err
	})
}

func BenchmarkUpdateWithoutCreated(b *testing.B) {
	db, counter := benchStore(b)
	seedEntities(b, db, 100)
	measure(b, counter, func(i int) error {
		_, err := db.Update(ctx, benchEntity(i%100))
		return err
	})
}

func BenchmarkSetNew(b *testing.B) {
	db, counter := benchStore(b)
	measure(b, counter, func(i int) error {
		_, err := db.Set(ctx, benchEntity(i))
		return err
	})
}

func BenchmarkSetExistingWithoutCreated(b *testing.B) {
	db, counter := benchStore(b)
	seedEntities(b, db, 100)
	measure(b, counter, func(i int) error {
		_, err := db.Set(ctx, benchEntity(i%100))
		return err
	})
}

func BenchmarkDelete(b *testing.B) {
	db, counter := benchStore(b)
	measure(b, counter, func(i int) error {
		return db.Delete(ctx, benchEntity(i).Key)
	})
}

func BenchmarkBatchGet250(b *testing.B) {
	db, counter := benchStore(b)
	stored := seedEntities(b, db, 250)
	keys := make([]ryno.Key, len(stored))
	for i, e := range stored {
		keys[i] = e.Key
	}
	measure(b, counter, func(int) error {
		_, err := db.BatchGet(ctx, keys)
		return err
	})
}

func BenchmarkListByTypePageOf25(b *testing.B) {
	db, counter := benchStore(b)
	seedEntities(b, db, 100)
	measure(b, counter, func(int) error {
		_, err := db.ListByType(ctx, ryno.Type{Scope: "bench", Name: "person"}, ryno.PageOptions{Limit: 25})
		return err
	})
}
