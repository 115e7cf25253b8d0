package integration_test

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"go.opentelemetry.io/contrib/instrumentation/github.com/aws/aws-sdk-go-v2/otelaws"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// callLog keeps the reports of a client's calls.
type callLog struct {
	mu      sync.Mutex
	reports []ryno.CallReport
}

func (l *callLog) add(_ context.Context, r ryno.CallReport) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reports = append(l.reports, r)
}

// take returns the reports so far and forgets them.
func (l *callLog) take() []ryno.CallReport {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.reports
	l.reports = nil
	return r
}

// tracedStore returns a client on fresh tables whose requests are traced by the
// SDK's instrumentation, then counted, all spans going to an in-memory exporter as
// they end.
func tracedStore(t *testing.T, calls *callLog) (*ryno.Client, *dynamotest.Counter, *tracetest.InMemoryExporter) {
	t.Helper()
	api := dynamotest.API(t)
	prefix := dynamotest.Tables(t, api)
	exporter := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	opts := api.Options()
	otelaws.AppendMiddlewares(&opts.APIOptions, otelaws.WithTracerProvider(tp))
	counter := dynamotest.NewCounter(dynamodb.New(opts))
	db, err := ryno.New(counter, ryno.Options{TablePrefix: prefix, Indexes: ixIndexes, TracerProvider: tp, OnCall: calls.add})
	if err != nil {
		t.Fatal(err)
	}
	return db, counter, exporter
}

func TestSpanTreeOfSetWithListsAndIndexes(t *testing.T) {
	ctx := context.Background()
	var calls callLog
	db, counter, exporter := tracedStore(t, &calls)
	person := ryno.Key{Scope: "obs", Type: "person", ID: "ada"}
	posts := []ryno.Key{{Scope: "obs", Type: "post", ID: "1"}, {Scope: "obs", Type: "post", ID: "2"}}
	// A Set of a new entity: one that exists is written twice, the first attempt
	// having guessed it new (a retry in the report).
	e := &ryno.Entity{Key: person, Attributes: map[string]any{"name": "Ada", "age": 37, "email": "ada@example.org"}}
	lists := ryno.ReplaceLists(map[string][]ryno.Key{"wrote": posts, "likes": posts[:1]})
	if _, err := db.Set(ctx, e, lists); err != nil {
		t.Fatal(err)
	}

	spans := exporter.GetSpans()
	var root *tracetest.SpanStub
	for i := range spans {
		if !spans[i].Parent.IsValid() {
			if root != nil {
				t.Fatalf("two root spans: %s and %s", root.Name, spans[i].Name)
			}
			root = &spans[i]
		}
	}
	if root == nil || root.Name != "ryno.Set" {
		t.Fatalf("root span %+v, want ryno.Set", root)
	}
	children := map[string]int{}
	for i, s := range spans {
		if &spans[i] == root {
			continue
		}
		if s.Parent.SpanID() != root.SpanContext.SpanID() || s.SpanContext.TraceID() != root.SpanContext.TraceID() {
			t.Errorf("span %s is not a child of ryno.Set", s.Name)
		}
		children[strings.TrimPrefix(s.Name, "DynamoDB.")]++
	}
	if want := counter.Counts(); !maps.Equal(children, want) {
		t.Errorf("request spans %v, want the requests counted %v", children, want)
	}
	if children["TransactWriteItems"] == 0 {
		t.Errorf("no transaction among the requests %v", children)
	}

	attrs := map[attribute.Key]attribute.Value{}
	for _, kv := range root.Attributes {
		attrs[kv.Key] = kv.Value
	}
	if got := attrs["ryno.requests"].AsInt64(); got != int64(counter.Total()) {
		t.Errorf("ryno.requests = %d, want %d", got, counter.Total())
	}
	// The span counts rounds as the call's report does: from each request's send
	// to its answer, so at most the counter's rounds, which it sees on the wire
	// only (see TestCallReportsMatchTheRequestCounter).
	if got := attrs["ryno.rounds"].AsInt64(); got < 1 || got > int64(counter.Rounds()) {
		t.Errorf("ryno.rounds = %d, want 1 to %d", got, counter.Rounds())
	}
	if attrs["ryno.capacity.write"].AsFloat64() <= 0 {
		t.Errorf("ryno.capacity.write = %v, want above zero", attrs["ryno.capacity.write"].Emit())
	}
	byTable := strings.Join(attrs["ryno.capacity.by_table"].AsStringSlice(), "\n")
	for _, table := range []string{db.Names().Entities, db.Names().Relationships, db.Names().IndexEntries} {
		if !strings.Contains(byTable, table+":") {
			t.Errorf("ryno.capacity.by_table has nothing for %s:\n%s", table, byTable)
		}
	}
	for _, name := range []attribute.Key{"ryno.retries", "ryno.throttles", "ryno.unprocessed"} {
		if v, ok := attrs[name]; !ok || v.AsInt64() != 0 {
			t.Errorf("%s = %v, want 0 on an uncontended Set", name, v.Emit())
		}
	}
	reports := calls.take()
	if len(reports) != 1 || reports[0].Op != "Set" {
		t.Errorf("reports %+v, want one of Set", reports)
	} else if got := attrs["ryno.rounds"].AsInt64(); got != int64(reports[0].Rounds) {
		t.Errorf("ryno.rounds = %d, want the report's %d", got, reports[0].Rounds)
	}
}

// TestCallReportsMatchTheRequestCounter runs one call of each kind, then
// concurrent writers of one entity, and checks that the reports count exactly the
// requests that reached DynamoDB.
func TestCallReportsMatchTheRequestCounter(t *testing.T) {
	ctx := context.Background()
	var calls callLog
	db, counter, _ := tracedStore(t, &calls)
	people := make([]ryno.Key, 120)
	for i := range people {
		people[i] = ryno.Key{Scope: "obs", Type: "person", ID: fmt.Sprintf("p%03d", i)}
	}
	post := ryno.Key{Scope: "obs", Type: "post", ID: "hello"}
	steps := []struct {
		op  string
		run func() error
	}{
		{"Create", func() error {
			_, err := db.Create(ctx, &ryno.Entity{Key: post, Attributes: map[string]any{"title": "Hello", "tags": []string{"a", "b"}}})
			return err
		}},
		{"Set", func() error {
			_, err := db.Set(ctx, &ryno.Entity{Key: people[0], Attributes: map[string]any{"name": "Ada", "age": 36}},
				ryno.ReplaceLists(map[string][]ryno.Key{"wrote": {post}, "follows": people[1:]}))
			return err
		}},
		{"Set", func() error { // an existing entity: the first attempt guessed it new
			_, err := db.Set(ctx, &ryno.Entity{Key: people[0], Attributes: map[string]any{"name": "Ada", "age": 37}})
			return err
		}},
		{"Get", func() error { _, err := db.Get(ctx, people[0], ryno.WithRelationships()); return err }},
		{"BatchGet", func() error { _, err := db.BatchGet(ctx, people); return err }},
		{"AddRelationships", func() error { _, err := db.AddRelationships(ctx, people[0], "likes", people[2:5]); return err }},
		{"Relationships", func() error {
			_, err := db.Relationships(ctx, people[0], "follows", ryno.PageOptions{Limit: 50})
			return err
		}},
		{"RelatedEntities", func() error {
			_, err := db.RelatedEntities(ctx, people[0], "follows", ryno.PageOptions{Limit: 50})
			return err
		}},
		{"QueryIndex", func() error {
			_, err := db.QueryIndex(ctx, ryno.ScopedIndex{Scope: "obs", Index: "tag"}, indexing.Equal(indexing.String("a")), ryno.PageOptions{})
			return err
		}},
		{"Patch", func() error {
			_, err := db.Patch(ctx, people[0], ryno.Patch{Add: map[string]any{"age": 1}})
			return err
		}},
		{"Delete", func() error { return db.Delete(ctx, post) }},
		{"CheckSchema", func() error { return db.CheckSchema(ctx) }},
	}
	for _, step := range steps {
		calls.take()
		counter.Reset()
		if err := step.run(); err != nil {
			t.Fatalf("%s: %v", step.op, err)
		}
		reports := calls.take()
		if len(reports) != 1 {
			t.Fatalf("%s: %d reports, want 1", step.op, len(reports))
		}
		r := reports[0]
		// The report counts a request from the call's send to its answer, the counter
		// only while it is on the wire, inside that span: parallel requests of the
		// call that the counter sees one just after another can overlap in the report,
		// so the report has at most the counter's rounds, never more.
		if r.Op != step.op || !maps.Equal(r.Requests, counter.Counts()) || r.Rounds < 1 || r.Rounds > counter.Rounds() || r.Err != nil {
			t.Errorf("%s: report %s %v in %d rounds (err %v), counted %v in %d rounds",
				step.op, r.Op, r.Requests, r.Rounds, r.Err, counter.Counts(), counter.Rounds())
		}
	}

	// Concurrent Modify calls of one entity: each conflict it resolves is a retry,
	// and together the reports count every request.
	const writers, rounds = 8, 5
	calls.take()
	counter.Reset()
	for range rounds {
		start := make(chan struct{})
		var wg sync.WaitGroup
		for range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, err := db.Modify(ctx, people[0], func(e *ryno.Entity) error {
					e.Attributes["visits"] = len(e.Attributes)
					return nil
				})
				if err != nil {
					t.Error(err)
				}
			}()
		}
		close(start)
		wg.Wait()
	}
	reports := calls.take()
	total := map[string]int{}
	retries := 0
	for _, r := range reports {
		for api, n := range r.Requests {
			total[api] += n
		}
		retries += r.Retries
	}
	if len(reports) != writers*rounds || !maps.Equal(total, counter.Counts()) {
		t.Errorf("%d reports counting %v, want %d counting %v", len(reports), total, writers*rounds, counter.Counts())
	}
	// Each Modify reads once and writes once, and again for each retry.
	if writes := counter.Count("UpdateItem") + counter.Count("PutItem") + counter.Count("TransactWriteItems"); writes != writers*rounds+retries {
		t.Errorf("%d writes for %d calls and %d retries", writes, writers*rounds, retries)
	}
	t.Logf("%d concurrent Modify calls: %d retries, requests %v", writers*rounds, retries, total)
}
