package integration_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/ryno"
)

// An issue is indexed by (project, status, opened) and by priority: each emits one
// value at most, so both can be inline.
func emitIssueStatus(e *ryno.Entity, emit func(indexing.Value)) {
	project, _ := e.Attributes["project"].(string)
	status, _ := e.Attributes["status"].(string)
	opened, _ := e.Attributes["opened"].(string)
	if project == "" || status == "" {
		return
	}
	t, err := time.Parse(time.RFC3339, opened)
	if err != nil {
		panic(err)
	}
	emit(indexing.Tuple(indexing.String(project), indexing.String(status), indexing.Time(t)))
}

func emitIssuePriority(e *ryno.Entity, emit func(indexing.Value)) {
	emitInt(e, "priority", emit)
}

func emitInt(e *ryno.Entity, name string, emit func(indexing.Value)) {
	if n, ok := e.Attributes[name].(interface{ Int64() (int64, error) }); ok {
		v, err := n.Int64()
		if err != nil {
			panic(err)
		}
		emit(indexing.Int(v))
	}
}

// issueIndexes returns the two indexes of issues, inline in slots 1 and 2 or (0) in
// the index entries table.
func issueIndexes(inline bool) []ryno.Index {
	slot := func(n int) int {
		if inline {
			return n
		}
		return 0
	}
	return []ryno.Index{
		{Type: "issue", Name: "by-status", Map: emitIssueStatus, Project: []string{"title"}, Inline: slot(1)},
		{Type: "issue", Name: "by-priority", Map: emitIssuePriority, Inline: slot(2)},
	}
}

func issue(id, project, status string, day, priority int) *ryno.Entity {
	return &ryno.Entity{Key: ryno.Key{Scope: "acme", Type: "issue", ID: id}, Attributes: map[string]any{
		"project": project, "status": status, "priority": priority, "title": "issue " + id,
		"opened": time.Date(2026, 3, day, 9, 0, 0, 0, time.UTC).Format(time.RFC3339),
	}}
}

// indexAnswers pages through every query of the tests, with limit, and returns for
// each the keys, values and projections of QueryIndexEntries and the ids of
// QueryIndex, in order.
func indexAnswers(t *testing.T, db *ryno.Client, limit int) []string {
	return indexAnswersOf(t, db, limit, true)
}

// indexAnswersOf is indexAnswers, with the versions of the entities or without.
func indexAnswersOf(t *testing.T, db *ryno.Client, limit int, versions bool) []string {
	t.Helper()
	at := func(day int) indexing.Value { return indexing.Time(time.Date(2026, 3, day, 9, 0, 0, 0, time.UTC)) }
	acme := func(parts ...indexing.Value) indexing.Value {
		return indexing.Tuple(append([]indexing.Value{indexing.String("ACME")}, parts...)...)
	}
	queries := []struct {
		index string
		cond  indexing.Condition
	}{
		{"by-status", indexing.BeginsWith(acme(indexing.String("open")))},
		{"by-status", indexing.Between(acme(indexing.String("open"), at(3)), acme(indexing.String("open"), at(8)))},
		{"by-status", indexing.BeginsWith(acme())},
		{"by-status", indexing.All()},
		{"by-priority", indexing.GreaterOrEqual(indexing.Int(2))},
		{"by-priority", indexing.Equal(indexing.Int(1))},
		{"by-priority", indexing.Less(indexing.Int(-1))},
	}
	var out []string
	for _, q := range queries {
		for _, descending := range []bool{false, true} {
			p := ryno.PageOptions{Limit: limit, Descending: descending}
			si := ryno.ScopedIndex{Scope: "acme", Index: q.index}
			line := fmt.Sprintf("%s %s desc=%v:", q.index, q.cond, descending)
			for e, err := range db.AllIndexEntries(ctx, si, q.cond, p) {
				require.NoError(t, err)
				line += fmt.Sprintf(" %s=%s%v", e.Key.ID, e.Value, e.Attributes)
			}
			line += " |"
			for e, err := range db.AllInIndex(ctx, si, q.cond, p) {
				require.NoError(t, err)
				line += " " + e.ID
				if versions {
					line += "@" + fmt.Sprint(e.Version)
				}
			}
			out = append(out, line)
		}
	}
	return out
}

// TestInlineIndexesAnswerAsEntryIndexesDo writes the same issues, through the same
// calls, to a store with the indexes inline and to one with them in the index
// entries table: every query, each way and in pages of 2, answers the same. The
// values are distinct: entities with equal values come in no set order.
func TestInlineIndexesAnswerAsEntryIndexesDo(t *testing.T) {
	inline := newStoreOpts(t, nil, ryno.Options{Indexes: issueIndexes(true)})
	entries := newStoreOpts(t, nil, ryno.Options{Indexes: issueIndexes(false)})
	for _, s := range []*store{inline, entries} {
		for i, status := range []string{"open", "open", "closed", "open", "closed", "open", "open", "open"} {
			project := "ACME"
			if i == 6 {
				project = "ACME2"
			}
			_, err := s.Create(ctx, issue(fmt.Sprint("i", i), project, status, 2+i, i-3))
			require.NoError(t, err)
		}
		_, err := s.Patch(ctx, ryno.Key{Scope: "acme", Type: "issue", ID: "i1"}, ryno.Patch{Set: map[string]any{"status": "closed", "priority": 7}})
		require.NoError(t, err)
		_, err = s.Modify(ctx, ryno.Key{Scope: "acme", Type: "issue", ID: "i2"}, func(e *ryno.Entity) error {
			e.Attributes["status"] = "open"
			e.Attributes["title"] = "reopened"
			return nil
		})
		require.NoError(t, err)
		_, err = s.Set(ctx, &ryno.Entity{Key: ryno.Key{Scope: "acme", Type: "issue", ID: "i3"}, Attributes: map[string]any{"title": "no index"}})
		require.NoError(t, err)
		require.NoError(t, s.Delete(ctx, ryno.Key{Scope: "acme", Type: "issue", ID: "i4"}))
		_, err = s.Transact(ctx, ryno.TxCreate(issue("i9", "ACME", "open", 20, 30)), ryno.TxDelete(ryno.Key{Scope: "acme", Type: "issue", ID: "i5"}))
		require.NoError(t, err)
	}
	// The lookup GSI and the inline GSIs are eventually consistent.
	want := indexAnswers(t, entries.Client, 2)
	require.Eventually(t, func() bool { return slices.Equal(indexAnswers(t, inline.Client, 2), want) }, 10*time.Second, 50*time.Millisecond)
	require.Equal(t, want, indexAnswers(t, inline.Client, 0), "in one page as in pages of 2")
	require.Contains(t, want[0], "i2=", "the queries find entities")
	require.Zero(t, itemCount(t, inline.raw, inline.Names().IndexEntries), "inline indexes write no index entry")

	done, err := inline.Check(ctx, ryno.CheckOptions{})
	require.NoError(t, err)
	require.Zero(t, done.Traces+done.Orphans, "%+v", done)
}

// TestInlineIndexRequests counts what inline indexes save: a create, a versioned
// write and a page of QueryIndex are one request each.
func TestInlineIndexRequests(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: issueIndexes(true)})
	s.counter.Reset()
	created, err := s.Create(ctx, issue("i1", "ACME", "open", 2, 1))
	require.NoError(t, err)
	require.Equal(t, map[string]int{"PutItem": 1}, requests(s.counter), "a create with two index values is one PutItem")

	created.Attributes["status"] = "closed"
	_, err = s.Set(ctx, created)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"PutItem": 1}, requests(s.counter), "a write carrying its version is one conditional PutItem")

	_, err = s.Patch(ctx, created.Key, ryno.Patch{Set: map[string]any{"priority": 3}})
	require.NoError(t, err)
	require.Equal(t, map[string]int{"GetItem": 1, "PutItem": 1}, requests(s.counter), "a patch reads the entity its map functions see")

	byPriority := ryno.ScopedIndex{Scope: "acme", Index: "by-priority"}
	require.Eventually(t, func() bool {
		page, err := s.QueryIndex(ctx, byPriority, indexing.Equal(indexing.Int(3)), ryno.PageOptions{})
		require.NoError(t, err)
		return len(page.Items) == 1 && page.Items[0].Attributes["status"] == "closed"
	}, 10*time.Second, 50*time.Millisecond)
	s.counter.Reset()
	_, err = s.QueryIndex(ctx, byPriority, indexing.All(), ryno.PageOptions{})
	require.NoError(t, err)
	require.Equal(t, map[string]int{"Query": 1}, requests(s.counter), "the GSI holds the entities: one Query a page")

	consistent := newClientOn(t, s, ryno.Options{Indexes: issueIndexes(true), ConsistentRead: true})
	page, err := consistent.QueryIndex(ctx, byPriority, indexing.All(), ryno.PageOptions{})
	require.NoError(t, err)
	require.Len(t, page.Items, 1, "with ConsistentRead, the entities are read fresh")

	require.NoError(t, s.Delete(ctx, created.Key))
	require.Equal(t, map[string]int{"UpdateItem": 1, "Query": 3, "DeleteItem": 1}, requests(s.counter),
		"a Delete has no index entry to read or delete: the tombstone, the reads of what refers to it, the item")
}

func TestInlineIndexesRefuseBadValuesBeforeAnyRequest(t *testing.T) {
	twice := func(e *ryno.Entity, emit func(indexing.Value)) { emit(indexing.Int(1)); emit(indexing.Int(2)) }
	s := newStoreOpts(t, nil, ryno.Options{Indexes: []ryno.Index{{Type: "issue", Name: "twice", Map: twice, Inline: 1}}})
	s.counter.Reset()
	_, err := s.Create(ctx, issue("i1", "ACME", "open", 2, 1))
	require.ErrorIs(t, err, ryno.ErrInvalid)
	var ve *ryno.ValidationError
	require.ErrorAs(t, err, &ve)
	require.Equal(t, "Index.Map", ve.Field)
	require.Empty(t, requests(s.counter), "no request")

	_, err = ryno.New(s.raw, ryno.Options{TablePrefix: s.prefix, Indexes: []ryno.Index{
		{Type: "issue", Name: "a", Map: twice, Inline: 1}, {Type: "issue", Name: "b", Map: twice, Inline: 1},
	}})
	require.ErrorIs(t, err, ryno.ErrInvalid, "two inline indexes of a type in one slot")
}

// TestAnEntityLeavesItsInlineIndexesWithItsTombstoneOrItsExpiry: readers of an inline
// index never see an entity being deleted or expired.
func TestAnEntityLeavesItsInlineIndexesWithItsTombstoneOrItsExpiry(t *testing.T) {
	// The clock runs an hour and more ahead of DynamoDB Local's, whose time to live
	// would otherwise remove the expired entity itself.
	clk := wholeSecondClock()
	s := newStoreOpts(t, nil, ryno.Options{Indexes: issueIndexes(true)})
	db := newClientOn(t, s, ryno.Options{Indexes: issueIndexes(true), Now: clk.Now})
	cut := newFaultyClient(t, s, ryno.Options{Indexes: issueIndexes(true), Now: clk.Now, Retry: ryno.RetryOptions{MaxAttempts: 1}})
	kept, deleted, expiring := issue("kept", "ACME", "open", 2, 1), issue("deleted", "ACME", "open", 3, 1), issue("expiring", "ACME", "open", 4, 1)
	expiring.Expires = clk.Now().Add(time.Hour)
	for _, e := range []*ryno.Entity{kept, deleted, expiring} {
		_, err := db.Create(ctx, e)
		require.NoError(t, err)
	}
	cut.faults.FailAfter("Query", 0, func() error { return errInjected })
	require.ErrorIs(t, cut.db.Delete(ctx, deleted.Key), errInjected, "the Delete is cut off after its tombstone")
	clk.Advance(2 * time.Hour)

	byPriority := ryno.ScopedIndex{Scope: "acme", Index: "by-priority"}
	ids := func() []string {
		var ids []string
		for e, err := range db.AllIndexEntries(ctx, byPriority, indexing.All(), ryno.PageOptions{}) {
			require.NoError(t, err)
			ids = append(ids, e.Key.ID)
		}
		for e, err := range db.AllInIndex(ctx, byPriority, indexing.All(), ryno.PageOptions{}) {
			require.NoError(t, err)
			ids = append(ids, e.ID)
		}
		return ids
	}
	require.Eventually(t, func() bool { return slices.Equal(ids(), []string{"kept", "kept"}) }, 10*time.Second, 50*time.Millisecond)
	out, err := s.raw.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.Names().Entities), Key: rawKey(deleted.Key)})
	require.NoError(t, err)
	require.NotNil(t, out.Item, "the tombstone is there")
	require.NotContains(t, out.Item, schema.AttrInlineKey[1], "the tombstone took the entity out of the GSI")
}

// TestReindexMovesAnIndexInlineAndBack changes an index from the index entries table
// to inline and back, with Reindex: the queries answer the same, and nothing is
// left where the index no longer is.
func TestReindexMovesAnIndexInlineAndBack(t *testing.T) {
	entries := newStoreOpts(t, nil, ryno.Options{Indexes: issueIndexes(false)})
	for i := range 12 {
		_, err := entries.Create(ctx, issue(fmt.Sprint("i", i), "ACME", []string{"open", "closed"}[i%2], 2+i, i-4))
		require.NoError(t, err)
	}
	want := indexAnswersOf(t, entries.Client, 0, false) // Reindex moves the versions on
	inline := newClientOn(t, entries, ryno.Options{Indexes: issueIndexes(true)})
	issues := ryno.Type{Scope: "acme", Name: "issue"}

	_, err := inline.Reindex(ctx, issues, nil)
	require.NoError(t, err)
	require.Zero(t, itemCount(t, entries.raw, entries.Names().IndexEntries), "the entries went")
	require.Eventually(t, func() bool { return slices.Equal(indexAnswersOf(t, inline, 0, false), want) }, 10*time.Second, 50*time.Millisecond)
	again, err := inline.Reindex(ctx, issues, nil)
	require.NoError(t, err)
	require.Equal(t, ryno.ReindexProgress{Entities: 12}, again, "nothing left to change")

	_, err = entries.Reindex(ctx, issues, nil)
	require.NoError(t, err)
	require.Equal(t, want, indexAnswersOf(t, entries.Client, 0, false))
	for _, gsi := range entries.Names().EntitiesInline {
		out, err := entries.raw.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(entries.Names().Entities), IndexName: aws.String(gsi)})
		require.NoError(t, err)
		require.Zero(t, out.Count, "nothing is left in %s", gsi)
	}
}

// TestClientsDeclaringInlineOtherwiseRefuseEachOthersEntities: the index set an entity
// records names an inline index with its slot, so a client keeping the same index in
// the index entries table refuses to write the entity instead of leaving either
// place stale.
func TestClientsDeclaringInlineOtherwiseRefuseEachOthersEntities(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: issueIndexes(true)})
	entries := newClientOn(t, s, ryno.Options{Indexes: issueIndexes(false)})
	written, err := s.Create(ctx, issue("i1", "ACME", "open", 2, 1))
	require.NoError(t, err)
	_, err = entries.Set(ctx, written)
	var unknown *ryno.UnknownIndexError
	require.ErrorAs(t, err, &unknown)
	require.ElementsMatch(t, []string{"by-status (inline 1)", "by-priority (inline 2)"}, unknown.Indexes)

	other, err := entries.Create(ctx, issue("i2", "ACME", "open", 3, 2))
	require.NoError(t, err)
	_, err = s.Set(ctx, other)
	require.ErrorAs(t, err, &unknown)
	require.ElementsMatch(t, []string{"by-status", "by-priority"}, unknown.Indexes)
}

// TestRacingWritersLeaveEachEntityOnceInItsInlineIndex: 8 writers released together
// set, patch, modify and delete the same issues, round after round. After each round
// every issue stored is found exactly once, under the value it holds, and no issue
// that is gone is found.
func TestRacingWritersLeaveEachEntityOnceInItsInlineIndex(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: issueIndexes(true), ConsistentRead: true})
	keys := []ryno.Key{{Scope: "acme", Type: "issue", ID: "a"}, {Scope: "acme", Type: "issue", ID: "b"}}
	byPriority := ryno.ScopedIndex{Scope: "acme", Index: "by-priority"}
	for round := range 10 {
		race(8, func(g int) {
			k := keys[g%len(keys)]
			var err error
			switch g / 2 {
			case 0:
				_, err = s.Set(ctx, issue(k.ID, "ACME", "open", 1+g, 10*round+g))
			case 1:
				_, err = s.Patch(ctx, k, ryno.Patch{Set: map[string]any{"priority": 100*round + g}})
			case 2:
				_, err = s.Modify(ctx, k, func(e *ryno.Entity) error { e.Attributes["priority"] = 1000*round + g; return nil })
			case 3:
				if round%3 == 2 {
					err = s.Delete(ctx, k)
				}
			}
			if errors.Is(err, ryno.ErrNotFound) {
				err = nil // a Patch or Modify after a Delete
			}
			require.NoError(t, err)
		})
		want := map[string]string{}
		for _, k := range keys {
			e, err := s.Get(ctx, k)
			if errors.Is(err, ryno.ErrNotFound) {
				continue
			}
			require.NoError(t, err)
			want[k.ID] = fmt.Sprint(e.Attributes["priority"])
		}
		indexed := func() map[string]string { // nil when an issue is found twice
			got := map[string]string{}
			for e, err := range s.AllIndexEntries(ctx, byPriority, indexing.All(), ryno.PageOptions{}) {
				require.NoError(t, err)
				if _, twice := got[e.Key.ID]; twice {
					return nil
				}
				got[e.Key.ID] = fmt.Sprint(e.Value.Interface())
			}
			return got
		}
		// The GSI is eventually consistent: wait for it to settle, then compare.
		require.Eventually(t, func() bool { return maps.Equal(indexed(), want) }, 10*time.Second, 20*time.Millisecond,
			"round %d: the index holds each stored issue once, under its priority %v", round, want)
	}
}

// TestABlindSetOfAnInlineIndexedEntityIsOneUpdate: a Set without its version of an
// entity whose indexes are all inline is one UpdateItem, new or existing, with no
// failed write; the value moves with it. A map function that reads the version
// makes it read first, and an entity another client wrote with other indexes is
// refused.
func TestABlindSetOfAnInlineIndexedEntityIsOneUpdate(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: issueIndexes(true)})
	byPriority := ryno.ScopedIndex{Scope: "acme", Index: "by-priority"}
	for i, priority := range []int{5, 7} {
		s.counter.Reset()
		e, err := s.Set(ctx, issue("i1", "ACME", "open", 2, priority))
		require.NoError(t, err)
		require.Equal(t, int64(i+1), e.Version)
		require.Equal(t, map[string]int{"UpdateItem": 1}, requests(s.counter), "set %d: one UpdateItem, nothing refused", i+1)
	}
	require.Eventually(t, func() bool {
		page, err := s.QueryIndexEntries(ctx, byPriority, indexing.All(), ryno.PageOptions{})
		require.NoError(t, err)
		return len(page.Items) == 1 && page.Items[0].Value.Interface() == int64(7)
	}, 10*time.Second, 20*time.Millisecond, "the value moved with the entity")

	byVersion := func(e *ryno.Entity, emit func(indexing.Value)) { emit(indexing.Int(e.Version)) }
	versioned := newClientOn(t, s, ryno.Options{Indexes: []ryno.Index{{Type: "note", Name: "by-version", Map: byVersion, Inline: 1}}})
	note := &ryno.Entity{Key: ryno.Key{Scope: "acme", Type: "note", ID: "n1"}}
	_, err := versioned.Set(ctx, note)
	require.NoError(t, err)
	written, err := versioned.Set(ctx, note)
	require.NoError(t, err)
	require.Equal(t, int64(2), written.Version)
	require.Eventually(t, func() bool {
		page, err := versioned.QueryIndexEntries(ctx, ryno.ScopedIndex{Scope: "acme", Index: "by-version"}, indexing.All(), ryno.PageOptions{})
		require.NoError(t, err)
		return len(page.Items) == 1 && page.Items[0].Value.Interface() == int64(2)
	}, 10*time.Second, 20*time.Millisecond, "a map function of the version sees the version written")

	entries := newClientOn(t, s, ryno.Options{Indexes: issueIndexes(false)})
	_, err = entries.Create(ctx, issue("i2", "ACME", "open", 3, 2))
	require.NoError(t, err)
	_, err = s.Set(ctx, issue("i2", "ACME", "open", 3, 4))
	var unknown *ryno.UnknownIndexError
	require.ErrorAs(t, err, &unknown, "an upsert does not write over another index set")
}
