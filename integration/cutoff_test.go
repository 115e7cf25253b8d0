package integration_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/ryno"
)

// These tests cut a writer off between two of its requests, as a process killed
// mid-call is, and check that the next writer, or Check with Repair, finishes what
// it left: nobody plans against bookkeeping a crash left half-written.

const testLease = 30 * time.Second

// cutList is a store with a list of old entries, a clock that stands still, and a
// client whose requests fail after a given number of transactions, one chunk at a
// time.
type cutList struct {
	s       *store
	subject ryno.Key
	clk     *manualClock
	cut     faultyClient
	old     []ryno.Key
}

func newCutList(t *testing.T, old int, opts ryno.Options) *cutList {
	t.Helper()
	s, subject := listStore(t, ryno.Options{})
	c := &cutList{s: s, subject: subject, clk: newManualClock(), old: pks("old", old)}
	if old > 0 {
		require.NoError(t, s.ReplaceRelationships(ctx, subject, "follows", c.old))
	}
	opts.ListLease, opts.MaxConcurrency, opts.Now = testLease, 1, c.clk.Now
	opts.Retry = ryno.RetryOptions{MaxAttempts: 1}
	c.cut = newFaultyClient(t, s, opts)
	return c
}

// cutAfter makes the cut client fail every transaction after the first n.
func (c *cutList) cutAfter(n int) {
	c.cut.faults.FailAfter("TransactWriteItems", n, func() error { return errInjected })
}

// next returns a client that comes once the cut writer's lease expired.
func (c *cutList) next(t *testing.T) *ryno.Client {
	t.Helper()
	c.clk.Advance(testLease + time.Millisecond)
	return newClientOn(t, c.s, ryno.Options{ListLease: testLease, Now: c.clk.Now})
}

func (c *cutList) entries(t *testing.T) int {
	t.Helper()
	_, _, entries := listItems(t, c.s, c.subject, "follows")
	return len(entries)
}

func TestAnAddAfterALargeAddCutOffFinishesItFirst(t *testing.T) {
	dynamotest.Parallel(t)
	c := newCutList(t, 60, ryno.Options{})
	added := pks("new", 200)
	c.cutAfter(3) // the lease, the intent, the first chunk of entries
	_, err := c.cut.db.AddRelationships(ctx, c.subject, "follows", added)
	require.ErrorIs(t, err, errInjected)
	require.Equal(t, 60+98, c.entries(t), "cut off half-way")

	next := c.next(t)
	got, err := next.AddRelationships(ctx, c.subject, "follows", []ryno.Key{pk("late")})
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{pk("late")}, got)
	want := slices.Concat(c.old, added, []ryno.Key{pk("late")})
	require.Equal(t, want, objectsOf(t, c.s.Client, c.subject, "follows", 100), "the cut Add is finished, then late appended")
	requireListExact(t, c.s, c.subject, "follows")
	n, err := next.CountRelationships(ctx, c.subject, "follows")
	require.NoError(t, err)
	require.Equal(t, len(want), n)
}

func TestAnObjectWhoseMarkerLandedWithoutItsEntryIsNotSkipped(t *testing.T) {
	s, subject := listStore(t, ryno.Options{})
	clk := newManualClock()
	old := pks("old", 60)
	require.NoError(t, s.ReplaceRelationships(ctx, subject, "follows", old))
	// Of the two chunks of an Add of 80, the one with the entries fails once the
	// one holding only markers has landed.
	api := &markersFirst{DynamoDBAPI: s.raw, landed: make(chan struct{})}
	cut := mustNew(t, api, s.Names().Prefix, nil, ryno.Options{ListLease: testLease, Now: clk.Now, Retry: ryno.RetryOptions{MaxAttempts: 1}})
	added := pks("new", 80)
	_, err := cut.AddRelationships(ctx, subject, "follows", added)
	require.ErrorIs(t, err, errInjected)
	head, markers, entries := listItems(t, s, subject, "follows")
	require.Contains(t, head, "_lease")
	require.Len(t, entries, 60, "no entry landed")
	require.Greater(t, len(markers), 60, "markers landed")

	clk.Advance(testLease + time.Millisecond)
	next := newClientOn(t, s, ryno.Options{ListLease: testLease, Now: clk.Now})
	x := added[79] // its marker landed
	got, err := next.AddRelationships(ctx, subject, "follows", []ryno.Key{x})
	require.NoError(t, err)
	require.Empty(t, got, "x is in the list: the cut Add is finished first")
	has, err := next.HasRelationship(ctx, subject, "follows", x)
	require.NoError(t, err)
	require.True(t, has)
	require.Equal(t, slices.Concat(old, added), objectsOf(t, s.Client, subject, "follows", 100))
	requireListExact(t, s, subject, "follows")
}

// markersFirst fails every transaction that puts relationship entries, once a
// transaction putting only markers has landed.
type markersFirst struct {
	ryno.DynamoDBAPI
	landed chan struct{}
	once   sync.Once
}

func (m *markersFirst) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	entries, markers := 0, 0
	for _, act := range in.TransactItems {
		switch {
		case act.Put == nil:
		case act.Put.Item[schema.AttrObjectKey] != nil:
			entries++
		case act.Put.Item[schema.AttrPositions] != nil:
			markers++
		}
	}
	if entries > 0 && markers > 0 {
		select {
		case <-m.landed:
		case <-time.After(10 * time.Second):
		}
		return nil, errInjected
	}
	out, err := m.DynamoDBAPI.TransactWriteItems(ctx, in, opts...)
	if err == nil && markers > 0 {
		m.once.Do(func() { close(m.landed) })
	}
	return out, err
}

func TestSmallWritesAfterALargeAddCutOffSucceed(t *testing.T) {
	dynamotest.Parallel(t)
	for _, small := range []string{"replace", "set"} {
		t.Run(small, func(t *testing.T) {
			c := newCutList(t, 60, ryno.Options{})
			c.cutAfter(3)
			_, err := c.cut.db.AddRelationships(ctx, c.subject, "follows", pks("new", 200))
			require.ErrorIs(t, err, errInjected)

			// The list as a reader sees it, and one more: a small change.
			next := c.next(t)
			want := append(objectsOf(t, c.s.Client, c.subject, "follows", 100), pk("late"))
			switch small {
			case "replace":
				require.NoError(t, next.ReplaceRelationships(ctx, c.subject, "follows", want))
			case "set":
				_, err = next.Set(ctx, &ryno.Entity{Key: c.subject}, ryno.ReplaceLists(map[string][]ryno.Key{"follows": want}))
				require.NoError(t, err)
			}
			require.Equal(t, want, objectsOf(t, c.s.Client, c.subject, "follows", 100))
			requireListExact(t, c.s, c.subject, "follows")
			n, err := next.CountRelationships(ctx, c.subject, "follows")
			require.NoError(t, err)
			require.Equal(t, len(want), n)
		})
	}
}

func TestAReplaceCutOffIsFinishedByTheNextSmallWrite(t *testing.T) {
	dynamotest.Parallel(t)
	c := newCutList(t, 300, ryno.Options{})
	replacement := pks("new", 300)
	c.cutAfter(4) // the lease, the intent, two chunks of entries
	err := c.cut.db.ReplaceRelationships(ctx, c.subject, "follows", replacement)
	require.ErrorIs(t, err, errInjected)
	mixed := objectsOf(t, c.s.Client, c.subject, "follows", 100)
	require.NotEqual(t, c.old, mixed, "cut off half-way")
	require.NotEqual(t, replacement, mixed, "cut off half-way")

	next := c.next(t)
	_, err = next.AddRelationships(ctx, c.subject, "follows", []ryno.Key{pk("late")})
	require.NoError(t, err)
	require.Equal(t, append(slices.Clone(replacement), pk("late")), objectsOf(t, c.s.Client, c.subject, "follows", 100))
	requireListExact(t, c.s, c.subject, "follows")
}

func TestALargeAddRetriedAfterItsEntriesLandedLeavesExactBookkeeping(t *testing.T) {
	c := newCutList(t, 0, ryno.Options{})
	added := pks("new", 200)
	c.cutAfter(2 + 5) // the lease, the intent, five chunks: all but the release
	_, err := c.cut.db.AddRelationships(ctx, c.subject, "follows", added)
	require.ErrorIs(t, err, errInjected)
	require.Equal(t, 200, c.entries(t))

	next := c.next(t)
	got, err := next.AddRelationships(ctx, c.subject, "follows", added)
	require.NoError(t, err)
	require.Empty(t, got, "the first Add is finished: nothing is left to add")
	require.Equal(t, added, objectsOf(t, c.s.Client, c.subject, "follows", 100))
	requireListExact(t, c.s, c.subject, "follows")
}

func TestAWriterCutOffBeforeItsIntentWasWholeLeavesTheListAsItWas(t *testing.T) {
	c := newCutList(t, 60, ryno.Options{})
	c.cutAfter(1) // the lease only
	_, err := c.cut.db.AddRelationships(ctx, c.subject, "follows", pks("new", 200))
	require.ErrorIs(t, err, errInjected)

	next := c.next(t)
	got, err := next.AddRelationships(ctx, c.subject, "follows", []ryno.Key{pk("late")})
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{pk("late")}, got)
	require.Equal(t, append(slices.Clone(c.old), pk("late")), objectsOf(t, c.s.Client, c.subject, "follows", 100))
	requireListExact(t, c.s, c.subject, "follows")
}

func TestAListWriteToAMissingSubjectReportsNothingChanged(t *testing.T) {
	s := newStoreWith(t, nil)
	added, err := s.AddRelationships(ctx, pk("nobody"), "follows", []ryno.Key{pk("a")})
	require.ErrorIs(t, err, ryno.ErrNotFound)
	require.Nil(t, added)
	removed, err := s.RemoveRelationships(ctx, pk("nobody"), "follows", []ryno.Key{pk("a")})
	require.ErrorIs(t, err, ryno.ErrNotFound)
	require.Nil(t, removed)
}

func TestAddingOrRemovingNoObjectsSendsNoRequest(t *testing.T) {
	s := newStoreWith(t, nil)
	createSubjects(t, s.Client, pk("a"))
	s.counter.Reset()
	added, err := s.AddRelationships(ctx, pk("a"), "follows", nil)
	require.NoError(t, err)
	require.Empty(t, added)
	removed, err := s.RemoveRelationships(ctx, pk("a"), "follows", []ryno.Key{})
	require.NoError(t, err)
	require.Empty(t, removed)
	require.Zero(t, s.counter.Total())
}

func TestRepairOfAnOrphanEdgeKeepsTheListExact(t *testing.T) {
	s := newStoreWith(t, nil)
	createSubjects(t, s.Client, pk("s"))
	added, err := s.AddRelationships(ctx, pk("s"), "follows", []ryno.Key{pk("x")}) // x does not exist
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{pk("x")}, added)

	done, err := s.Check(ctx, ryno.CheckOptions{Repair: true})
	require.NoError(t, err)
	require.Equal(t, 1, done.Orphans)
	require.Equal(t, 1, done.Repaired)
	requireListExact(t, s, pk("s"), "follows")

	createSubjects(t, s.Client, pk("x"))
	added, err = s.AddRelationships(ctx, pk("s"), "follows", []ryno.Key{pk("x")})
	require.NoError(t, err)
	require.Equal(t, []ryno.Key{pk("x")}, added, "x is added again")
	has, err := s.HasRelationship(ctx, pk("s"), "follows", pk("x"))
	require.NoError(t, err)
	require.True(t, has)
	require.NoError(t, s.ReplaceRelationships(ctx, pk("s"), "follows", []ryno.Key{pk("x"), pk("x")}))
	require.Equal(t, []ryno.Key{pk("x"), pk("x")}, objectsOf(t, s.Client, pk("s"), "follows", 10))
	requireListExact(t, s, pk("s"), "follows")
}

func TestCheckFindsADeleteCutOffAndRepairCompletesIt(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreWith(t, nil)
	clk := newManualClock()
	gone := pk("gone")
	fans := pks("fan", 150)
	createSubjects(t, s.Client, append([]ryno.Key{gone}, fans...)...)
	require.NoError(t, s.ReplaceRelationships(ctx, gone, "follows", fans))
	for _, f := range fans {
		require.NoError(t, changed(s.AddRelationships(ctx, f, "follows", []ryno.Key{gone})))
	}
	cut := newFaultyClient(t, s, ryno.Options{MaxConcurrency: 1, Retry: ryno.RetryOptions{MaxAttempts: 1}, Now: clk.Now})
	cut.faults.FailAfter("TransactWriteItems", 1, func() error { return errInjected })
	require.ErrorIs(t, cut.db.Delete(ctx, gone), errInjected)
	_, err := s.Get(ctx, gone)
	require.ErrorIs(t, err, ryno.ErrNotFound, "a Delete under way reads as done")
	require.NotEmpty(t, subjectsPointingAt(t, s.Client, gone), "cut off before it swept everything")

	var traces []ryno.Trace
	done, err := s.Check(ctx, ryno.CheckOptions{OnTrace: func(tr ryno.Trace) { traces = append(traces, tr) }})
	require.NoError(t, err)
	require.Len(t, traces, 1)
	require.Equal(t, ryno.TraceDelete, traces[0].Kind)
	require.Equal(t, gone, traces[0].Key)
	require.Positive(t, done.Orphans, "what points at it is reported too")

	done, err = s.Check(ctx, ryno.CheckOptions{Repair: true})
	require.NoError(t, err)
	require.Equal(t, 1, done.Finished)
	requireNothingOf(t, s, gone, true)
	for _, f := range fans[:10] {
		requireListExact(t, s, f, "follows")
	}
	done, err = s.Check(ctx, ryno.CheckOptions{})
	require.NoError(t, err)
	require.Zero(t, done.Orphans+done.Traces, "nothing is left")
}

// slugIndexes index documents by a unique slug and by their tags.
var slugIndexes = []ryno.Index{
	{Type: "doc", Name: "slug", Map: emitSlug, Unique: true},
	{Type: "doc", Name: "doc-tag", Map: emitTags},
}

func emitSlug(e *ryno.Entity, emit func(indexing.Value)) {
	if s, ok := e.Attributes["slug"].(string); ok {
		emit(indexing.String(s))
	}
}

func doc(id, slug string, tags int) *ryno.Entity {
	t := make([]any, tags)
	for i := range t {
		t[i] = fmt.Sprintf("%s-tag%03d", slug, i)
	}
	return &ryno.Entity{Key: ryno.Key{Scope: "acme", Type: "doc", ID: id}, Attributes: map[string]any{"slug": slug, "tags": t}}
}

func TestAWriteCutOffReleasesTheValueItClaimedToTheNextWriter(t *testing.T) {
	t.Run("the next write takes a third value", func(t *testing.T) { writeAfterACutOffWrite(t, "third") })
	// The cut write released "first" with its put, though the entry of "first" is
	// still stored: the next writer must claim it again.
	t.Run("the next write takes the value back", func(t *testing.T) { writeAfterACutOffWrite(t, "first") })
}

// writeAfterACutOffWrite cuts off a write changing a document's unique slug from
// "first" to "second" after its put, then writes the slug next: the value the cut
// write claimed is free, and next is the document's alone.
func writeAfterACutOffWrite(t *testing.T, next string) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: slugIndexes})
	clk := newManualClock()
	_, err := s.Set(ctx, doc("d", "first", 1))
	require.NoError(t, err)

	// A write of more than 99 index entry changes puts the entity with a pending
	// mark and its claims, then writes the entries: cut off after the put.
	cut := newFaultyClient(t, s, ryno.Options{Indexes: slugIndexes, MaxConcurrency: 1, Retry: ryno.RetryOptions{MaxAttempts: 1}, Now: clk.Now})
	read, err := cut.db.Get(ctx, doc("d", "", 0).Key)
	require.NoError(t, err)
	second := doc("d", "second", 150)
	read.Attributes = second.Attributes // written over the version read: one attempt
	cut.faults.FailAfter("TransactWriteItems", 1, func() error { return errInjected })
	_, err = cut.db.Set(ctx, read)
	require.ErrorIs(t, err, errInjected)
	got, err := s.Get(ctx, read.Key)
	require.NoError(t, err)
	require.Equal(t, "second", got.Attributes["slug"], "the entity was put, with its claim, before the cut")

	_, err = s.Set(ctx, doc("d", next, 1))
	require.NoError(t, err)
	_, err = s.Create(ctx, doc("other", "second", 1))
	require.NoError(t, err, "the value the cut write claimed is free again")
	_, err = s.Create(ctx, doc("another", next, 1))
	var taken *ryno.UniqueError
	require.ErrorAs(t, err, &taken, "the document holds %q", next)
	requireClaimsExact(t, s)
	requireIndexExact(t, s)
}

// TestATransactionMeetingAWriteCutOffFinishesIt cuts off a large write (150 index
// entries down to 2) after its put, then writes the entity in a transaction: the
// transaction finishes the cut write's index entries, as every writer meeting its
// mark does, and commits.
func TestATransactionMeetingAWriteCutOffFinishesIt(t *testing.T) {
	dynamotest.Parallel(t)
	ops := map[string]func(k ryno.Key) ryno.Op{
		"TxPatch":  func(k ryno.Key) ryno.Op { return ryno.TxPatch(k, ryno.Patch{Set: map[string]any{"title": "patched"}}) },
		"TxSet":    func(k ryno.Key) ryno.Op { return ryno.TxSet(doc("d", "third", 1)) },
		"TxDelete": func(k ryno.Key) ryno.Op { return ryno.TxDelete(k) },
	}
	for name, op := range ops {
		t.Run(name, func(t *testing.T) {
			s := newStoreOpts(t, nil, ryno.Options{Indexes: slugIndexes})
			_, err := s.Set(ctx, doc("d", "first", 150))
			require.NoError(t, err)
			cut := newFaultyClient(t, s, ryno.Options{Indexes: slugIndexes, MaxConcurrency: 1, Retry: ryno.RetryOptions{MaxAttempts: 1}})
			cut.faults.FailAfter("TransactWriteItems", 1, func() error { return errInjected })
			_, err = cut.db.Set(ctx, doc("d", "second", 1))
			require.ErrorIs(t, err, errInjected)

			_, err = s.Transact(ctx, op(doc("d", "", 0).Key))
			require.NoError(t, err)
			requireClaimsExact(t, s)
			requireIndexExact(t, s)
		})
	}
}

func TestADeleteAfterAWriteCutOffReleasesTheValueItClaimed(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: slugIndexes})
	clk := newManualClock()
	cut := newFaultyClient(t, s, ryno.Options{Indexes: slugIndexes, MaxConcurrency: 1, Retry: ryno.RetryOptions{MaxAttempts: 1}, Now: clk.Now})
	cut.faults.FailAfter("TransactWriteItems", 1, func() error { return errInjected })
	_, err := cut.db.Set(ctx, doc("d", "taken", 150))
	require.ErrorIs(t, err, errInjected)

	require.NoError(t, s.Delete(ctx, doc("d", "", 0).Key))
	_, err = s.Create(ctx, doc("other", "taken", 1))
	require.NoError(t, err, "the value of the deleted entity is free")
	requireClaimsExact(t, s)
	requireIndexExact(t, s)
}

func TestCheckFinishesAWriteCutOffThatOnlyListWritesMet(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: slugIndexes})
	clk := newManualClock()
	d := doc("d", "first", 150)
	cut := newFaultyClient(t, s, ryno.Options{Indexes: slugIndexes, MaxConcurrency: 1, Retry: ryno.RetryOptions{MaxAttempts: 1}, Now: clk.Now})
	cut.faults.FailAfter("TransactWriteItems", 2, func() error { return errInjected })
	_, err := cut.db.Set(ctx, d)
	require.ErrorIs(t, err, errInjected)
	// The next writer only writes the entity's lists.
	createSubjects(t, s.Client, pk("a"))
	require.NoError(t, changed(s.AddRelationships(ctx, d.Key, "links", []ryno.Key{pk("a")})))

	checker := newClientOn(t, s, ryno.Options{Indexes: slugIndexes, ListLease: testLease, Now: clk.Now})
	var traces []ryno.Trace
	done, err := checker.Check(ctx, ryno.CheckOptions{OnTrace: func(tr ryno.Trace) { traces = append(traces, tr) }})
	require.NoError(t, err)
	require.Zero(t, done.Traces, "a mark younger than the lease is a writer at work")

	clk.Advance(testLease)
	done, err = checker.Check(ctx, ryno.CheckOptions{OnTrace: func(tr ryno.Trace) { traces = append(traces, tr) }})
	require.NoError(t, err)
	require.Equal(t, 1, done.Traces)
	require.Equal(t, ryno.TraceWrite, traces[0].Kind)
	require.Equal(t, d.Key, traces[0].Key)

	// A client without the type's indexes reports it and leaves it.
	plain := newClientOn(t, s, ryno.Options{ListLease: testLease, Now: clk.Now})
	done, err = plain.Check(ctx, ryno.CheckOptions{Repair: true})
	require.NoError(t, err)
	require.Equal(t, ryno.CheckProgress{Relationships: 1, Traces: 1}, withoutIndexCount(done))

	done, err = checker.Check(ctx, ryno.CheckOptions{Repair: true})
	require.NoError(t, err)
	require.Equal(t, 1, done.Finished)
	requireIndexExact(t, s)
	requireClaimsExact(t, s)
	items := entityItems(t, s.raw, s.Names())
	require.NotContains(t, items[d.Key.String()], schema.AttrPending, "the mark is gone")
}

// TestAnApplicationsOwnCheckRepairFinishesAWriteCutOff cuts a large write off, then
// runs the application's own `ryno check --repair`, built with its indexes: the
// write is finished and the command exits 0. The cut write's clock is months behind,
// so its mark is older than the lease by the command's.
func TestAnApplicationsOwnCheckRepairFinishesAWriteCutOff(t *testing.T) {
	isolateAWS(t)
	s := newStoreOpts(t, nil, ryno.Options{Indexes: slugIndexes})
	d := doc("d", "first", 150)
	cut := newFaultyClient(t, s, ryno.Options{Indexes: slugIndexes, MaxConcurrency: 1, Retry: ryno.RetryOptions{MaxAttempts: 1}, Now: newManualClock().Now})
	cut.faults.FailAfter("TransactWriteItems", 2, func() error { return errInjected })
	_, err := cut.db.Set(ctx, d)
	require.ErrorIs(t, err, errInjected)

	var errOut bytes.Buffer
	out, code := runApp(t, slugIndexes, &errOut, "check", "--repair", "--endpoint", dynamotest.Endpoint(), "--prefix", s.Names().Prefix)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, errOut.String())
	requireIndexExact(t, s)
	requireClaimsExact(t, s)
	require.NotContains(t, entityItems(t, s.raw, s.Names())[d.Key.String()], schema.AttrPending, "the mark is gone")
}

func withoutIndexCount(p ryno.CheckProgress) ryno.CheckProgress {
	p.IndexEntries = 0
	return p
}

// damage changes the raw tables of s as a writer of an earlier version, or a
// process cut off, might have left them.
type damage struct {
	t *testing.T
	s *store
}

func (d damage) putEntry(e relationships.Entry) {
	_, err := d.s.raw.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(d.s.Names().Relationships), Item: e.Item()})
	require.NoError(d.t, err)
}

func (d damage) deleteMarker(subject ryno.Key, predicate string, object ryno.Key) {
	_, err := d.s.raw.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(d.s.Names().Relationships),
		Key: relationships.MarkerPrimaryKey(subject, predicate, object)})
	require.NoError(d.t, err)
}

func (d damage) setCount(subject ryno.Key, predicate string, n int) {
	_, err := d.s.raw.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(d.s.Names().Relationships),
		Key:                       relationships.HeadPrimaryKey(subject, predicate),
		UpdateExpression:          aws.String("SET #c = :n"),
		ExpressionAttributeNames:  map[string]string{"#c": schema.AttrCount},
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: fmt.Sprint(n)}}})
	require.NoError(d.t, err)
}

// setHead sets attribute name of the head of subject's list to av.
func (d damage) setHead(subject ryno.Key, predicate, name string, av types.AttributeValue) {
	_, err := d.s.raw.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(d.s.Names().Relationships),
		Key:                       relationships.HeadPrimaryKey(subject, predicate),
		UpdateExpression:          aws.String("SET #a = :v"),
		ExpressionAttributeNames:  map[string]string{"#a": name},
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": av}})
	require.NoError(d.t, err)
}

// takeLease takes the lease of subject's list, until until, as a writer does: its
// version moves.
func (d damage) takeLease(subject ryno.Key, predicate string, until time.Time) {
	_, err := d.s.raw.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(d.s.Names().Relationships),
		Key:                      relationships.HeadPrimaryKey(subject, predicate),
		UpdateExpression:         aws.String("SET #l = :l, #u = :u ADD #v :one"),
		ExpressionAttributeNames: map[string]string{"#l": schema.AttrLease, "#u": schema.AttrLeaseUntil, "#v": schema.AttrVersion},
		ExpressionAttributeValues: map[string]types.AttributeValue{":l": &types.AttributeValueMemberS{Value: "app-writer"},
			":u": &types.AttributeValueMemberN{Value: fmt.Sprint(until.UnixMilli())}, ":one": &types.AttributeValueMemberN{Value: "1"}}})
	require.NoError(d.t, err)
}

func entryAt(subject ryno.Key, predicate string, i int, object ryno.Key) relationships.Entry {
	return relationships.Entry{Subject: subject, Predicate: predicate, Index: i, Object: object}
}

func TestCheckRebuildsAListWhoseBookkeepingDisagreesWithItsEntries(t *testing.T) {
	s := newStoreWith(t, nil)
	hub := pk("hub")
	createSubjects(t, s.Client, hub, pk("a"), pk("b"), pk("c"), pk("d"))
	require.NoError(t, s.ReplaceRelationships(ctx, hub, "follows", []ryno.Key{pk("a"), pk("b"), pk("c")}))
	d := damage{t, s}
	d.putEntry(entryAt(hub, "follows", 1, pk("d"))) // a position held twice
	d.deleteMarker(hub, "follows", pk("a"))
	d.setCount(hub, "follows", 7)

	var traces []ryno.Trace
	done, err := s.Check(ctx, ryno.CheckOptions{OnTrace: func(tr ryno.Trace) { traces = append(traces, tr) }})
	require.NoError(t, err)
	require.Equal(t, 1, done.Traces)
	require.Equal(t, ryno.TraceList, traces[0].Kind)
	require.Equal(t, hub, traces[0].Key)
	require.Equal(t, "follows", traces[0].Predicate)

	done, err = s.Check(ctx, ryno.CheckOptions{Repair: true})
	require.NoError(t, err)
	require.Equal(t, 1, done.Finished)
	require.Equal(t, []ryno.Key{pk("a"), pk("b"), pk("d"), pk("c")}, objectsOf(t, s.Client, hub, "follows", 10),
		"the entries sharing a position keep their order, at positions of their own")
	requireListExact(t, s, hub, "follows")
	done, err = s.Check(ctx, ryno.CheckOptions{})
	require.NoError(t, err)
	require.Zero(t, done.Traces)
}

func TestADeleteRemovesAnEdgeItsListsMarkerMisses(t *testing.T) {
	s := newStoreWith(t, nil)
	hub, x := pk("hub"), pk("x")
	createSubjects(t, s.Client, hub, x, pk("a"))
	require.NoError(t, s.ReplaceRelationships(ctx, hub, "follows", []ryno.Key{x, pk("a")}))
	damage{t, s}.putEntry(entryAt(hub, "follows", 5, x)) // an edge its marker does not hold

	require.NoError(t, s.Delete(ctx, x))
	require.Equal(t, []ryno.Key{pk("a")}, objectsOf(t, s.Client, hub, "follows", 10))
	requireListExact(t, s, hub, "follows")
	requireNothingOf(t, s, x, true)
}

// TestABlindSetOverADeleteCutOffPutsEveryEntry cuts a Delete of an indexed entity
// off right after its tombstone, then sets the entity again without its version,
// alone and in a transaction. The Set reads the item and its entries in one round,
// completes the Delete it finds (which sweeps those entries) and creates the
// entity anew: it must put every entry it emits, not trust the entries it read
// before the sweep.
func TestABlindSetOverADeleteCutOffPutsEveryEntry(t *testing.T) {
	writes := map[string]func(db *ryno.Client, e *ryno.Entity) error{
		"Set": func(db *ryno.Client, e *ryno.Entity) error { _, err := db.Set(ctx, e); return err },
		"TxSet": func(db *ryno.Client, e *ryno.Entity) error {
			_, err := db.Transact(ctx, ryno.TxSet(e))
			return err
		},
	}
	for name, write := range writes {
		t.Run(name, func(t *testing.T) {
			s := newStoreOpts(t, nil, ryno.Options{Indexes: slugIndexes})
			gone := crashDoc{ID: "gone", Slug: "g", Tags: 3}
			_, err := s.Set(ctx, gone.entity())
			require.NoError(t, err)
			cut := newFaultyClient(t, s, ryno.Options{Indexes: slugIndexes, Retry: ryno.RetryOptions{MaxAttempts: 1}})
			cut.faults.FailAfter("Query", 0, func() error { return errInjected })
			require.ErrorIs(t, cut.db.Delete(ctx, gone.entity().Key), errInjected)
			_, err = s.Get(ctx, gone.entity().Key)
			require.ErrorIs(t, err, ryno.ErrNotFound, "the tombstone is there")

			require.NoError(t, write(s.Client, gone.entity()))
			got, err := s.Get(ctx, gone.entity().Key)
			require.NoError(t, err)
			require.Equal(t, int64(1), got.Version, "created anew")
			requireIndexExact(t, s)
			requireClaimsExact(t, s)
		})
	}
}

// TestABlindSetWithListsOverADeleteCutOffSpendsNoFailedWrite sets an entity with a
// list again, without its version, over a Delete cut off right after its
// tombstone. The Set reads the item and the list in one round, completes the
// Delete (which sweeps the list) and plans the list from no head: its one
// transaction commits, none is refused for a head the Delete took away.
func TestABlindSetWithListsOverADeleteCutOffSpendsNoFailedWrite(t *testing.T) {
	var refused atomic.Int64
	s := newStoreOpts(t, func(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
		return dynamotest.Wrap(api, func(ctx context.Context, op string, send func(context.Context) error) error {
			err := send(ctx)
			if op == "TransactWriteItems" && err != nil {
				refused.Add(1)
			}
			return err
		})
	}, ryno.Options{})
	k, a, b := pk("gone"), pk("a"), pk("b")
	createSubjects(t, s.Client, a, b)
	_, err := s.Set(ctx, &ryno.Entity{Key: k}, ryno.ReplaceLists(map[string][]ryno.Key{"follows": {a, b}}))
	require.NoError(t, err)
	cut := newFaultyClient(t, s, ryno.Options{Retry: ryno.RetryOptions{MaxAttempts: 1}})
	cut.faults.FailAfter("Query", 0, func() error { return errInjected })
	require.ErrorIs(t, cut.db.Delete(ctx, k), errInjected)

	_, err = s.Set(ctx, &ryno.Entity{Key: k}, ryno.ReplaceLists(map[string][]ryno.Key{"follows": {b}}))
	require.NoError(t, err)
	require.Zero(t, refused.Load(), "no transaction refused")
	got, err := s.Get(ctx, k)
	require.NoError(t, err)
	require.Equal(t, int64(1), got.Version, "created anew")
	require.Equal(t, []ryno.Key{b}, objectsOf(t, s.Client, k, "follows", 10))
	requireListExact(t, s, k, "follows")
}

// TestCheckRepairLeavesAListAWriterHoldsAndGoesOn finds a list whose bookkeeping
// disagrees with its entries, then, as the repair is about to take the list, a
// writer of the application takes it first under its own lease: the repair leaves
// the list to it (not finished) and completes the run, rather than fail the whole
// check on one busy list. Once the writer is gone, the next repair rebuilds it.
func TestCheckRepairLeavesAListAWriterHoldsAndGoesOn(t *testing.T) {
	s := newStoreWith(t, nil)
	hub, other := pk("hub"), pk("other")
	createSubjects(t, s.Client, hub, other, pk("a"), pk("b"))
	require.NoError(t, s.ReplaceRelationships(ctx, hub, "follows", []ryno.Key{pk("a"), pk("b")}))
	require.NoError(t, s.ReplaceRelationships(ctx, other, "follows", []ryno.Key{pk("a"), pk("b")}))
	d := damage{t, s}
	d.setCount(hub, "follows", 7)
	d.setCount(other, "follows", 9)

	var armed atomic.Bool
	var once sync.Once
	checker := mustNew(t, dynamotest.Wrap(s.raw, func(ctx context.Context, op string, send func(context.Context) error) error {
		if armed.Load() && (op == "TransactWriteItems" || op == "UpdateItem") {
			once.Do(func() { d.takeLease(hub, "follows", time.Now().Add(time.Hour)) }) // the application's writer takes hub's list first
		}
		return send(ctx)
	}), s.Names().Prefix, nil, ryno.Options{MaxConcurrency: 1,
		Conflicts: ryno.RetryOptions{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}})

	armed.Store(true)
	done, err := checker.Check(ctx, ryno.CheckOptions{Repair: true})
	require.NoError(t, err, "one busy list does not stop the check")
	require.Equal(t, 2, done.Traces)
	require.Equal(t, 1, done.Finished, "the other list is rebuilt; hub's is left to its writer")
	requireListExact(t, s, other, "follows")

	d.setHead(hub, "follows", schema.AttrLeaseUntil, &types.AttributeValueMemberN{Value: "1"}) // the writer was cut off
	done, err = s.Check(ctx, ryno.CheckOptions{Repair: true})
	require.NoError(t, err)
	require.Equal(t, 1, done.Finished)
	requireListExact(t, s, hub, "follows")
}

// TestAVersionCarriedWithoutItsLifeReadsEntriesThatMatchTheItem writes a doc with
// the version a caller carried and no Created, as an ETag of an earlier life of
// the key gives: its read of the index entries lands before the doc is deleted and
// created anew at that same version, its read of the item after. The condition on
// the version holds on the new life; the entries it diffs must be the new life's,
// or the new life's tags stay indexed under a doc that no longer holds them.
func TestAVersionCarriedWithoutItsLifeReadsEntriesThatMatchTheItem(t *testing.T) {
	var armed atomic.Bool
	var once sync.Once
	entriesRead, itemHeld := make(chan struct{}), make(chan struct{})
	s := newStoreOpts(t, func(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
		return dynamotest.Wrap(api, func(ctx context.Context, op string, send func(context.Context) error) error {
			if !armed.Load() {
				return send(ctx)
			}
			switch op {
			case "Query":
				defer once.Do(func() { close(entriesRead) })
			case "GetItem":
				<-itemHeld
			}
			return send(ctx)
		})
	}, ryno.Options{Indexes: slugIndexes})
	other := newClientOn(t, s, ryno.Options{Indexes: slugIndexes})
	_, err := other.Create(ctx, doc("d1", "first", 2))
	require.NoError(t, err)

	written := make(chan error, 1)
	armed.Store(true)
	go func() {
		e := doc("d1", "mine", 1)
		e.Version = 1 // carried, with no Created
		_, err := s.Update(ctx, e)
		written <- err
	}()
	<-entriesRead
	require.NoError(t, other.Delete(ctx, doc("d1", "", 0).Key))
	_, err = other.Create(ctx, doc("d1", "second", 2))
	require.NoError(t, err)
	close(itemHeld)
	require.NoError(t, <-written, "version 1 of the new life is the version carried")
	armed.Store(false)

	requireIndexExact(t, s)
}

// TestAMarkOfASetCutOffIsClearedOnceItsLeaseHasExpired cuts off a Set building a
// list too large for one transaction, after its put and the first chunk of its
// entries, in a client whose ListLease is 2 seconds. 2.4 seconds after that lease
// has expired, clients with the default ListLease of 30 seconds come: an Add of one
// object to the list finishes the list and clears the Set's pending mark; without
// it, Check reports the mark, and Check with Repair clears it. The mark records
// when its writer's lease ends, so nobody takes a writer gone for one at work.
func TestAMarkOfASetCutOffIsClearedOnceItsLeaseHasExpired(t *testing.T) {
	dynamotest.Parallel(t)
	const lease = 2 * time.Second
	for _, next := range []string{"add", "check"} {
		t.Run(next, func(t *testing.T) {
			s, subject := listStore(t, ryno.Options{})
			clk := newManualClock()
			objects := pks("o", 200)
			createSubjects(t, s.Client, append(objects, pk("late"))...)
			cut := newFaultyClient(t, s, ryno.Options{ListLease: lease, MaxConcurrency: 1, Now: clk.Now,
				Retry: ryno.RetryOptions{MaxAttempts: 1}})
			cut.faults.FailAfter("TransactWriteItems", 2, func() error { return errInjected }) // the intent, one chunk
			_, err := cut.db.Set(ctx, &ryno.Entity{Key: subject}, ryno.ReplaceLists(map[string][]ryno.Key{"follows": objects}))
			require.ErrorIs(t, err, errInjected)
			marked := func() bool { return entityItems(t, s.raw, s.Names())[subject.String()][schema.AttrPending] != nil }
			require.True(t, marked(), "cut off with its mark")

			clk.Advance(lease + 2400*time.Millisecond)
			db := newClientOn(t, s, ryno.Options{Now: clk.Now})
			if next == "add" {
				require.NoError(t, changed(db.AddRelationships(ctx, subject, "follows", []ryno.Key{pk("late")})))
				require.Equal(t, append(objects, pk("late")), objectsOf(t, s.Client, subject, "follows", 300))
				require.False(t, marked(), "the Add finished the Set it met")
			} else {
				done, err := db.Check(ctx, ryno.CheckOptions{})
				require.NoError(t, err)
				require.Equal(t, 2, done.Traces, "the list and the mark of a writer whose lease has expired")
				done, err = db.Check(ctx, ryno.CheckOptions{Repair: true})
				require.NoError(t, err)
				require.Equal(t, 2, done.Finished)
				require.False(t, marked(), "the repair cleared the mark")
			}
			requireListExact(t, s, subject, "follows")
			done, err := db.Check(ctx, ryno.CheckOptions{})
			require.NoError(t, err)
			require.Zero(t, done.Traces+done.Orphans)
		})
	}
}
