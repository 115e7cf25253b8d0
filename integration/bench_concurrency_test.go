package integration_test

import (
	"fmt"
	"testing"

	"github.com/rynodb/rynodb/ryno"
)

// BenchmarkPatchAdd adds to a number of an entity whose type has no index.
func BenchmarkPatchAdd(b *testing.B) {
	db, counter := benchStore(b)
	stored := seedEntities(b, db, 1)
	measure(b, counter, func(int) error {
		_, err := db.Patch(ctx, stored[0].Key, ryno.Patch{Add: map[string]any{"born": 1}})
		return err
	})
}

// BenchmarkModify reads, changes and writes back an entity whose type has no index.
func BenchmarkModify(b *testing.B) {
	db, counter := benchStore(b)
	stored := seedEntities(b, db, 1)
	measure(b, counter, func(i int) error {
		_, err := db.Modify(ctx, stored[0].Key, func(e *ryno.Entity) error {
			e.Attributes["name"] = fmt.Sprint("name ", i)
			return nil
		})
		return err
	})
}

// BenchmarkIndexedPatchAdd adds to the age of a person indexed by age and email: the
// entity is read, then its entries, then one transaction.
func BenchmarkIndexedPatchAdd(b *testing.B) {
	db, counter := ixStore(b, ixIndexes)
	e, err := db.Create(ctx, ixPeople(1)[0])
	if err != nil {
		b.Fatal(err)
	}
	measure(b, counter, func(int) error {
		_, err := db.Patch(ctx, e.Key, ryno.Patch{Add: map[string]any{"age": 1}})
		return err
	})
}

// BenchmarkIndexedBlindSet sets a person indexed by age and email without its
// version, changing both entries.
func BenchmarkIndexedBlindSet(b *testing.B) {
	db, counter := ixStore(b, ixIndexes)
	e, err := db.Create(ctx, ixPeople(1)[0])
	if err != nil {
		b.Fatal(err)
	}
	measure(b, counter, func(i int) error {
		_, err := db.Set(ctx, &ryno.Entity{Key: e.Key, Attributes: map[string]any{
			"name": "Ada", "age": i % 90, "email": fmt.Sprintf("ada%d@example.com", i%2),
		}})
		return err
	})
}

// BenchmarkBlindSetsRacing8 has 8 goroutines at a barrier set one indexed person
// without its version, each changing its entries: every call must finish within its
// attempt budget. It reports the commits each call needed.
func BenchmarkBlindSetsRacing8(b *testing.B) {
	const racers = 8
	db, counter := ixStore(b, ixIndexes)
	e, err := db.Create(ctx, ixPeople(1)[0])
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	counter.Reset()
	b.ResetTimer()
	failed := 0
	for i := range b.N {
		errs := make([]error, racers)
		race(racers, func(g int) {
			_, errs[g] = db.Set(ctx, &ryno.Entity{Key: e.Key, Attributes: map[string]any{
				"name": "Ada", "age": g, "email": fmt.Sprintf("r%d-g%d@example.com", i, g),
			}})
		})
		for _, err := range errs {
			if err != nil {
				failed++
			}
		}
	}
	b.StopTimer()
	if failed > 0 {
		b.Fatalf("%d of %d Sets ran out of attempts", failed, b.N*racers)
	}
	calls := float64(b.N * racers)
	b.ReportMetric(float64(counter.Count("TransactWriteItems")+counter.Count("PutItem"))/calls, "attempts/call")
	b.ReportMetric(float64(counter.Total())/calls, "requests/call")
}
