package migrations

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

type item = map[string]types.AttributeValue

func person(id string) entity.Key {
	return entity.Key{Scope: "acme", Type: "person", ID: id}
}

func entry(subject entity.Key, predicate string, index int, object entity.Key) relationships.Entry {
	return relationships.Entry{Subject: subject, Predicate: predicate, Index: index, Object: object}
}

func entryItems(entries ...relationships.Entry) []item {
	var items []item
	for _, e := range entries {
		items = append(items, e.Item())
	}
	return items
}

// bookkeeping returns the markers and the head, at version 1, that the entries of
// one list call for: next above every position, their count and digest, and per
// object the sorted positions of its entries.
func bookkeeping(next int, entries ...relationships.Entry) []item {
	s, p := entries[0].Subject, entries[0].Predicate
	positions := map[entity.Key][]int{}
	for _, e := range entries {
		positions[e.Object] = append(positions[e.Object], e.Index)
	}
	var items []item
	for o, pos := range positions {
		slices.Sort(pos)
		items = append(items, relationships.MarkerItem(s, p, o, pos))
	}
	return append(items, headItem(s, p, 1, next, entries))
}

func headItem(s entity.Key, p string, version, next int, entries []relationships.Entry) item {
	h := relationships.RawAttributes(s, p)
	maps.Copy(h, relationships.HeadPrimaryKey(s, p))
	h[schema.AttrVersion] = &types.AttributeValueMemberN{Value: strconv.Itoa(version)}
	h[schema.AttrNext] = &types.AttributeValueMemberN{Value: strconv.Itoa(next)}
	h[schema.AttrCount] = &types.AttributeValueMemberN{Value: strconv.Itoa(len(entries))}
	h[schema.AttrDigest] = &types.AttributeValueMemberN{Value: relationships.DigestOf(entries).String()}
	return h
}

// legacyTable is a relationship entries table holding lists written before heads,
// and what it must hold once their heads and markers are built.
type legacyTable struct {
	seed, want []item
}

func newLegacyTable() legacyTable {
	var t legacyTable
	add := func(seed, want []item) {
		t.seed = append(t.seed, seed...)
		t.want = append(t.want, want...)
	}
	legacy := func(next int, entries ...relationships.Entry) {
		add(entryItems(entries...), append(entryItems(entries...), bookkeeping(next, entries...)...))
	}
	alice, bob, carol := person("alice"), person("bob"), person("carol")

	// An object twice, positions with gaps, another object differing only by scope,
	// and an entry that does not read as one (its index is not a number).
	follows := []relationships.Entry{
		entry(alice, "follows", 0, bob),
		entry(alice, "follows", 3, carol),
		entry(alice, "follows", 4, entity.Key{Scope: "other", Type: "person", ID: "bob"}),
		entry(alice, "follows", 7, bob),
	}
	legacy(8, follows...)
	malformed := entry(alice, "follows", 9, person("zed")).Item()
	malformed[schema.AttrIndex] = &types.AttributeValueMemberS{Value: "nine"}
	add([]item{malformed}, []item{malformed})

	// More lists of the same subject, two of them with predicates one the prefix of
	// the other, and keys that need escaping.
	legacy(3, entry(alice, "likes", 2, person("dave")))
	legacy(6, entry(alice, "friend", 5, person("frank")))
	legacy(1, entry(alice, "friends", 0, person("erin")))
	legacy(2, entry(entity.Key{Scope: "acme", Type: "team", ID: "x:y%z"}, "tag:a%b", 1, carol))

	// A list that has a head is left alone, even where its head says more than its
	// entries (positions 2 to 9 were removed).
	bobs := []relationships.Entry{entry(bob, "follows", 0, person("kim")), entry(bob, "follows", 1, person("lee"))}
	kept := append(entryItems(bobs...), headItem(bob, "follows", 4, 10, bobs),
		relationships.MarkerItem(bob, "follows", person("kim"), []int{0}),
		relationships.MarkerItem(bob, "follows", person("lee"), []int{1}))
	add(kept, kept)

	// A subject with more entries than a Scan page holds.
	var many []relationships.Entry
	for i := range 8 {
		many = append(many, entry(carol, "follows", 2*i, person(fmt.Sprintf("o%d", i))))
	}
	legacy(15, many...)

	// An entry whose raw subject is not its partition's is not one of its lists.
	stray := entry(person("dave"), "follows", 0, bob).Item()
	stray[schema.AttrSubjectID] = &types.AttributeValueMemberS{Value: "eve"}
	add([]item{stray}, []item{stray})

	// A run cut off after some markers: one right, one of an object whose entry
	// was deleted since.
	eve := person("eve")
	eves := []relationships.Entry{entry(eve, "follows", 1, person("grace")), entry(eve, "follows", 4, person("heidi"))}
	add(append(entryItems(eves...),
		relationships.MarkerItem(eve, "follows", person("grace"), []int{1}),
		relationships.MarkerItem(eve, "follows", person("ivan"), []int{9})),
		append(entryItems(eves...), bookkeeping(5, eves...)...))

	// Markers left of a list whose entries are all gone.
	add([]item{relationships.MarkerItem(person("frank"), "likes", person("judy"), []int{0})}, nil)
	return t
}

// newListStore returns a fake whose tables exist, at version recorded (none when 0),
// with items in the relationship entries table.
func newListStore(t *testing.T, recorded int, items []item) (*fakeAPI, schema.Names) {
	t.Helper()
	api := newFakeAPI(0)
	n := testNames(t)
	for _, def := range schema.Definitions(n, onDemand) {
		api.put(describeInput(def))
	}
	if recorded > 0 {
		api.setVersion(n.Entities, &types.AttributeValueMemberN{Value: strconv.Itoa(recorded)})
	}
	api.putItems(n.Relationships, items...)
	return api, n
}

// byKey returns items by the fake's key of the relationship entries table.
func byKey(t *testing.T, api *fakeAPI, n schema.Names, items []item) map[string]item {
	t.Helper()
	out := map[string]item{}
	for _, it := range items {
		k, err := api.tables[n.Relationships].itemKey(it)
		require.NoError(t, err)
		out[k] = it
	}
	return out
}

// expectedWrites returns how many marker writes (puts and deletes) and heads it
// takes to turn before into after.
func expectedWrites(before, after map[string]item) (markers, heads int) {
	for k, it := range after {
		switch {
		case strings.Contains(k, "\x00"+schema.ListHeadPrefix) && before[k] == nil:
			heads++
		case before[k] == nil || !maps.EqualFunc(before[k], it, sameAttribute):
			markers++
		}
	}
	for k := range before {
		if after[k] == nil {
			markers++
		}
	}
	return markers, heads
}

func sameAttribute(a, b types.AttributeValue) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

func TestBuildListHeads(t *testing.T) {
	tests := []struct {
		name        string
		scanPage    int
		unprocessed int
	}{
		{name: "one page"},
		{name: "one item a page", scanPage: 1},
		{name: "three items a page", scanPage: 3},
		{name: "batch writes left unprocessed", scanPage: 2, unprocessed: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			lt := newLegacyTable()
			api, n := newListStore(t, 1, lt.seed)
			api.scanPage, api.unprocessed = tt.scanPage, tt.unprocessed
			before, want := api.itemsOf(n.Relationships), byKey(t, api, n, lt.want)

			require.NoError(t, buildListHeads(ctx, api, n))
			require.Equal(t, want, api.itemsOf(n.Relationships))

			markers, heads := expectedWrites(before, want)
			require.Equal(t, markers, api.batched, "only the markers missing, different or stale are written")
			require.Equal(t, heads, api.count("PutItem"), "one head per list without one")
			requireHeadsLast(t, api.log)

			writes := api.writes()
			require.NoError(t, buildListHeads(ctx, api, n))
			require.Equal(t, writes, api.writes(), "a second run writes nothing")
			require.Equal(t, want, api.itemsOf(n.Relationships))
		})
	}
}

// requireHeadsLast checks, in the order items were written, that no marker of a
// list is written after its head.
func requireHeadsLast(t *testing.T, written []string) {
	t.Helper()
	heads := map[string]bool{}
	for _, k := range written {
		subject, sortKey, _ := strings.Cut(k, "\x00")
		if strings.HasPrefix(sortKey, schema.ListHeadPrefix) {
			heads[subject+"\x00"+sortKey[len(schema.ListHeadPrefix):]] = true
			continue
		}
		predicate, _, _ := strings.Cut(strings.TrimPrefix(sortKey, schema.ListMarkerPrefix), string(schema.Delimiter))
		require.False(t, heads[subject+"\x00"+predicate], "marker %q written after its head", k)
	}
}

func TestBuildListHeadsCompletesAFailedRun(t *testing.T) {
	fail := errors.New("injected")
	for _, op := range []string{"Scan", "BatchWriteItem", "PutItem"} {
		t.Run(op+" fails", func(t *testing.T) {
			ctx := context.Background()
			lt := newLegacyTable()
			api, n := newListStore(t, 1, lt.seed)
			api.scanPage = 3
			want := byKey(t, api, n, lt.want)

			api.setFailure(op, fail)
			require.ErrorIs(t, buildListHeads(ctx, api, n), fail)
			for k := range api.itemsOf(n.Relationships) {
				if want[k] == nil || strings.Contains(k, "\x00"+schema.ListHeadPrefix) {
					require.Contains(t, byKey(t, api, n, lt.seed), k, "no head is written before its markers, nor anything but markers")
				}
			}

			api.setFailure(op, nil)
			require.NoError(t, buildListHeads(ctx, api, n))
			require.Equal(t, want, api.itemsOf(n.Relationships))
		})
	}
}

func TestBuildListHeadsKeepsAHeadWrittenMeanwhile(t *testing.T) {
	ctx := context.Background()
	alice := person("alice")
	entries := []relationships.Entry{entry(alice, "follows", 0, person("bob")), entry(alice, "follows", 1, person("carol"))}
	theirs := headItem(alice, "follows", 2, 2, entries)
	api, n := newListStore(t, 1, []item{theirs})
	w := &listWriter{api: api, table: n.Relationships}

	ours := listHead{item: headItem(alice, "follows", 1, 1, entries[:1]), name: "alice's follows"}
	require.NoError(t, w.putHead(ctx, ours), "a head that exists is a list done")
	require.Equal(t, byKey(t, api, n, []item{theirs}), api.itemsOf(n.Relationships))

	fail := errors.New("injected")
	api.setFailure("PutItem", fail)
	err := w.putHead(ctx, ours)
	require.ErrorIs(t, err, fail)
	require.ErrorContains(t, err, "write the head of alice's follows")
}

func TestBuildListHeadsRetriesUnprocessedWritesUntilTheContextEnds(t *testing.T) {
	api, n := newListStore(t, 1, entryItems(entry(person("alice"), "follows", 0, person("bob"))))
	api.unprocessed = 1 << 30
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()

	err := buildListHeads(ctx, api, n)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorContains(t, err, "1 unprocessed")
	require.Zero(t, api.count("PutItem"), "no head without its markers")
}

func TestUpBuildsListHeads(t *testing.T) {
	ctx := context.Background()
	lt := newLegacyTable()
	api, n := newListStore(t, 1, lt.seed)
	p, _ := newTestProvider(t, api, onDemand)

	plan, err := p.Plan(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"enable-time-to-live app_entities_master  0", "run-migration app_entities_master  2", "run-migration app_entities_master  3",
		"record-version app_entities_master  4"}, actionStrings(plan.Actions), "a store of an earlier release gets time to live too")

	res, err := p.Up(ctx)
	require.NoError(t, err)
	require.Equal(t, actionStrings(plan.Actions), actionStrings(res.Actions))
	require.Equal(t, 1, res.RecordedVersion)
	require.Equal(t, CurrentVersion, res.Version)
	require.Equal(t, byKey(t, api, n, lt.want), api.itemsOf(n.Relationships))

	writes := api.writes()
	again, err := p.Up(ctx)
	require.NoError(t, err)
	require.False(t, again.Changed())
	require.Equal(t, writes, api.writes())
}
