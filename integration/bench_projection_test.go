package integration_test

import (
	"testing"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// BenchmarkListByTypeInPart lists 100 articles of 40 KB each (pages of up to 100,
// ended by DynamoDB at 1 MB read), whole and naming two small attributes: B/op and wire-bytes/op compare what each allocates and moves.
func BenchmarkListByTypeInPart(b *testing.B) {
	api, wire := dynamotest.CountWire(dynamotest.API(b))
	db, err := ryno.New(api, ryno.Options{TablePrefix: dynamotest.Tables(b, api)})
	if err != nil {
		b.Fatal(err)
	}
	articles := ryno.Type{Scope: "acme", Name: "article"}
	writeArticles(b, db, articles, 100, 40_000)
	for _, bm := range []struct {
		name       string
		projection ryno.Projection
	}{
		{"whole", ryno.Projection{}},
		{"part", ryno.Projection{Attributes: []string{"title", "slug"}}},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			wire.Reset()
			for b.Loop() {
				n := 0
				for _, err := range db.AllByType(ctx, articles, ryno.PageOptions{Limit: 100, Projection: bm.projection}) {
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
				if n != 100 {
					b.Fatalf("%d articles listed, want 100", n)
				}
			}
			b.ReportMetric(float64(wire.Read())/float64(b.N), "wire-bytes/op")
		})
	}
}
