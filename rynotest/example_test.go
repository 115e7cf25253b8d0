package rynotest_test

import (
	"context"
	"testing"

	"github.com/rynodb/rynodb/migrations"
	"github.com/rynodb/rynodb/ryno"
	"github.com/rynodb/rynodb/rynotest"
)

// A test of a service gets tables of its own, deleted when it ends. Run it with
// RYNO_DYNAMODB_ENDPOINT=http://localhost:8000 go test ./...
func ExampleNew() {
	var t *testing.T // the test's own
	db := rynotest.New(t, ryno.Options{Sets: []string{"likes"}})
	_, _ = db.Create(context.Background(), &ryno.Entity{Key: ryno.Key{Scope: "acme", Type: "person", ID: "ada"}})
}

// A test of a stream consumer turns the tables' streams on, as `ryno migrate up
// --streams` does; the other options of migrations.Options apply the same way.
func ExampleNew_streams() {
	var t *testing.T // the test's own
	db := rynotest.New(t, ryno.Options{}, migrations.Options{Streams: true})
	_ = db.Names().Entities // its stream is the table's LatestStreamArn
}
