package integration_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/creack/pty"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/cli"
	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/ryno"
)

// plantOrphans writes entries that refer to missing entities directly to the tables,
// beside valid ones written through the client, and returns what Check should report.
func plantOrphans(t *testing.T, s *store) []string {
	t.Helper()
	names := s.Names()
	for _, id := range []string{"a", "b"} {
		_, err := s.Create(ctx, &ryno.Entity{Key: pk(id), Attributes: map[string]any{"email": id + "@example.com"}})
		require.NoError(t, err)
	}
	require.NoError(t, changed(s.AddRelationships(ctx, pk("a"), "knows", []ryno.Key{pk("b")})))

	put := func(table string, item map[string]types.AttributeValue) {
		_, err := s.raw.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
		require.NoError(t, err)
	}
	gone := relationships.Entry{Subject: pk("gone"), Predicate: "knows", Object: pk("a")}
	put(names.Relationships, gone.Item())
	// An edge to an entity that does not exist, added as a list allows it.
	require.NoError(t, changed(s.AddRelationships(ctx, pk("a"), "knows", []ryno.Key{pk("nowhere")})))
	malformed := map[string]types.AttributeValue{
		"_subject_key": str("acme:person:x"), "_predicate_key": str("knows:0000000000:person:y"),
	}
	put(names.Relationships, malformed)
	stale, err := indexentries.Entry{Scope: "acme", Type: "person", ID: "ghost", IndexName: "email", Value: indexing.String("ghost@example.com")}.Item()
	require.NoError(t, err)
	put(names.IndexEntries, stale)

	return []string{
		names.Relationships + `{_predicate_key="knows:0000000000:person:a", _subject_key="acme:person:gone"}: subject acme:person:gone does not exist`,
		names.Relationships + `{_predicate_key="knows:0000000001:person:nowhere", _subject_key="acme:person:a"}: object acme:person:nowhere does not exist`,
		names.Relationships + `{_predicate_key="knows:0000000000:person:y", _subject_key="acme:person:x"}: malformed entry`,
		names.IndexEntries + `{_subject_key="acme:person:ghost", _unique_key="email:'ghost@example.com"}: entity acme:person:ghost does not exist`,
	}
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

func TestCheckFindsOrphansAndRepairRemovesThemOnly(t *testing.T) {
	s := newIndexedStore(t, nil)
	want := plantOrphans(t, s)
	names := s.Names()

	var found []string
	var progress []ryno.CheckProgress
	done, err := s.Check(ctx, ryno.CheckOptions{
		OnOrphan: func(o ryno.Orphan) { found = append(found, o.String()) },
		Progress: func(p ryno.CheckProgress) { progress = append(progress, p) },
	})
	require.NoError(t, err)
	require.ElementsMatch(t, want, found)
	require.Equal(t, ryno.CheckProgress{Relationships: 4, IndexEntries: 3, Orphans: 4}, done)
	require.Equal(t, done, progress[len(progress)-1])
	require.Equal(t, 4, entryCount(t, s.raw, names.Relationships), "without Repair nothing is deleted")

	done, err = s.Check(ctx, ryno.CheckOptions{Repair: true})
	require.NoError(t, err)
	require.Equal(t, 4, done.Repaired)

	done, err = s.Check(ctx, ryno.CheckOptions{})
	require.NoError(t, err)
	require.Equal(t, ryno.CheckProgress{Relationships: 1, IndexEntries: 2}, done, "only the orphans went")
	require.Equal(t, []ryno.Key{pk("b")}, objectsOf(t, s.Client, pk("a"), "knows", 10))
	require.Len(t, indexItems(t, s.raw, names), 2, "the entries of a and b")
}

func TestCheckInParallelSegmentsFindsTheSameOrphans(t *testing.T) {
	dynamotest.Parallel(t)
	const segments = 4
	s := newIndexedStore(t, nil)
	want := plantOrphans(t, s)
	// Entries enough to fill each segment, from subjects that do not exist.
	seedIncoming(t, s.raw, s.Names(), pks("s", 200), pk("a"))
	gate := dynamotest.NewGate(s.raw, segments) // the scans of every segment in flight at once
	checker, err := ryno.New(gate, ryno.Options{TablePrefix: s.Names().Prefix})
	require.NoError(t, err)

	var found []string
	var reports int
	done, err := checker.Check(ctx, ryno.CheckOptions{
		Segments: segments,
		OnOrphan: func(o ryno.Orphan) {
			if !strings.Contains(o.String(), "person:s") {
				found = append(found, o.String())
			}
		},
		Progress: func(ryno.CheckProgress) { reports++ },
	})
	require.NoError(t, err)
	require.True(t, gate.Opened())
	require.ElementsMatch(t, want, found)
	require.Equal(t, ryno.CheckProgress{Relationships: 204, IndexEntries: 3, Orphans: 204}, done,
		"the 200 subjects s* do not exist either")
	require.GreaterOrEqual(t, reports, segments, "a report per page of each segment")

	done, err = s.Check(ctx, ryno.CheckOptions{Segments: segments, Repair: true})
	require.NoError(t, err)
	require.Equal(t, 204, done.Repaired)
	done, err = s.Check(ctx, ryno.CheckOptions{Segments: segments})
	require.NoError(t, err)
	require.Equal(t, ryno.CheckProgress{Relationships: 1, IndexEntries: 2}, done)
}

func TestCheckRejectsABadSegmentCountWithoutARequest(t *testing.T) {
	s := newStoreWith(t, nil)
	for _, n := range []int{-1, ryno.MaxCheckSegments + 1} {
		_, err := s.Check(ctx, ryno.CheckOptions{Segments: n})
		require.ErrorIs(t, err, ryno.ErrInvalid)
	}
	require.Zero(t, s.counter.Total())
}

func TestCheckRepairKeepsTheEntriesOfAnEntityCreatedMeanwhile(t *testing.T) {
	// The object of the dangling edge a -> nowhere is created after Check has read
	// that it is missing, just before the repair is sent.
	var s *store
	var once sync.Once
	var armed atomic.Bool
	s = newStoreOpts(t, func(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
		return dynamotest.Wrap(api, func(ctx context.Context, op string, send func(context.Context) error) error {
			var err error
			if op == "TransactWriteItems" && armed.Load() {
				once.Do(func() { err = createElsewhere(ctx, s, pk("nowhere")) })
			}
			if err != nil {
				return err
			}
			return send(ctx)
		})
	}, ryno.Options{Indexes: testIndexes})
	plantOrphans(t, s)
	armed.Store(true)

	done, err := s.Check(ctx, ryno.CheckOptions{Repair: true})
	require.NoError(t, err)
	require.Equal(t, ryno.CheckProgress{Relationships: 4, IndexEntries: 3, Orphans: 4, Repaired: 3, Kept: 1}, done)
	require.Equal(t, []ryno.Key{pk("b"), pk("nowhere")}, objectsOf(t, s.Client, pk("a"), "knows", 10),
		"the edge to the entity created meanwhile is kept")

	done, err = s.Check(ctx, ryno.CheckOptions{})
	require.NoError(t, err)
	require.Equal(t, ryno.CheckProgress{Relationships: 2, IndexEntries: 2}, done)
}

// createElsewhere creates the entity k in the store's tables through another client,
// as another writer would.
func createElsewhere(ctx context.Context, s *store, k ryno.Key) error {
	other, err := ryno.New(s.raw, ryno.Options{TablePrefix: s.Names().Prefix})
	if err == nil {
		_, err = other.Create(ctx, &ryno.Entity{Key: k})
	}
	return err
}

func TestCheckCommandReportsAndRepairsOrphans(t *testing.T) {
	isolateAWS(t)
	s := newIndexedStore(t, nil)
	want := plantOrphans(t, s)
	check := func(args ...string) (string, string, int) {
		return runRyno(t, append([]string{"check", "--endpoint", dynamotest.Endpoint(), "--prefix", s.Names().Prefix}, args...)...)
	}

	out, errOut, code := check()
	require.Equal(t, cli.ExitError, code, "orphans found and not repaired")
	require.Empty(t, errOut, "no progress line when stderr is not a terminal")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, len(want)+1)
	var found []string
	for _, l := range lines[:len(want)] {
		found = append(found, strings.TrimPrefix(l, "orphan: "))
	}
	require.ElementsMatch(t, want, found)
	require.Equal(t, "checked 4 relationship and 3 index entries: 4 orphans found; run with --repair to delete them", lines[len(want)])

	out, _, code = check("--repair")
	require.Equal(t, cli.ExitOK, code)
	require.True(t, strings.HasSuffix(out, "checked 4 relationship and 3 index entries: 4 orphans found, 4 deleted\n"), out)

	out, _, code = check()
	require.Equal(t, cli.ExitOK, code)
	require.Equal(t, "checked 1 relationship and 2 index entries: no orphans\n", out)

	// --report prints what the run cost on standard error; standard output is unchanged.
	out, errOut, code = check("--report")
	require.Equal(t, cli.ExitOK, code)
	require.Equal(t, "checked 1 relationship and 2 index entries: no orphans\n", out)
	require.Regexp(t, `^report: Check: \d+ requests \(.*Scan \d+.*\) in \d+ rounds?, 0 retries, 0 throttles, 0 unprocessed, \S+\n`, errOut)
	require.Contains(t, errOut, "  capacity "+s.Names().Prefix+"_")
}

func TestCheckCommandShowsProgressOnATerminal(t *testing.T) {
	isolateAWS(t)
	s := newIndexedStore(t, nil)
	plantOrphans(t, s)
	terminal, tty, err := pty.Open()
	require.NoError(t, err)
	t.Cleanup(func() { tty.Close(); terminal.Close() })
	shown := readTerminal(terminal)

	out, code := runApp(t, nil, tty, "check", "--endpoint", dynamotest.Endpoint(), "--prefix", s.Names().Prefix)
	require.Equal(t, cli.ExitError, code)
	require.Equal(t, 5, strings.Count(out, "\n"), "the orphans and the summary go to standard output")
	const clear = "\r\x1b[K"
	want := clear + "checked 4 relationship and 0 index entries: 3 orphans found; run with --repair to delete them" +
		clear + // before the orphan of the next page is listed
		clear + "checked 4 relationship and 3 index entries: 4 orphans found; run with --repair to delete them" +
		clear
	require.Equal(t, want, shown(len(want)), "a line per page, cleared before each orphan listed and at the end")
}

func TestCheckCommandReportsAndFinishesTracesOfWritesCutOff(t *testing.T) {
	isolateAWS(t)
	s := newStoreWith(t, nil)
	gone := pk("gone")
	createSubjects(t, s.Client, gone, pk("a"))
	require.NoError(t, s.ReplaceRelationships(ctx, gone, "follows", []ryno.Key{pk("a")}))
	cut := newFaultyClient(t, s, ryno.Options{Retry: ryno.RetryOptions{MaxAttempts: 1}})
	cut.faults.FailAfter("TransactWriteItems", 0, func() error { return errInjected })
	require.ErrorIs(t, cut.db.Delete(ctx, gone), errInjected, "the tombstone lands, the sweep does not")
	check := func(args ...string) (string, int) {
		out, _, code := runRyno(t, append([]string{"check", "--endpoint", dynamotest.Endpoint(), "--prefix", s.Names().Prefix}, args...)...)
		return out, code
	}

	out, code := check()
	require.Equal(t, cli.ExitError, code, "a trace found and left")
	require.Contains(t, out, "trace: delete acme:person:gone: being deleted")
	require.Contains(t, out, "1 trace of writes cut off found (--repair finishes them)")

	out, code = check("--repair")
	require.Equal(t, cli.ExitOK, code, out)
	require.Contains(t, out, "1 trace of writes cut off found, 1 finished")
	requireNothingOf(t, s, gone, true)

	out, code = check()
	require.Equal(t, cli.ExitOK, code)
	require.Equal(t, "checked 0 relationship and 0 index entries: no orphans\n", out)
}

// TestCheckWhileWritersChangeAListReportsNothing runs check, ten times, while
// writers of other processes keep adding to and removing from one list: a list at
// work is not a trace, however its reads interleave with the writes, and each
// check returns.
func TestCheckWhileWritersChangeAListReportsNothing(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreWith(t, nil)
	hub := pk("hub")
	objects := pks("o", 40)
	createSubjects(t, s.Client, append([]ryno.Key{hub}, objects...)...)
	require.NoError(t, s.ReplaceRelationships(ctx, hub, "follows", objects[:20]))

	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for w := range errs {
		db := newClientOn(t, s, ryno.Options{})
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				object := []ryno.Key{objects[(w*10+i)%len(objects)]}
				var err error
				if i%2 == 0 {
					_, err = db.AddRelationships(ctx, hub, "follows", object)
				} else {
					_, err = db.RemoveRelationships(ctx, hub, "follows", object)
				}
				if err != nil && !errors.Is(err, ryno.ErrConflict) {
					errs[w] = err
					return
				}
			}
		})
	}
	for range 10 {
		var traces []ryno.Trace
		done, err := s.Check(ctx, ryno.CheckOptions{OnTrace: func(tr ryno.Trace) { traces = append(traces, tr) }})
		require.NoError(t, err)
		require.Zero(t, done.Orphans)
		require.Empty(t, traces, "a list at work is not a trace")
	}
	close(stop)
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	requireListExact(t, s, hub, "follows")
}

// TestCheckRepairDeletesAnOrphanEntryMissingFromTheReverseIndex plants an entry
// to a missing object that a writer of schema version 2 wrote, without its
// _reverse_key: the sweep of its object, which reads the reverse index, cannot
// find it. The repair indexes it first, deletes it with the list kept exact, and
// counts it repaired only then.
func TestCheckRepairDeletesAnOrphanEntryMissingFromTheReverseIndex(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{})
	fan, star, other := pk("fan"), pk("star"), pk("other")
	createSubjects(t, s.Client, fan, star, other)
	_, err := s.AddRelationships(ctx, fan, "follows", []ryno.Key{other, star})
	require.NoError(t, err)
	stripReverseKeys(t, s.raw, s.Names(), fan)
	_, err = s.raw.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.Names().Entities), Key: entityKeyItem(star)})
	require.NoError(t, err)

	done, err := s.Check(ctx, ryno.CheckOptions{Repair: true})
	require.NoError(t, err)
	require.Equal(t, 1, done.Orphans, "%+v", done)
	require.Equal(t, 1, done.Repaired, "%+v", done)
	require.Equal(t, []ryno.Key{other}, objectsOf(t, s.Client, fan, "follows", 10), "the entry to star is gone")
	requireListExact(t, s, fan, "follows")

	done, err = s.Check(ctx, ryno.CheckOptions{})
	require.NoError(t, err)
	require.Zero(t, done.Orphans, "%+v", done)
}

// laggingReverse answers the reverse index's Queries with nothing while lagging,
// as a GSI that has not caught up with a write yet does on AWS.
type laggingReverse struct {
	ryno.DynamoDBAPI
	index string
	lag   atomic.Bool
}

func (l *laggingReverse) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if l.lag.Load() && aws.ToString(in.IndexName) == l.index {
		return &dynamodb.QueryOutput{}, nil
	}
	return l.DynamoDBAPI.Query(ctx, in, opts...)
}

// TestCheckRepairCountsAnOrphanItsSweepMissedAsLeft plants the unindexed orphan of
// the test above, and repairs while the reverse index lags behind the key the
// repair writes: the sweep misses the entry, which is neither repaired nor kept
// (so the CLI exits 1), and the next repair deletes it.
func TestCheckRepairCountsAnOrphanItsSweepMissedAsLeft(t *testing.T) {
	lagging := &laggingReverse{}
	s := newStoreOpts(t, func(api ryno.DynamoDBAPI) ryno.DynamoDBAPI { lagging.DynamoDBAPI = api; return lagging }, ryno.Options{})
	lagging.index = s.Names().ReverseRelationships
	fan, star := pk("fan"), pk("star")
	createSubjects(t, s.Client, fan, star)
	_, err := s.AddRelationships(ctx, fan, "follows", []ryno.Key{star})
	require.NoError(t, err)
	stripReverseKeys(t, s.raw, s.Names(), fan)
	_, err = s.raw.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.Names().Entities), Key: entityKeyItem(star)})
	require.NoError(t, err)

	lagging.lag.Store(true)
	done, err := s.Check(ctx, ryno.CheckOptions{Repair: true})
	lagging.lag.Store(false)
	require.NoError(t, err)
	require.Equal(t, 1, done.Orphans, "%+v", done)
	require.Zero(t, done.Repaired+done.Kept, "the entry is still there, and its entity is not: %+v", done)
	require.Equal(t, []ryno.Key{star}, objectsOf(t, s.Client, fan, "follows", 10))

	done, err = s.Check(ctx, ryno.CheckOptions{Repair: true})
	require.NoError(t, err)
	require.Equal(t, 1, done.Repaired, "%+v", done)
	require.Empty(t, objectsOf(t, s.Client, fan, "follows", 10))
}

// TestCheckLeavesAReindexAtWorkAlone holds a Reindex of an entity too large for
// one transaction after it marked the entity and wrote its entries, an hour after
// the entity was written, and checks meanwhile: the mark is the Reindex's, fresh,
// not the trace of a write cut off.
func TestCheckLeavesAReindexAtWorkAlone(t *testing.T) {
	dynamotest.Parallel(t)
	clk := newManualClock()
	tags := func(prefix string) func(e *ryno.Entity, emit func(indexing.Value)) {
		return func(e *ryno.Entity, emit func(indexing.Value)) {
			tags, _ := e.Attributes["tags"].([]any)
			for _, tag := range tags {
				emit(indexing.String(fmt.Sprint(prefix, tag)))
			}
		}
	}
	v1 := []ryno.Index{{Type: "post", Name: "tag", Map: tags("a")}}
	v2 := []ryno.Index{{Type: "post", Name: "tag", Map: tags("b")}}
	s := newStoreOpts(t, nil, ryno.Options{Indexes: v1, Now: clk.Now, ListLease: testLease})
	post := ryno.Key{Scope: "acme", Type: "post", ID: "big"}
	var many []string
	for i := range 120 {
		many = append(many, fmt.Sprintf("t%03d", i))
	}
	_, err := s.Create(ctx, &ryno.Entity{Key: post, Attributes: map[string]any{"tags": many}})
	require.NoError(t, err)
	clk.Advance(time.Hour)

	held := newHeldRequest("UpdateItem") // the Reindex's clearing of its mark
	r := mustNew(t, held.wrap(s.raw), s.Names().Prefix, v2, ryno.Options{Now: clk.Now, ListLease: testLease})
	held.armed.Store(true)
	reindex := background(func() error {
		_, err := r.Reindex(ctx, ryno.Type{Scope: "acme", Name: "post"}, nil)
		return err
	})
	wait(t, held.held, "the Reindex's clearing of its mark")
	checker := newClientOn(t, s, ryno.Options{Indexes: v2, Now: clk.Now, ListLease: testLease})
	var traces []ryno.Trace
	_, err = checker.Check(ctx, ryno.CheckOptions{OnTrace: func(tr ryno.Trace) { traces = append(traces, tr) }})
	require.NoError(t, err)
	require.Empty(t, traces, "the mark is the Reindex's, put a moment ago")
	close(held.release)
	require.NoError(t, result(t, reindex, "the Reindex"))

	clk.Advance(time.Hour)
	done, err := checker.Check(ctx, ryno.CheckOptions{})
	require.NoError(t, err)
	require.Zero(t, done.Traces, "the Reindex cleared its mark")
}
