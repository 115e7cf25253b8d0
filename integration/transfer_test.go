package integration_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/bulk"
	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// transferOptions are the options of both stores of a transfer: indexes, a set and
// an ordered set.
func transferOptions() ryno.Options {
	return ryno.Options{Indexes: uniqueIndexes, Sets: []string{"likes"}, OrderedSets: []string{"ranks"}}
}

// transferUsers stores 30 users with what an export must carry: versions above 1,
// metadata, an expiry, values of every DynamoDB type, lists of every kind and a
// sequence.
func transferUsers(t *testing.T) *store {
	t.Helper()
	s := newStoreOpts(t, nil, transferOptions())
	for i := range 30 {
		u := user(fmt.Sprintf("u%02d", i), fmt.Sprintf("u%02d@example.com", i))
		u.Attributes["bio"] = strings.Repeat("x", i*10)
		u.Attributes["big"] = "123456789012345678901234567890.5"
		if i%3 == 0 {
			u.Meta = map[string]any{"source": "signup", "n": i}
		}
		if i == 7 {
			u.Expires = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		}
		_, err := s.Create(ctx, u)
		require.NoError(t, err)
	}
	u := func(i int) ryno.Key { return user(fmt.Sprintf("u%02d", i), "").Key }
	for range 2 {
		_, err := s.Patch(ctx, u(1), ryno.Patch{Add: map[string]any{"age": 1}})
		require.NoError(t, err)
	}
	_, err := s.raw.UpdateItem(ctx, &dynamodb.UpdateItemInput{ // values of every type, as another program writes them
		TableName: aws.String(s.Names().Entities), Key: rawKey(u(2)),
		UpdateExpression:         aws.String("SET #ss = :ss, #ns = :ns, #b = :b, #bs = :bs, #n = :n, #m = :m"),
		ExpressionAttributeNames: map[string]string{"#ss": "tags", "#ns": "scores", "#b": "avatar", "#bs": "keys", "#n": "nothing", "#m": "nested"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":ss": &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
			":ns": &types.AttributeValueMemberNS{Value: []string{"1", "2.5", "99999999999999999999999999999999999999"}},
			":b":  &types.AttributeValueMemberB{Value: []byte{0, 1, 2, 255}},
			":bs": &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}},
			":n":  &types.AttributeValueMemberNULL{Value: true},
			":m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
				"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberBOOL{Value: true}, &types.AttributeValueMemberN{Value: "-0.001"}}},
			}},
		},
	})
	require.NoError(t, err)
	err = s.ReplaceRelationships(ctx, u(1), "follows", []ryno.Key{u(4), u(3), u(2), u(3)})
	require.NoError(t, err)
	_, err = s.AddRelationships(ctx, u(1), "likes", []ryno.Key{u(5), u(6)})
	require.NoError(t, err)
	err = s.ReplaceRelationships(ctx, u(1), "ranks", []ryno.Key{u(9), u(8), u(7)})
	require.NoError(t, err)
	_, err = s.AddRelationships(ctx, u(2), "follows", []ryno.Key{u(1)})
	require.NoError(t, err)
	for range 3 {
		_, _, err := s.TransactNext(ctx, u(1), "invoice", func(int64) ([]ryno.Op, error) { return nil, nil })
		require.NoError(t, err)
	}
	return s
}

// export returns the lines of an export of s, sorted.
func export(t *testing.T, s *store, opts bulk.ExportOptions) []string {
	t.Helper()
	var buf bytes.Buffer
	report, err := s.Export(ctx, &buf, opts)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if buf.Len() == 0 {
		lines = nil
	}
	require.Equal(t, len(lines), report.Lines)
	slices.Sort(lines)
	return lines
}

// TestExportThenImportGivesTheSameStore exports a store and imports it into an
// empty prefix: every entity comes back with its attributes of every type, Meta,
// timestamps, expiry and version, every list in order, every index entry and
// claim, every sequence at its last number; an export of the copy is the same, and
// check finds nothing.
func TestExportThenImportGivesTheSameStore(t *testing.T) {
	dynamotest.Parallel(t)
	a := transferUsers(t)
	lines := export(t, a, bulk.ExportOptions{Segments: 3})
	require.Len(t, lines, 30)

	b := newStoreOpts(t, nil, transferOptions())
	report, err := b.Import(ctx, strings.NewReader(strings.Join(lines, "\n")+"\n"), bulk.ImportOptions{})
	require.NoError(t, err)
	require.Equal(t, 30, report.Written)
	require.Equal(t, 31, report.Resume, "every line done")
	require.Equal(t, 10, report.Relations)

	require.Equal(t, lines, export(t, b, bulk.ExportOptions{}), "the copy exports as the original")
	for i := range 30 {
		k := user(fmt.Sprintf("u%02d", i), "").Key
		want, err := a.Get(ctx, k, ryno.WithRelationships())
		require.NoError(t, err)
		got, err := b.Get(ctx, k, ryno.WithRelationships())
		require.NoError(t, err)
		require.Equal(t, want, got, "%s as stored", k)
		held, err := b.GetByUnique(ctx, ryno.ScopedIndex{Scope: "acme", Index: "user-email"}, indexing.String(fmt.Sprintf("u%02d@example.com", i)))
		require.NoError(t, err)
		require.Equal(t, k, held.Key, "the unique value is claimed")
	}
	n, err := b.Sequence(ctx, user("u01", "").Key, "invoice")
	require.NoError(t, err)
	require.Equal(t, int64(3), n)
	next, _, err := b.TransactNext(ctx, user("u01", "").Key, "invoice", func(int64) ([]ryno.Op, error) { return nil, nil })
	require.NoError(t, err)
	require.Equal(t, int64(4), next, "the sequence goes on where it stood")

	byAge, err := b.QueryIndex(ctx, ryno.ScopedIndex{Scope: "acme", Index: "user-age"}, indexing.Equal(indexing.Int(30)), ryno.PageOptions{})
	require.NoError(t, err)
	require.Len(t, byAge.Items, 29, "every index entry, u01's at 32")
	var orphans, traces int
	_, err = b.Check(ctx, ryno.CheckOptions{OnOrphan: func(ryno.Orphan) { orphans++ }, OnTrace: func(ryno.Trace) { traces++ }})
	require.NoError(t, err)
	require.Zero(t, orphans+traces, "check finds nothing")
}

func TestImportKeepsOverwritesOrReplacesOlderEntities(t *testing.T) {
	dynamotest.Parallel(t)
	a := transferUsers(t)
	file := strings.Join(export(t, a, bulk.ExportOptions{}), "\n")
	b := newStoreOpts(t, nil, transferOptions())
	_, err := b.Import(ctx, strings.NewReader(file), bulk.ImportOptions{})
	require.NoError(t, err)
	k := user("u01", "").Key
	_, err = b.Patch(ctx, k, ryno.Patch{Set: map[string]any{"age": 99}})
	require.NoError(t, err)

	report, err := b.Import(ctx, strings.NewReader(file), bulk.ImportOptions{Existing: bulk.Keep})
	require.NoError(t, err)
	require.Equal(t, 30, report.Kept, "existing entities are kept")
	requireAge(t, b, k, 99)

	report, err = b.Import(ctx, strings.NewReader(file), bulk.ImportOptions{Existing: bulk.Newer})
	require.NoError(t, err)
	require.Equal(t, 30, report.Kept, "none is newer than stored")
	requireAge(t, b, k, 99)

	report, err = b.Import(ctx, strings.NewReader(file), bulk.ImportOptions{Existing: bulk.Overwrite})
	require.NoError(t, err)
	require.Equal(t, 30, report.Written)
	requireAge(t, b, k, 32)
	e, err := b.Get(ctx, k)
	require.NoError(t, err)
	require.Equal(t, int64(5), e.Version, "a version never goes back: the one after the stored")
}

func requireAge(t *testing.T, s *store, k ryno.Key, age int) {
	t.Helper()
	e, err := s.Get(ctx, k)
	require.NoError(t, err)
	require.Equal(t, fmt.Sprint(age), fmt.Sprint(e.Attributes["age"]))
}

// TestImportReportsBadLinesByNumber imports a file with lines that cannot be read
// or written: each is named by its number, none is written in part, and the import
// stops at a bad line unless told to go on.
func TestImportReportsBadLinesByNumber(t *testing.T) {
	dynamotest.Parallel(t)
	a := transferUsers(t)
	good := export(t, a, bulk.ExportOptions{Types: []ryno.Type{{Scope: "acme", Name: "user"}}})
	bad := []string{
		good[0],
		`{"key":`,
		strings.Replace(good[3], `"attributes":{`, `"attributes":{"_hidden":{"S":"x"},`, 1),
		strings.Replace(good[4], `"type":"user"`, `"type":""`, 1),
		strings.Replace(good[5], `"u05@example.com"`, `"taken@example.com"`, 1), // a value another entity holds
		good[6],
	}
	file := strings.Join(bad, "\n")

	b := newStoreOpts(t, nil, transferOptions())
	_, err := b.Create(ctx, user("holder", "taken@example.com"))
	require.NoError(t, err)
	report, err := b.Import(ctx, strings.NewReader(file), bulk.ImportOptions{SkipBadLines: true})
	require.NoError(t, err)
	require.Equal(t, 2, report.Written)
	require.Equal(t, 4, report.Bad)
	var numbers []int
	for _, e := range report.Errors {
		var le *bulk.LineError
		require.True(t, errors.As(e, &le), "%v", e)
		numbers = append(numbers, le.Line)
	}
	slices.Sort(numbers)
	require.Equal(t, []int{2, 3, 4, 5}, numbers)
	_, err = b.Get(ctx, user("u05", "").Key)
	require.ErrorIs(t, err, ryno.ErrNotFound, "a line refused writes nothing")

	c := newStoreOpts(t, nil, transferOptions())
	stopped, err := c.Import(ctx, strings.NewReader(file), bulk.ImportOptions{})
	var le *bulk.LineError
	require.ErrorAs(t, err, &le)
	require.Contains(t, []int{2, 3, 4, 5}, le.Line, "it stops at a bad line (lines are written in parallel)")
	require.LessOrEqual(t, stopped.Resume, le.Line, "a resumed import starts at or before it")
}

// TestExportNamesTheEntitiesItCannotRead exports a store holding an entity item
// another program wrote with a _created that is no time: the others are exported,
// and the export fails naming it.
func TestExportNamesTheEntitiesItCannotRead(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreOpts(t, nil, transferOptions())
	for _, id := range []string{"a", "b"} {
		_, err := s.Create(ctx, user(id, id+"@example.com"))
		require.NoError(t, err)
	}
	_, err := s.raw.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.Names().Entities), Key: rawKey(user("b", "").Key),
		UpdateExpression: aws.String("SET #c = :c"), ExpressionAttributeNames: map[string]string{"#c": "_created"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":c": &types.AttributeValueMemberS{Value: "yesterday"}},
	})
	require.NoError(t, err)
	var buf bytes.Buffer
	report, err := s.Export(ctx, &buf, bulk.ExportOptions{})
	require.ErrorIs(t, err, ryno.ErrUnreadable)
	require.ErrorContains(t, err, "acme:user:b")
	require.Equal(t, 1, report.Lines)
	require.Equal(t, 1, report.Bad)
	require.Contains(t, buf.String(), `"id":"a"`)
}

// TestImportIntoAShardedStore exports an unsharded store and imports it, one line
// at a time and exclusively, into stores that shard the users' listing and the
// entries pointing at them: the copies export as the original, list the users in
// the same order by update time, and their reverse lookups as the original's.
func TestImportIntoAShardedStore(t *testing.T) {
	dynamotest.Parallel(t)
	a := transferUsers(t)
	lines := export(t, a, bulk.ExportOptions{})
	users := ryno.Type{Scope: "acme", Name: "user"}
	listed := func(db *ryno.Client) []string {
		var ids []string
		for e, err := range db.AllByType(ctx, users, ryno.PageOptions{Limit: 7}) {
			require.NoError(t, err)
			ids = append(ids, e.Key.ID)
		}
		return ids
	}
	for _, exclusive := range []bool{false, true} {
		opts := transferOptions()
		opts.ShardedTypes = []ryno.ShardedType{{Type: "user", Shards: 4}}
		opts.ShardedIncoming = []ryno.ShardedType{{Type: "user", Shards: 3}}
		b := newStoreOpts(t, nil, opts)
		_, err := b.Import(ctx, strings.NewReader(strings.Join(lines, "\n")+"\n"), bulk.ImportOptions{Exclusive: exclusive})
		require.NoError(t, err)
		require.Equal(t, lines, export(t, b, bulk.ExportOptions{}), "exclusive %v: the copy exports as the original", exclusive)
		require.Equal(t, listed(a.Client), listed(b.Client), "exclusive %v: listed in the same order", exclusive)
		for _, id := range []string{"u01", "u03", "u05"} {
			k := user(id, "").Key
			want, err := a.ReverseRelationships(ctx, k, "", ryno.PageOptions{})
			require.NoError(t, err)
			got, err := b.ReverseRelationships(ctx, k, "", ryno.PageOptions{})
			require.NoError(t, err)
			require.Equal(t, want.Items, got.Items, "exclusive %v: who points at %s", exclusive, id)
		}
		requireCheckFindsNothing(t, b.Client)
	}
}
