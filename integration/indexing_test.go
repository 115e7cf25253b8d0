package integration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
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
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/ryno"
)

// Map functions of the test indexes. They see numbers as json.Number.

func emitTags(e *ryno.Entity, emit func(indexing.Value)) {
	tags, _ := e.Attributes["tags"].([]any)
	for _, tag := range tags {
		emit(indexing.String(tag.(string)))
	}
}

func emitAge(e *ryno.Entity, emit func(indexing.Value)) {
	if n, ok := e.Attributes["age"].(json.Number); ok {
		age, err := n.Int64()
		if err != nil {
			panic(err)
		}
		emit(indexing.Int(age))
	}
}

func emitScore(e *ryno.Entity, emit func(indexing.Value)) {
	if n, ok := e.Attributes["score"].(json.Number); ok {
		score, err := n.Float64()
		if err != nil {
			panic(err)
		}
		emit(indexing.Float(score))
	}
}

func emitPublished(e *ryno.Entity, emit func(indexing.Value)) {
	if s, ok := e.Attributes["published"].(string); ok {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			panic(err)
		}
		emit(indexing.Time(t))
	}
}

func emitEmail(e *ryno.Entity, emit func(indexing.Value)) {
	if s, ok := e.Attributes["email"].(string); ok {
		emit(indexing.String(s))
	}
}

var testIndexes = []ryno.Index{
	{Type: "post", Name: "tag", Map: emitTags},
	{Type: "post", Name: "published", Map: emitPublished},
	{Type: "person", Name: "age", Map: emitAge},
	{Type: "person", Name: "score", Map: emitScore},
	{Type: "person", Name: "email", Map: emitEmail, Project: []string{"name"}},
}

func newIndexedStore(t *testing.T, wrap func(ryno.DynamoDBAPI) ryno.DynamoDBAPI) *store {
	t.Helper()
	return newStoreOpts(t, wrap, ryno.Options{Indexes: testIndexes})
}

func post(id string, attrs map[string]any) *ryno.Entity {
	return &ryno.Entity{Key: ryno.Key{Scope: "acme", Type: "post", ID: id}, Attributes: attrs}
}

// queryIDs returns the ids of the entities matching cond, paging with limit and
// checking each page's requests.
func queryIDs(t *testing.T, s *store, index string, cond indexing.Condition, limit int, descending bool) []string {
	t.Helper()
	var ids []string
	p := ryno.PageOptions{Limit: limit, Descending: descending}
	for {
		s.counter.Reset()
		page, err := s.QueryIndex(ctx, ryno.ScopedIndex{Scope: "acme", Index: index}, cond, p)
		require.NoError(t, err)
		want := map[string]int{"Query": 1}
		if len(page.Items) > 0 {
			want["BatchGetItem"] = 1
		}
		require.Equal(t, want, requests(s.counter), "one query and one batch of gets per page")
		for _, e := range page.Items {
			ids = append(ids, e.ID)
		}
		if page.Cursor == "" {
			return ids
		}
		p.Cursor = page.Cursor
	}
}

// indexItems returns every item of the index entries table, keyed by primary key.
func indexItems(t *testing.T, raw *dynamodb.Client, names schema.Names) map[string]map[string]types.AttributeValue {
	t.Helper()
	items := map[string]map[string]types.AttributeValue{}
	p := dynamodb.NewScanPaginator(raw, &dynamodb.ScanInput{TableName: aws.String(names.IndexEntries)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		require.NoError(t, err)
		for _, item := range out.Items {
			if indexentries.IsClaim(item) {
				continue // see claimItems
			}
			k := item[schema.AttrSubjectKey].(*types.AttributeValueMemberS).Value + " " + item[schema.AttrUniqueKey].(*types.AttributeValueMemberS).Value
			items[k] = item
		}
	}
	return items
}

func TestAnEntityEmittingSeveralValuesIsFoundUnderEach(t *testing.T) {
	s := newIndexedStore(t, nil)
	_, err := s.Set(ctx, post("p1", map[string]any{"tags": []string{"go", "db", "aws"}}))
	require.NoError(t, err)
	require.Equal(t, 2, s.counter.Rounds())
	require.Equal(t, map[string]int{"GetItem": 1, "Query": 1, "TransactWriteItems": 1}, requests(s.counter),
		"a blind Set reads the item and its entries first, in one round (no create to be refused), then one transaction")
	_, err = s.Set(ctx, post("p2", map[string]any{"tags": []string{"go"}}))
	require.NoError(t, err)

	for tag, want := range map[string][]string{"go": {"p1", "p2"}, "db": {"p1"}, "aws": {"p1"}, "rust": nil} {
		require.Equal(t, want, queryIDs(t, s, "tag", indexing.Equal(indexing.String(tag)), 10, false), tag)
	}

	got, err := s.Get(ctx, post("p1", nil).Key)
	require.NoError(t, err)
	got.Attributes["tags"] = []string{"go", "aws"}
	s.counter.Reset()
	_, err = s.Update(ctx, got)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"Query": 1, "TransactWriteItems": 1}, requests(s.counter),
		"the entries read, then the entity and the changed entries in one transaction")

	require.Empty(t, queryIDs(t, s, "tag", indexing.Equal(indexing.String("db")), 10, false), "the dropped tag")
	require.Equal(t, []string{"p1"}, queryIDs(t, s, "tag", indexing.Equal(indexing.String("aws")), 10, false))
	require.Len(t, indexItems(t, s.raw, s.Names()), 3, "p1: go and aws; p2: go")

	// A write that changes no entry writes none.
	got, err = s.Get(ctx, got.Key)
	require.NoError(t, err)
	got.Attributes["title"] = "new title"
	s.counter.Reset()
	_, err = s.Update(ctx, got)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"PutItem": 1, "Query": 1}, requests(s.counter))
}

func TestRangeQueriesOverIntegersFloatsAndTimes(t *testing.T) {
	s := newIndexedStore(t, nil)
	ages := map[string]int64{"a": -100, "b": -5, "c": 0, "d": 3, "e": 17, "f": 42, "g": 100, "h": math.MaxInt64, "i": math.MinInt64}
	scores := map[string]float64{"a": -1.5, "b": -1e10, "c": 0, "d": 2.25, "e": 1e10, "f": -0.0001, "g": 1e-130, "h": 9.9e125}
	for id, age := range ages {
		attrs := map[string]any{"age": age}
		if score, ok := scores[id]; ok {
			attrs["score"] = score
		}
		_, err := s.Create(ctx, &ryno.Entity{Key: pk(id), Attributes: attrs})
		require.NoError(t, err)
	}
	base := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	published := map[string]time.Time{
		"p0": base.Add(-48 * time.Hour), "p1": base, "p2": base.Add(time.Nanosecond),
		"p3": base.Add(time.Hour), "p4": base.AddDate(10, 0, 0), "p5": time.Date(1969, 7, 20, 20, 17, 0, 0, time.UTC),
	}
	for id, at := range published {
		_, err := s.Create(ctx, post(id, map[string]any{"published": at.Format(time.RFC3339Nano)}))
		require.NoError(t, err)
	}

	tests := []struct {
		name       string
		index      string
		cond       indexing.Condition
		descending bool
		want       []string
	}{
		{"ints between, inclusive", "age", indexing.Between(indexing.Int(-5), indexing.Int(42)), false, []string{"b", "c", "d", "e", "f"}},
		{"ints below zero", "age", indexing.Less(indexing.Int(0)), false, []string{"i", "a", "b"}},
		{"ints from 17, newest first", "age", indexing.GreaterOrEqual(indexing.Int(17)), true, []string{"h", "g", "f", "e"}},
		{"ints above 42", "age", indexing.Greater(indexing.Int(42)), false, []string{"g", "h"}},
		{"ints up to 0", "age", indexing.LessOrEqual(indexing.Int(0)), false, []string{"i", "a", "b", "c"}},
		{"every int", "age", indexing.All(), false, []string{"i", "a", "b", "c", "d", "e", "f", "g", "h"}},
		{"floats between", "score", indexing.Between(indexing.Float(-2), indexing.Float(2.25)), false, []string{"a", "f", "c", "g", "d"}},
		{"floats below zero", "score", indexing.Less(indexing.Float(0)), false, []string{"b", "a", "f"}},
		{"floats above zero", "score", indexing.Greater(indexing.Float(0)), false, []string{"g", "d", "e", "h"}},
		{"one float", "score", indexing.Equal(indexing.Float(2.25)), false, []string{"d"}},
		{"times between", "published", indexing.Between(indexing.Time(base), indexing.Time(base.Add(time.Hour))), false, []string{"p1", "p2", "p3"}},
		{"times before", "published", indexing.Less(indexing.Time(base)), false, []string{"p5", "p0"}},
		{"times after, latest first", "published", indexing.Greater(indexing.Time(base)), true, []string{"p4", "p3", "p2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, queryIDs(t, s, tt.index, tt.cond, 2, tt.descending), "pages of 2")
			require.Equal(t, tt.want, queryIDs(t, s, tt.index, tt.cond, 100, tt.descending), "one page")
		})
	}
}

func TestQueryIndexEntriesReturnsProjectionsWithoutReadingEntities(t *testing.T) {
	s := newIndexedStore(t, nil)
	for i, name := range []string{"Ada", "Grace", "Alan"} {
		_, err := s.Create(ctx, &ryno.Entity{Key: pk(fmt.Sprint(i)), Attributes: map[string]any{
			"name": name, "email": fmt.Sprintf("%s@example.com", name), "secret": "not projected",
		}})
		require.NoError(t, err)
	}
	s.counter.Reset()
	page, err := s.QueryIndexEntries(ctx, ryno.ScopedIndex{Scope: "acme", Index: "email"}, indexing.BeginsWith(indexing.String("A")), ryno.PageOptions{})
	require.NoError(t, err)
	require.Equal(t, map[string]int{"Query": 1}, requests(s.counter))
	require.Equal(t, []ryno.IndexEntry{
		{Key: pk("0"), Index: "email", Value: indexing.String("Ada@example.com"), Attributes: map[string]any{"name": "Ada"}},
		{Key: pk("2"), Index: "email", Value: indexing.String("Alan@example.com"), Attributes: map[string]any{"name": "Alan"}},
	}, page.Items)
}

func TestDeletingAnEntityLeavesNoIndexEntry(t *testing.T) {
	s := newIndexedStore(t, nil)
	p, err := s.Set(ctx, post("p1", map[string]any{"tags": []string{"a", "b"}, "published": "2024-01-01T00:00:00Z"}))
	require.NoError(t, err)
	require.Len(t, indexItems(t, s.raw, s.Names()), 3)
	require.NoError(t, s.Delete(ctx, p.Key))
	require.Empty(t, indexItems(t, s.raw, s.Names()))
	require.Empty(t, queryIDs(t, s, "tag", indexing.All(), 10, false))
}

// tagList returns n tags named prefix0, prefix1, ...
func tagList(prefix string, n int) []string {
	tags := make([]string, n)
	for i := range tags {
		tags[i] = fmt.Sprint(prefix, i)
	}
	return tags
}

func TestALargeWriteCutOffHalfWayConverges(t *testing.T) {
	// 60 tags replaced by 60 others: 120 entry changes, more than one transaction
	// holds. The entity is put first, then the entries in transactions of 99.
	tests := []struct {
		name string
		next func(s *store, cut *ryno.Entity) []string // the write after the cut; the tags it leaves
	}{
		{"the same write again", func(s *store, cut *ryno.Entity) []string {
			_, err := s.Set(ctx, post("p1", map[string]any{"tags": tagList("b", 60)}))
			require.NoError(t, err)
			return tagList("b", 60)
		}},
		{"another writer, with the version it read", func(s *store, cut *ryno.Entity) []string {
			got, err := s.Get(ctx, cut.Key)
			require.NoError(t, err)
			require.Equal(t, cut.Version, got.Version)
			got.Attributes["tags"] = tagList("c", 5)
			_, err = s.Update(ctx, got)
			require.NoError(t, err)
			return tagList("c", 5)
		}},
		{"a reindex", func(s *store, cut *ryno.Entity) []string {
			_, err := s.Reindex(ctx, ryno.Type{Scope: "acme", Name: "post"}, nil)
			require.NoError(t, err)
			return tagList("b", 60)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var faults *dynamotest.Faults
			s := newStoreOpts(t, func(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
				faults = dynamotest.NewFaults(api)
				return faults
			}, ryno.Options{Indexes: testIndexes, Retry: ryno.RetryOptions{MaxAttempts: 1}})
			first, err := s.Set(ctx, post("p1", map[string]any{"tags": tagList("a", 60)}))
			require.NoError(t, err)

			// The entity lands, the transactions of its entries fail.
			faults.FailAfter("TransactWriteItems", 0, func() error { return errInjected })
			first.Attributes["tags"] = tagList("b", 60)
			_, err = s.Set(ctx, first)
			require.ErrorIs(t, err, errInjected)
			var partial *ryno.PartialWriteError
			require.ErrorAs(t, err, &partial)
			require.Equal(t, int64(2), partial.Entity.Version)
			require.ElementsMatch(t, tagList("b", 60), partial.Entity.Attributes["tags"])
			require.Equal(t, sorted(tagList("a", 60)), tagsIndexed(t, s), "no entry changed")

			faults.Clear()
			want := tt.next(s, partial.Entity)
			require.Equal(t, sorted(want), tagsIndexed(t, s))
			requireIndexExact(t, s)
		})
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func tagsIndexed(t *testing.T, s *store) []string {
	t.Helper()
	var tags []string
	for _, item := range indexItems(t, s.raw, s.Names()) {
		e, err := indexentries.FromItem(item)
		require.NoError(t, err)
		tags = append(tags, e.Value.Interface().(string))
	}
	slices.Sort(tags)
	return tags
}

func TestReindexAfterChangingAMapFunction(t *testing.T) {
	dynamotest.Parallel(t)
	v1 := newIndexedStore(t, nil)
	entities := []*ryno.Entity{
		post("p1", map[string]any{"tags": []string{"Go", "DB"}, "published": "2024-01-01T00:00:00Z"}),
		post("p2", map[string]any{"tags": []string{"AWS"}}),
		post("p3", map[string]any{}),
	}
	for i := range 120 { // more than one page of Reindex
		entities = append(entities, post(fmt.Sprintf("bulk%03d", i), map[string]any{"tags": []string{"Bulk", fmt.Sprint(i % 7)}}))
	}
	for _, e := range entities {
		_, err := v1.Set(ctx, e)
		require.NoError(t, err)
	}
	// Version 2: tags lower-cased and projected, a new index on the tag count, no
	// more index on publication.
	lower := func(e *ryno.Entity, emit func(indexing.Value)) {
		tags, _ := e.Attributes["tags"].([]any)
		for _, tag := range tags {
			emit(indexing.String(fmt.Sprintf("tag-%s", tag)))
		}
	}
	count := func(e *ryno.Entity, emit func(indexing.Value)) {
		tags, _ := e.Attributes["tags"].([]any)
		emit(indexing.Int(int64(len(tags))))
	}
	v2Indexes := []ryno.Index{
		{Type: "post", Name: "tag", Map: lower, Project: []string{"tags"}},
		{Type: "post", Name: "tag-count", Map: count},
	}
	v2, err := ryno.New(dynamotest.API(t), ryno.Options{TablePrefix: v1.Names().Prefix, Indexes: v2Indexes})
	require.NoError(t, err)

	var reports []ryno.ReindexProgress
	done, err := v2.Reindex(ctx, ryno.Type{Scope: "acme", Name: "post"}, func(p ryno.ReindexProgress) { reports = append(reports, p) })
	require.NoError(t, err)
	require.Equal(t, len(entities), done.Entities)
	require.Len(t, reports, 2, "a report per page of 100")
	require.Equal(t, done, reports[len(reports)-1])

	// The same entities written fresh with version 2.
	fresh := newStoreOpts(t, nil, ryno.Options{Indexes: v2Indexes})
	for _, e := range entities {
		_, err := fresh.Set(ctx, e)
		require.NoError(t, err)
	}
	require.Equal(t, indexItems(t, fresh.raw, fresh.Names()), indexItems(t, v1.raw, v1.Names()),
		"the index table is exactly as a fresh write leaves it")

	again, err := v2.Reindex(ctx, ryno.Type{Scope: "acme", Name: "post"}, nil)
	require.NoError(t, err)
	require.Equal(t, ryno.ReindexProgress{Entities: len(entities)}, again, "nothing left to repair")
}

func TestIndexRegistrationAndMapFunctionErrors(t *testing.T) {
	api := dynamotest.API(t)
	noop := func(*ryno.Entity, func(indexing.Value)) {}
	for name, indexes := range map[string][]ryno.Index{
		"two indexes with one name": {{Type: "a", Name: "x", Map: noop}, {Type: "b", Name: "x", Map: noop}},
		"no map function":           {{Type: "a", Name: "x"}},
		"empty name":                {{Type: "a", Map: noop}},
		"reserved projection":       {{Type: "a", Name: "x", Map: noop, Project: []string{"_id"}}},
	} {
		_, err := ryno.New(api, ryno.Options{TablePrefix: "p", Indexes: indexes})
		require.ErrorIs(t, err, ryno.ErrInvalid, name)
	}

	s := newStoreOpts(t, nil, ryno.Options{Indexes: []ryno.Index{
		{Type: "panics", Name: "p", Map: func(*ryno.Entity, func(indexing.Value)) { panic("boom") }},
		{Type: "nan", Name: "n", Map: func(_ *ryno.Entity, emit func(indexing.Value)) { emit(indexing.Float(math.NaN())) }},
	}})
	_, err := s.Set(ctx, &ryno.Entity{Key: ryno.Key{Scope: "s", Type: "panics", ID: "1"}})
	require.ErrorIs(t, err, indexing.ErrPanic)
	require.ErrorContains(t, err, "boom")
	_, err = s.Set(ctx, &ryno.Entity{Key: ryno.Key{Scope: "s", Type: "nan", ID: "1"}})
	require.ErrorIs(t, err, ryno.ErrInvalid)
	require.Zero(t, s.counter.Total(), "no request was sent")

	_, err = s.QueryIndex(ctx, ryno.ScopedIndex{Scope: "s", Index: "n"}, indexing.Between(indexing.Int(2), indexing.Int(1)), ryno.PageOptions{})
	require.ErrorIs(t, err, ryno.ErrInvalid)
	_, err = s.QueryIndex(ctx, ryno.ScopedIndex{Scope: "", Index: "n"}, indexing.All(), ryno.PageOptions{})
	require.ErrorIs(t, err, ryno.ErrInvalid)
	require.Zero(t, s.counter.Total())
}

func TestADeleteStopsALargeWriteHalfWay(t *testing.T) {
	// A write of 120 entry changes puts the entity, then its entries in two chunks.
	// A Delete marks the entity and reads its entries while the chunks wait; they are
	// sent just before the Delete's last step. None may commit, or its entries would
	// outlive the entity.
	const chunks = 2 // 99 and 21 changes
	entered, chunksGo, chunksDone := make(chan struct{}, chunks), make(chan struct{}), make(chan struct{})
	var armed atomic.Bool
	var sent sync.WaitGroup
	sent.Add(chunks)
	writer := newStoreOpts(t, func(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
		return dynamotest.Wrap(api, func(ctx context.Context, op string, send func(context.Context) error) error {
			if op != "TransactWriteItems" || !armed.Load() {
				return send(ctx)
			}
			defer sent.Done()
			entered <- struct{}{}
			<-chunksGo
			return send(ctx)
		})
	}, ryno.Options{Indexes: testIndexes})
	var sweep sync.Once
	deleter := mustNew(t, dynamotest.Wrap(writer.raw, func(ctx context.Context, op string, send func(context.Context) error) error {
		if op == "TransactWriteItems" || op == "DeleteItem" {
			sweep.Do(func() {
				close(chunksGo)
				<-chunksDone
			})
		}
		return send(ctx)
	}), writer.Names().Prefix, testIndexes)

	e, err := writer.Set(ctx, post("p1", map[string]any{"tags": tagList("a", 60)}))
	require.NoError(t, err)
	armed.Store(true)
	e.Attributes["tags"] = tagList("b", 60)
	written := make(chan error)
	go func() {
		_, err := writer.Update(ctx, e)
		written <- err
	}()
	for range chunks {
		<-entered
	}
	go func() {
		sent.Wait()
		close(chunksDone)
	}()
	require.NoError(t, deleter.Delete(ctx, e.Key))
	require.NoError(t, <-written, "the write took effect before the Delete")

	_, err = writer.Get(ctx, e.Key)
	require.ErrorIs(t, err, ryno.ErrNotFound)
	require.Empty(t, tagsIndexed(t, writer), "no entry of the deleted entity is left")
	requireIndexExact(t, writer)
}

// mustNew returns a client on api with the tables of prefix and indexes, and the
// other options of opts, if given.
func mustNew(t *testing.T, api ryno.DynamoDBAPI, prefix string, indexes []ryno.Index, opts ...ryno.Options) *ryno.Client {
	t.Helper()
	var o ryno.Options
	if len(opts) > 0 {
		o = opts[0]
	}
	o.TablePrefix, o.Indexes = prefix, indexes
	db, err := ryno.New(api, o)
	require.NoError(t, err)
	return db
}
