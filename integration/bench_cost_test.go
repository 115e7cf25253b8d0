//go:build costreport

package integration_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/integration/costmodel"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/ryno"
)

// Environment of TestCostReport (make bench-cost).
const (
	costDurationEnv = "RYNO_COST_DURATION" // how long each side of a workload runs; default 10s
)

const (
	costRuns        = 3       // runs of each call measured; the report takes the medians
	costWriters     = 8       // goroutines of a workload
	costSet         = "likes" // the predicate the report declares a set
	costOrdered     = "cards" // the predicate the report declares an ordered set
	costDefaultTime = 10 * time.Second
)

// costSide is what one call cost, the medians of costRuns runs.
type costSide struct {
	requests, rounds         float64
	wcu, rcu                 float64
	reportedWCU, reportedRCU float64
	sent                     string // the requests by operation, of the last run
}

// costRow compares the library's call with the raw sequence doing the same.
type costRow struct {
	name     string
	lib, raw costSide
}

// libRetries sums the Retries of every call report of the workload clients: what
// they sent again (a race lost to another writer, a throttled or lost request).
var libRetries atomic.Int64

// localChecks counts the requests whose bill was checked against the capacity
// DynamoDB Local reported.
var localChecks atomic.Int64

// checkLocal compares the model's bill of each request with what DynamoDB Local
// reported, where DynamoDB Local reports as AWS bills: not for transactions (it
// under-counts them), failed requests (it reports nothing, AWS bills a failed
// condition), queries that evaluate nothing and missing keys of a BatchGetItem (it
// reports 0 for them, AWS its minimum).
func checkLocal(t *testing.T, rec *dynamotest.Recorder) {
	t.Helper()
	s := rec.Schema()
	for _, r := range rec.Requests() {
		if r.Op == "TransactWriteItems" || r.Op == "DescribeTable" || r.Err != nil {
			continue
		}
		if _, ok := r.Input.(*dynamodb.QueryInput); ok && len(r.Evaluated) == 0 {
			continue
		}
		if b, ok := r.Input.(*dynamodb.BatchGetItemInput); ok && missingKey(s, b, r.Before) {
			continue
		}
		billed, err := costmodel.Bill(s, r)
		if err != nil {
			t.Fatal(err)
		}
		reported, _ := costmodel.Reported(r.Output)
		if !reflect.DeepEqual(billed, reported) {
			t.Errorf("%s: the model bills %v, DynamoDB Local reports %v", r.Op, billed, reported)
		}
		localChecks.Add(1)
	}
}

func missingKey(s costmodel.Schema, in *dynamodb.BatchGetItemInput, found map[costmodel.Ref]costmodel.Item) bool {
	for name, ka := range in.RequestItems {
		for _, k := range ka.Keys {
			if _, ok := found[s[name].Ref(k)]; !ok {
				return true
			}
		}
	}
	return false
}

// costCall measures call through rec costRuns times, each after setup (which must
// not go through rec), and returns the medians.
func costCall(t *testing.T, rec *dynamotest.Recorder, setup func(run int) error, call func(run int) error) costSide {
	t.Helper()
	var requests, rounds, wcu, rcu, rwcu, rrcu []float64
	for run := range costRuns {
		if setup != nil {
			if err := setup(run); err != nil {
				t.Fatalf("setup: %v", err)
			}
		}
		rec.Reset()
		if err := call(run); err != nil {
			t.Fatalf("call: %v", err)
		}
		billed, err := rec.Bill()
		if err != nil {
			t.Fatal(err)
		}
		checkLocal(t, rec)
		reported := rec.Reported()
		requests = append(requests, float64(rec.Total()))
		rounds = append(rounds, float64(rec.Depth()))
		wcu, rcu = append(wcu, billed.Write), append(rcu, billed.Read)
		rwcu, rrcu = append(rwcu, reported.Write), append(rrcu, reported.Read)
	}
	return costSide{
		sent:     sentByOp(rec.Requests()),
		requests: costMedian(requests), rounds: costMedian(rounds),
		wcu: costMedian(wcu), rcu: costMedian(rcu),
		reportedWCU: costMedian(rwcu), reportedRCU: costMedian(rrcu),
	}
}

// sentByOp lists the requests by operation, with those that failed (a condition,
// a cancelled transaction): "PutItem 2 (1 failed)".
func sentByOp(reqs []costmodel.Request) string {
	count, failed := map[string]int{}, map[string]int{}
	for _, r := range reqs {
		count[r.Op]++
		if r.Err != nil {
			failed[r.Op]++
		}
	}
	var parts []string
	for _, op := range slices.Sorted(maps.Keys(count)) {
		p := fmt.Sprintf("%s %d", op, count[op])
		if failed[op] > 0 {
			p += fmt.Sprintf(" (%d failed)", failed[op])
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

func costMedian(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func costPerson(id string) ryno.Key { return ryno.Key{Scope: "bench", Type: "person", ID: id} }
func costPost(id string) ryno.Key   { return ryno.Key{Scope: "bench", Type: "post", ID: id} }

func costPeople(prefix string, n int) []ryno.Key {
	keys := make([]ryno.Key, n)
	for i := range keys {
		keys[i] = costPerson(fmt.Sprintf("%s%04d", prefix, i))
	}
	return keys
}

func costPosts(prefix string, n int) []ryno.Key {
	keys := make([]ryno.Key, n)
	for i := range keys {
		keys[i] = costPost(fmt.Sprintf("%s%04d", prefix, i))
	}
	return keys
}

func personAttrs() map[string]any { return map[string]any{"name": "Ada Lovelace", "born": 1815} }

// bigPersonAttrs are a person's with a 3 KB biography: an entity of a size met in
// practice, where a transaction's check of it costs 2 WCU per KB.
func bigPersonAttrs() map[string]any {
	attrs := personAttrs()
	attrs["bio"] = strings.Repeat("Analytical Engine. ", 3000/19)
	return attrs
}

func postAttrs(tags ...string) map[string]any {
	return map[string]any{"title": "Notes on the Analytical Engine", "tags": tags}
}

// costIndexes are the library's indexes in the cost benchmark: posts by tag, and
// tickets by status and by priority, inline.
var costIndexes = []ryno.Index{
	{Type: "post", Name: "tag", Map: emitTags},
	{Type: "ticket", Name: "ticket-status", Map: emitTicketStatus, Inline: 1},
	{Type: "ticket", Name: "ticket-priority", Map: emitTicketPriority, Inline: 2},
}

func emitTicketStatus(e *ryno.Entity, emit func(indexing.Value)) {
	if s, ok := e.Attributes["status"].(string); ok {
		emit(indexing.String(s))
	}
}

func emitTicketPriority(e *ryno.Entity, emit func(indexing.Value)) {
	emitInt(e, "priority", emit)
}

func costTicket(id string) ryno.Key { return ryno.Key{Scope: "bench", Type: "ticket", ID: id} }

func ticketAttrs() map[string]any {
	return map[string]any{"title": "Notes on the Analytical Engine", "status": "open", "priority": 3}
}

// parallel runs f(0) .. f(n-1), 8 at a time.
func costParallel(n int, f func(i int) error) error {
	var g errgroup.Group
	g.SetLimit(8)
	for i := range n {
		g.Go(func() error { return f(i) })
	}
	return g.Wait()
}

// TestCostReport prints, in markdown, what each call of the library costs next to
// the raw requests of the seed design doing the same, then the throughput of both
// under 8 writers. Run it with `make bench-cost`: it builds with the tag costreport
// only, so that make test neither runs nor skips it.
func TestCostReport(t *testing.T) {
	duration := costDefaultTime
	if d := os.Getenv(costDurationEnv); d != "" {
		var err error
		if duration, err = time.ParseDuration(d); err != nil || duration <= 0 {
			t.Fatalf("%s=%q: want a positive duration such as 10s", costDurationEnv, d)
		}
	}

	api := dynamotest.API(t)
	recOpts := dynamotest.RecorderOptions{Images: true, Capacity: true}

	libOpts := ryno.Options{TablePrefix: dynamotest.Tables(t, api), Indexes: costIndexes, Sets: []string{costSet}, OrderedSets: []string{costOrdered}}
	libRec := dynamotest.NewRecorder(api, recOpts)
	db, err := ryno.New(libRec, libOpts)
	if err != nil {
		t.Fatal(err)
	}
	seeder, err := ryno.New(api, libOpts)
	if err != nil {
		t.Fatal(err)
	}
	libNames, err := schema.NewNames(libOpts.TablePrefix)
	if err != nil {
		t.Fatal(err)
	}

	rawNames, err := schema.NewNames(dynamotest.Tables(t, api))
	if err != nil {
		t.Fatal(err)
	}
	rawRec := dynamotest.NewRecorder(api, recOpts)
	raw := &rawStore{api: rawRec, names: rawNames}
	rawSeeder := &rawStore{api: api, names: rawNames}

	rows := costCalls(t, db, seeder, libRec, raw, rawSeeder, rawRec)

	w := os.Stdout
	fmt.Fprintf(w, "\n### Cost per call: library / raw seed sequence\n\n")
	fmt.Fprintf(w, "DynamoDB Local, Go %s, %d CPUs; WCU and RCU by AWS's billing rules over the requests sent; "+
		"medians of %d runs. Each cell: library / raw (library ÷ raw).\n\n", strings.TrimPrefix(runtime.Version(), "go"),
		runtime.NumCPU(), costRuns)
	printCostRows(w, rows)
	fmt.Fprintf(w, "\nThe model billed each of the %d single-item, batch and query requests above exactly what "+
		"DynamoDB Local reported for it, leaving out those DynamoDB Local does not report as AWS bills: "+
		"transactions, failed conditions, queries that read nothing and missing keys of a BatchGetItem.\n",
		localChecks.Load())

	libOpts.OnCall = func(_ context.Context, r ryno.CallReport) { libRetries.Add(int64(r.Retries)) }
	lib, err := ryno.New(api, libOpts)
	if err != nil {
		t.Fatal(err)
	}
	// One client a goroutine: writers in different processes, as Lambda runs them.
	libs := make([]*ryno.Client, costWriters)
	for i := range libs {
		if libs[i], err = ryno.New(api, libOpts); err != nil {
			t.Fatal(err)
		}
	}
	results := costWorkloads(t, duration, lib, seeder, libs, &rawStore{api: api, names: rawNames},
		&rawStore{api: api, names: libNames})
	fmt.Fprintf(w, "\n### Throughput: %d goroutines, %s a side, interleaved\n\n", costWriters, duration)
	fmt.Fprintf(w, "DynamoDB Local on this machine, shared by both sides in turn. Each cell: library / raw.\n\n")
	printWorkloads(w, results)

	fmt.Fprintf(w, "\n### How DynamoDB Local runs transactions: calls/s, 3 new items a call, no library\n\n")
	printCeiling(w, transactionCeiling(t, duration/2, &rawStore{api: api, names: rawNames}))
}

// ceilingKinds are the two ways transactionCeiling writes 3 items.
var ceilingKinds = []string{"TransactWriteItems of 3", "PutItem, then BatchWriteItem of 2"}

// transactionCeiling measures how the calls/s of each of ceilingKinds grow from 1
// goroutine to costWriters, for d each: a ceiling on the throughput of any
// workload that commits a transaction a call, whatever the design.
func transactionCeiling(t *testing.T, d time.Duration, raw *rawStore) [2][2]float64 {
	table := aws.String(raw.names.IndexEntries)
	item := func(id string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{
			schema.AttrSubjectKey: &types.AttributeValueMemberS{Value: id},
			schema.AttrUniqueKey:  &types.AttributeValueMemberS{Value: "ceiling"},
		}
	}
	write := []func(seq int64) error{
		func(seq int64) error {
			_, err := raw.api.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: table, Item: item(fmt.Sprint("a", seq))}},
				{Put: &types.Put{TableName: table, Item: item(fmt.Sprint("b", seq))}},
				{Put: &types.Put{TableName: table, Item: item(fmt.Sprint("c", seq))}},
			}})
			return err
		},
		func(seq int64) error {
			if _, err := raw.api.PutItem(ctx, &dynamodb.PutItemInput{TableName: table, Item: item(fmt.Sprint("a", seq))}); err != nil {
				return err
			}
			_, err := raw.api.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				*table: {{PutRequest: &types.PutRequest{Item: item(fmt.Sprint("b", seq))}}, {PutRequest: &types.PutRequest{Item: item(fmt.Sprint("c", seq))}}},
			}})
			return err
		},
	}
	var out [2][2]float64
	var seq atomic.Int64
	for k, call := range write {
		for i, goroutines := range []int{1, costWriters} {
			var calls atomic.Int64
			deadline := time.Now().Add(d)
			start := time.Now()
			var g errgroup.Group
			for range goroutines {
				g.Go(func() error {
					for time.Now().Before(deadline) {
						if err := call(seq.Add(1)); err != nil {
							return err
						}
						calls.Add(1)
					}
					return nil
				})
			}
			if err := g.Wait(); err != nil {
				t.Fatal(err)
			}
			out[k][i] = float64(calls.Load()) / time.Since(start).Seconds()
		}
	}
	return out
}

func printCeiling(w io.Writer, ceiling [2][2]float64) {
	fmt.Fprintf(w, "| requests | 1 goroutine | %d goroutines | %d ÷ 1 |\n|---|---|---|---|\n", costWriters, costWriters)
	for k, name := range ceilingKinds {
		fmt.Fprintf(w, "| %s | %.0f | %.0f | %.2g× |\n", name, ceiling[k][0], ceiling[k][1], ceiling[k][1]/ceiling[k][0])
	}
}

// costCalls measures each call of the report on both sides.
func costCalls(t *testing.T, db, seeder *ryno.Client, libRec *dynamotest.Recorder,
	raw, rawSeeder *rawStore, rawRec *dynamotest.Recorder) []costRow {
	follows := "follows"
	list100 := costPeople("o", 100)
	list10 := costPeople("o", 10)
	changed := slices.Clone(list100)
	for i, k := range costPeople("x", 10) {
		changed[10*i] = k
	}
	subject := func(what string, run int) ryno.Key { return costPerson(fmt.Sprintf("%s%d", what, run)) }
	libListOf := func(what string, list []ryno.Key, attrs map[string]any) func(int) error {
		return func(run int) error {
			_, err := seeder.Set(ctx, &ryno.Entity{Key: subject(what, run), Attributes: attrs},
				ryno.ReplaceLists(map[string][]ryno.Key{follows: list}))
			return err
		}
	}
	rawListOf := func(what string, list []ryno.Key, attrs map[string]any) func(int) error {
		return func(run int) error {
			return rawSeeder.Set(ctx, subject(what, run), attrs, map[string][]ryno.Key{follows: list})
		}
	}
	libList := func(what string, list []ryno.Key) func(int) error { return libListOf(what, list, personAttrs()) }
	rawList := func(what string, list []ryno.Key) func(int) error { return rawListOf(what, list, personAttrs()) }
	wantOne := func(keys []ryno.Key, err error) error {
		if err == nil && len(keys) != 1 {
			err = fmt.Errorf("changed %d objects, want 1", len(keys))
		}
		return err
	}

	var rows []costRow
	row := func(name string, lib, raw costSide) { rows = append(rows, costRow{name: name, lib: lib, raw: raw}) }

	row("AddRelationships, 1 object to a list of 100",
		costCall(t, libRec, libList("add", list100), func(run int) error {
			return wantOne(db.AddRelationships(ctx, subject("add", run), follows, []ryno.Key{costPerson("new")}))
		}),
		costCall(t, rawRec, rawList("add", list100), func(run int) error {
			return raw.Add(ctx, subject("add", run), follows, []ryno.Key{costPerson("new")})
		}))

	row("AddRelationships, 1 object to a list of 100 of a 3 KB subject",
		costCall(t, libRec, libListOf("addbig", list100, bigPersonAttrs()), func(run int) error {
			return wantOne(db.AddRelationships(ctx, subject("addbig", run), follows, []ryno.Key{costPerson("new")}))
		}),
		costCall(t, rawRec, rawListOf("addbig", list100, bigPersonAttrs()), func(run int) error {
			return raw.Add(ctx, subject("addbig", run), follows, []ryno.Key{costPerson("new")})
		}))

	row("RemoveRelationships, 1 object from a list of 100",
		costCall(t, libRec, libList("remove", list100), func(run int) error {
			return wantOne(db.RemoveRelationships(ctx, subject("remove", run), follows, []ryno.Key{list100[50]}))
		}),
		costCall(t, rawRec, rawList("remove", list100), func(run int) error {
			return raw.Remove(ctx, subject("remove", run), follows, []ryno.Key{list100[50]})
		}))

	// Sets: the raw side is the seed's list write, which sets replace.
	libSetOf := func(predicate, what string, list []ryno.Key) func(int) error {
		return func(run int) error {
			if _, err := seeder.Set(ctx, &ryno.Entity{Key: subject(what, run), Attributes: personAttrs()}); err != nil {
				return err
			}
			return seeder.ReplaceRelationships(ctx, subject(what, run), predicate, list)
		}
	}
	libSet := func(what string, list []ryno.Key) func(int) error { return libSetOf(costSet, what, list) }
	row("AddRelationships, 1 object to a set of 100",
		costCall(t, libRec, libSet("sadd", list100), func(run int) error {
			return wantOne(db.AddRelationships(ctx, subject("sadd", run), costSet, []ryno.Key{costPerson("new")}))
		}),
		costCall(t, rawRec, rawList("sadd", list100), func(run int) error {
			return raw.Add(ctx, subject("sadd", run), follows, []ryno.Key{costPerson("new")})
		}))
	row("RemoveRelationships, 1 object from a set of 100",
		costCall(t, libRec, libSet("sremove", list100), func(run int) error {
			return wantOne(db.RemoveRelationships(ctx, subject("sremove", run), costSet, []ryno.Key{list100[50]}))
		}),
		costCall(t, rawRec, rawList("sremove", list100), func(run int) error {
			return raw.Remove(ctx, subject("sremove", run), follows, []ryno.Key{list100[50]})
		}))
	row("ReplaceRelationships of a set of 100, changing 10",
		costCall(t, libRec, libSet("sreplace", list100), func(run int) error {
			return db.ReplaceRelationships(ctx, subject("sreplace", run), costSet, changed)
		}),
		costCall(t, rawRec, rawList("sreplace", list100), func(run int) error {
			return raw.ReplaceDiff(ctx, subject("sreplace", run), follows, changed)
		}))

	libOrdered := func(what string, list []ryno.Key) func(int) error { return libSetOf(costOrdered, what, list) }
	row("AddRelationships, 1 object to an ordered set of 100",
		costCall(t, libRec, libOrdered("oadd", list100), func(run int) error {
			return wantOne(db.AddRelationships(ctx, subject("oadd", run), costOrdered, []ryno.Key{costPerson("new")}))
		}),
		costCall(t, rawRec, rawList("oadd", list100), func(run int) error {
			return raw.Add(ctx, subject("oadd", run), follows, []ryno.Key{costPerson("new")})
		}))
	row("RemoveRelationships, 1 object from an ordered set of 100",
		costCall(t, libRec, libOrdered("oremove", list100), func(run int) error {
			return wantOne(db.RemoveRelationships(ctx, subject("oremove", run), costOrdered, []ryno.Key{list100[50]}))
		}),
		costCall(t, rawRec, rawList("oremove", list100), func(run int) error {
			return raw.Remove(ctx, subject("oremove", run), follows, []ryno.Key{list100[50]})
		}))
	row("ReplaceRelationships of an ordered set of 100, changing 10",
		costCall(t, libRec, libOrdered("oreplace", list100), func(run int) error {
			return db.ReplaceRelationships(ctx, subject("oreplace", run), costOrdered, changed)
		}),
		costCall(t, rawRec, rawList("oreplace", list100), func(run int) error {
			return raw.ReplaceDiff(ctx, subject("oreplace", run), follows, changed)
		}))

	libReplace := costCall(t, libRec, libList("replace", list100), func(run int) error {
		return db.ReplaceRelationships(ctx, subject("replace", run), follows, changed)
	})
	row("ReplaceRelationships of 100, changing 10", libReplace,
		costCall(t, rawRec, rawList("replace", list100), func(run int) error {
			return raw.ReplaceDiff(ctx, subject("replace", run), follows, changed)
		}))
	row("ReplaceRelationships of 100, changing 10; raw as the seed words it (delete all, put all)", libReplace,
		costCall(t, rawRec, rawList("replaceAll", list100), func(run int) error {
			return raw.Replace(ctx, subject("replaceAll", run), follows, changed)
		}))

	row("Set of a new entity with a 10-object list (ReplaceLists)",
		costCall(t, libRec, nil, func(run int) error {
			_, err := db.Set(ctx, &ryno.Entity{Key: subject("set", run), Attributes: personAttrs()},
				ryno.ReplaceLists(map[string][]ryno.Key{follows: list10}))
			return err
		}),
		costCall(t, rawRec, nil, func(run int) error {
			return raw.Set(ctx, subject("set", run), personAttrs(), map[string][]ryno.Key{follows: list10})
		}))

	row("Set of a new entity with a 10-object set (ReplaceLists)",
		costCall(t, libRec, nil, func(run int) error {
			_, err := db.Set(ctx, &ryno.Entity{Key: subject("sset", run), Attributes: personAttrs()},
				ryno.ReplaceLists(map[string][]ryno.Key{costSet: list10}))
			return err
		}),
		costCall(t, rawRec, nil, func(run int) error {
			return raw.Set(ctx, subject("sset", run), personAttrs(), map[string][]ryno.Key{follows: list10})
		}))

	row("Set of a new entity with a 10-object ordered set (ReplaceLists)",
		costCall(t, libRec, nil, func(run int) error {
			_, err := db.Set(ctx, &ryno.Entity{Key: subject("oset", run), Attributes: personAttrs()},
				ryno.ReplaceLists(map[string][]ryno.Key{costOrdered: list10}))
			return err
		}),
		costCall(t, rawRec, nil, func(run int) error {
			return raw.Set(ctx, subject("oset", run), personAttrs(), map[string][]ryno.Key{follows: list10})
		}))

	cites, hub := "cites", func(run int) ryno.Key { return costPost(fmt.Sprintf("hub%d", run)) }
	citing, cited := costPosts("citing", 50), costPosts("cited", 50)
	row("Delete with 50 in + 50 out edges, 3 index entries",
		costCall(t, libRec, func(run int) error {
			if _, err := seeder.Set(ctx, &ryno.Entity{Key: hub(run), Attributes: postAttrs("a", "b", "c")},
				ryno.ReplaceLists(map[string][]ryno.Key{cites: cited})); err != nil {
				return err
			}
			return costParallel(len(citing), func(i int) error {
				_, err := seeder.Set(ctx, &ryno.Entity{Key: citing[i], Attributes: postAttrs()},
					ryno.ReplaceLists(map[string][]ryno.Key{cites: {hub(run)}}))
				return err
			})
		}, func(run int) error { return db.Delete(ctx, hub(run)) }),
		costCall(t, rawRec, func(run int) error {
			if err := rawSeeder.Create(ctx, hub(run), postAttrs("a", "b", "c"), "tag", []string{"a", "b", "c"}); err != nil {
				return err
			}
			if err := rawSeeder.Replace(ctx, hub(run), cites, cited); err != nil {
				return err
			}
			return costParallel(len(citing), func(i int) error {
				return rawSeeder.Set(ctx, citing[i], postAttrs(), map[string][]ryno.Key{cites: {hub(run)}})
			})
		}, func(run int) error { return raw.Delete(ctx, hub(run)) }))

	// The same Delete where the edges are sets or ordered sets: the raw side is the
	// seed's lists, as above.
	setEdges := func(name, predicate, prefix string) {
		shub := func(run int) ryno.Key { return costPost(fmt.Sprintf("%shub%d", prefix, run)) }
		scitingOf := func(run int) []ryno.Key { return costPosts(fmt.Sprintf("%sciting%d-", prefix, run), 50) }
		row(name,
			costCall(t, libRec, func(run int) error {
				if _, err := seeder.Set(ctx, &ryno.Entity{Key: shub(run), Attributes: postAttrs("a", "b", "c")},
					ryno.ReplaceLists(map[string][]ryno.Key{predicate: cited})); err != nil {
					return err
				}
				citing := scitingOf(run)
				return costParallel(len(citing), func(i int) error {
					_, err := seeder.Set(ctx, &ryno.Entity{Key: citing[i], Attributes: postAttrs()},
						ryno.ReplaceLists(map[string][]ryno.Key{predicate: {shub(run)}}))
					return err
				})
			}, func(run int) error { return db.Delete(ctx, shub(run)) }),
			costCall(t, rawRec, func(run int) error {
				if err := rawSeeder.Create(ctx, shub(run), postAttrs("a", "b", "c"), "tag", []string{"a", "b", "c"}); err != nil {
					return err
				}
				if err := rawSeeder.Replace(ctx, shub(run), cites, cited); err != nil {
					return err
				}
				citing := scitingOf(run)
				return costParallel(len(citing), func(i int) error {
					return rawSeeder.Set(ctx, citing[i], postAttrs(), map[string][]ryno.Key{cites: {shub(run)}})
				})
			}, func(run int) error { return raw.Delete(ctx, shub(run)) }))
	}
	setEdges("Delete with 50 in + 50 out set edges, 3 index entries", costSet, "s")
	setEdges("Delete with 50 in + 50 out ordered-set edges, 3 index entries", costOrdered, "o")

	row("Create with 2 index entries",
		costCall(t, libRec, nil, func(run int) error {
			_, err := db.Create(ctx, &ryno.Entity{Key: costPost(fmt.Sprintf("new%d", run)), Attributes: postAttrs("a", "b")})
			return err
		}),
		costCall(t, rawRec, nil, func(run int) error {
			return raw.Create(ctx, costPost(fmt.Sprintf("new%d", run)), postAttrs("a", "b"), "tag", []string{"a", "b"})
		}))

	row("Create with 2 inline index values (raw: 2 index entries)",
		costCall(t, libRec, nil, func(run int) error {
			_, err := db.Create(ctx, &ryno.Entity{Key: costTicket(fmt.Sprintf("new%d", run)), Attributes: ticketAttrs()})
			return err
		}),
		costCall(t, rawRec, nil, func(run int) error {
			return raw.Create(ctx, costTicket(fmt.Sprintf("new%d", run)), ticketAttrs(), "ticket", []string{"open", "3"})
		}))

	row("Set without its version of an existing entity",
		costCall(t, libRec, func(run int) error {
			_, err := seeder.Create(ctx, &ryno.Entity{Key: subject("blind", run), Attributes: personAttrs()})
			return err
		}, func(run int) error {
			_, err := db.Set(ctx, &ryno.Entity{Key: subject("blind", run), Attributes: map[string]any{"name": "Ada", "born": 1816}})
			return err
		}),
		costCall(t, rawRec, func(run int) error {
			return rawSeeder.Put(ctx, subject("blind", run), personAttrs())
		}, func(run int) error {
			return raw.Put(ctx, subject("blind", run), map[string]any{"name": "Ada", "born": 1816})
		}))
	row("Set without its version of an existing entity with 2 index entries, 1 changed",
		costCall(t, libRec, func(run int) error {
			_, err := seeder.Create(ctx, &ryno.Entity{Key: costPost(fmt.Sprintf("blind%d", run)), Attributes: postAttrs("a", "b")})
			return err
		}, func(run int) error {
			_, err := db.Set(ctx, &ryno.Entity{Key: costPost(fmt.Sprintf("blind%d", run)), Attributes: postAttrs("a", "c")})
			return err
		}),
		costCall(t, rawRec, func(run int) error {
			return rawSeeder.Create(ctx, costPost(fmt.Sprintf("blind%d", run)), postAttrs("a", "b"), "tag", []string{"a", "b"})
		}, func(run int) error {
			return raw.SetIndexed(ctx, costPost(fmt.Sprintf("blind%d", run)), postAttrs("a", "c"), "tag", []string{"a", "c"})
		}))
	closed := func() map[string]any {
		attrs := ticketAttrs()
		attrs["status"] = "closed"
		return attrs
	}
	row("Set without its version of an existing entity with 2 inline index values, 1 changed (raw: 2 index entries)",
		costCall(t, libRec, func(run int) error {
			_, err := seeder.Create(ctx, &ryno.Entity{Key: costTicket(fmt.Sprintf("blind%d", run)), Attributes: ticketAttrs()})
			return err
		}, func(run int) error {
			_, err := db.Set(ctx, &ryno.Entity{Key: costTicket(fmt.Sprintf("blind%d", run)), Attributes: closed()})
			return err
		}),
		costCall(t, rawRec, func(run int) error {
			return rawSeeder.Create(ctx, costTicket(fmt.Sprintf("blind%d", run)), ticketAttrs(), "ticket", []string{"open", "3"})
		}, func(run int) error {
			return raw.SetIndexed(ctx, costTicket(fmt.Sprintf("blind%d", run)), closed(), "ticket", []string{"closed", "3"})
		}))
	return rows
}

// ratio formats lib / raw (lib ÷ raw).
func costRatio(lib, raw float64) string {
	if raw == 0 {
		if lib == 0 {
			return "0 / 0"
		}
		return fmt.Sprintf("%g / 0", lib)
	}
	return fmt.Sprintf("%g / %g (%.2g×)", lib, raw, lib/raw)
}

func printCostRows(w io.Writer, rows []costRow) {
	fmt.Fprintln(w, "| call | requests | rounds | WCU | RCU | WCU as DynamoDB Local reports it |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %g / %g |\n", r.name,
			costRatio(r.lib.requests, r.raw.requests), costRatio(r.lib.rounds, r.raw.rounds),
			costRatio(r.lib.wcu, r.raw.wcu), costRatio(r.lib.rcu, r.raw.rcu),
			r.lib.reportedWCU, r.raw.reportedWCU)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| call | library sends | raw sends |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %s |\n", r.name, r.lib.sent, r.raw.sent)
	}
}

// costWorkload is a workload run on both sides: call runs one call of goroutine g,
// the seq-th call of its side.
type costWorkload struct {
	name     string
	lib, raw func(g int, seq int64) error
	// after, when set, counts the positions held twice in the list the workload
	// wrote, on each side.
	after func() (lib, raw int, err error)
}

// costThroughput is what one side of a workload achieved.
type costThroughput struct {
	calls     int
	conflicts int // calls that failed with ErrConflict
	retries   int // what the calls sent again (CallReport.Retries)
	elapsed   time.Duration
	latencies []time.Duration
}

func (c *costThroughput) perSecond() float64 { return float64(c.calls) / c.elapsed.Seconds() }

func (c *costThroughput) quantile(q float64) time.Duration {
	if len(c.latencies) == 0 {
		return 0
	}
	sort.Slice(c.latencies, func(i, j int) bool { return c.latencies[i] < c.latencies[j] })
	return c.latencies[min(len(c.latencies)-1, int(q*float64(len(c.latencies))))]
}

type costWorkloadResult struct {
	name           string
	lib, raw       costThroughput
	dups           bool
	libDup, rawDup int
}

// costWorkloads runs each workload for duration a side: in slices of about a
// second, alternating which side goes first.
func costWorkloads(t *testing.T, duration time.Duration, lib, seeder *ryno.Client, libs []*ryno.Client, raw, libRaw *rawStore) []costWorkloadResult {
	follows := "follows"
	lists := costPeople("list", costWriters)
	one := costPerson("one")
	for _, k := range append(slices.Clone(lists), one) {
		if _, err := seeder.Create(ctx, &ryno.Entity{Key: k, Attributes: personAttrs()}); err != nil {
			t.Fatal(err)
		}
		if err := raw.Put(ctx, k, personAttrs()); err != nil {
			t.Fatal(err)
		}
	}
	id := func(what string, seq int64) string { return fmt.Sprintf("%s%d", what, seq) }
	var libTurns, rawTurns [costWriters]atomic.Int64 // the calls of each client so far, for clients alternating add and remove
	workloads := []costWorkload{
		{
			name: "Create, no index",
			lib: func(_ int, seq int64) error {
				_, err := lib.Create(ctx, &ryno.Entity{Key: costPerson(id("wc", seq)), Attributes: personAttrs()})
				return err
			},
			raw: func(_ int, seq int64) error {
				return raw.Create(ctx, costPerson(id("wc", seq)), personAttrs(), "", nil)
			},
		},
		{
			name: "Create, 2 index entries",
			lib: func(_ int, seq int64) error {
				_, err := lib.Create(ctx, &ryno.Entity{Key: costPost(id("wi", seq)), Attributes: postAttrs("a", id("t", seq))})
				return err
			},
			raw: func(_ int, seq int64) error {
				return raw.Create(ctx, costPost(id("wi", seq)), postAttrs("a", id("t", seq)), "tag", []string{"a", id("t", seq)})
			},
		},
		{
			name: "Create, 2 inline index values",
			lib: func(_ int, seq int64) error {
				_, err := lib.Create(ctx, &ryno.Entity{Key: costTicket(id("wt", seq)), Attributes: ticketAttrs()})
				return err
			},
			raw: func(_ int, seq int64) error {
				return raw.Create(ctx, costTicket(id("wt", seq)), ticketAttrs(), "ticket", []string{"open", "3"})
			},
		},
		{
			name: "AddRelationships, 8 writers on 8 lists",
			lib: func(g int, seq int64) error {
				_, err := lib.AddRelationships(ctx, lists[g], follows, []ryno.Key{costPerson(id("wa", seq))})
				return err
			},
			raw: func(g int, seq int64) error {
				return raw.Add(ctx, lists[g], follows, []ryno.Key{costPerson(id("wa", seq))})
			},
		},
		{
			name: "AddRelationships, 8 writers on one set",
			lib: func(_ int, seq int64) error {
				_, err := lib.AddRelationships(ctx, one, costSet, []ryno.Key{costPerson(id("ws", seq))})
				return err
			},
			raw: func(_ int, seq int64) error {
				return raw.Add(ctx, one, costSet, []ryno.Key{costPerson(id("ws", seq))})
			},
		},
		{
			name: "AddRelationships, 8 writers on one ordered set",
			lib: func(_ int, seq int64) error {
				_, err := lib.AddRelationships(ctx, one, costOrdered, []ryno.Key{costPerson(id("wc", seq))})
				return err
			},
			raw: func(_ int, seq int64) error {
				return raw.Add(ctx, one, costOrdered, []ryno.Key{costPerson(id("wc", seq))})
			},
		},
		{
			// Every call changes the list: each client appends an object of its own,
			// then removes it.
			name: "AddRelationships and RemoveRelationships, 8 clients on one list",
			lib: func(g int, _ int64) error {
				n := libTurns[g].Add(1) - 1
				object := []ryno.Key{costPerson(fmt.Sprintf("wm%d-%d", g, n/2))}
				var err error
				if n%2 == 0 {
					_, err = libs[g].AddRelationships(ctx, one, "mixed", object)
				} else {
					_, err = libs[g].RemoveRelationships(ctx, one, "mixed", object)
				}
				return err
			},
			raw: func(g int, _ int64) error {
				n := rawTurns[g].Add(1) - 1
				object := []ryno.Key{costPerson(fmt.Sprintf("wm%d-%d", g, n/2))}
				if n%2 == 0 {
					return raw.Add(ctx, one, "mixed", object)
				}
				return raw.Remove(ctx, one, "mixed", object)
			},
		},
		{
			name: "AddRelationships, 8 writers on one list",
			lib: func(_ int, seq int64) error {
				_, err := lib.AddRelationships(ctx, one, follows, []ryno.Key{costPerson(id("wo", seq))})
				return err
			},
			raw: func(_ int, seq int64) error {
				return raw.Add(ctx, one, follows, []ryno.Key{costPerson(id("wo", seq))})
			},
			after: func() (int, int, error) {
				l, err := libRaw.duplicatePositions(ctx, one, follows)
				if err != nil {
					return 0, 0, err
				}
				r, err := raw.duplicatePositions(ctx, one, follows)
				return l, r, err
			},
		},
	}
	turns := max(1, int(duration/time.Second))
	turn := duration / time.Duration(turns)
	var results []costWorkloadResult
	for _, wl := range workloads {
		res := costWorkloadResult{name: wl.name}
		var libSeq, rawSeq atomic.Int64
		for s := range turns {
			sides := []func(){
				func() {
					before := libRetries.Load()
					runSide(t, turn, wl.lib, &libSeq, &res.lib)
					res.lib.retries += int(libRetries.Load() - before)
				},
				func() { runSide(t, turn, wl.raw, &rawSeq, &res.raw) },
			}
			if s%2 == 1 {
				sides[0], sides[1] = sides[1], sides[0]
			}
			sides[0]()
			sides[1]()
		}
		if wl.after != nil {
			var err error
			res.dups = true
			if res.libDup, res.rawDup, err = wl.after(); err != nil {
				t.Fatal(err)
			}
		}
		results = append(results, res)
	}
	return results
}

// runSide runs call in costWriters goroutines for d and adds what they did to res.
func runSide(t *testing.T, d time.Duration, call func(g int, seq int64) error, seq *atomic.Int64, res *costThroughput) {
	var (
		mu       sync.Mutex
		wg       sync.WaitGroup
		firstErr error
	)
	start := time.Now()
	deadline := start.Add(d)
	for g := range costWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lat []time.Duration
			calls, conflicts := 0, 0
			for time.Now().Before(deadline) {
				t0 := time.Now()
				err := call(g, seq.Add(1))
				lat = append(lat, time.Since(t0))
				calls++
				if errors.Is(err, ryno.ErrConflict) {
					conflicts++
				} else if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
			}
			mu.Lock()
			defer mu.Unlock()
			res.calls += calls
			res.conflicts += conflicts
			res.latencies = append(res.latencies, lat...)
		}()
	}
	wg.Wait()
	res.elapsed += time.Since(start)
	if firstErr != nil {
		t.Fatal(firstErr)
	}
}

func costMs(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000) }

func printWorkloads(w io.Writer, results []costWorkloadResult) {
	fmt.Fprintln(w, "| workload | calls/s | p50 ms | p99 ms | calls failed with ErrConflict | requests sent again | positions held twice after the run |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, r := range results {
		dups := "—"
		if r.dups {
			dups = fmt.Sprintf("%d / %d", r.libDup, r.rawDup)
		}
		fmt.Fprintf(w, "| %s | %.0f / %.0f (%.2g×) | %s / %s | %s / %s | %d of %d / — | %d / — | %s |\n", r.name,
			r.lib.perSecond(), r.raw.perSecond(), r.lib.perSecond()/r.raw.perSecond(),
			costMs(r.lib.quantile(0.5)), costMs(r.raw.quantile(0.5)), costMs(r.lib.quantile(0.99)), costMs(r.raw.quantile(0.99)),
			r.lib.conflicts, r.lib.calls, r.lib.retries, dups)
	}
}
