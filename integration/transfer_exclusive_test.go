package integration_test

import (
	"encoding/json"
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
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// transferNotes stores the users of transferUsers (which hold unique values) and
// 40 notes (which hold none) with lists of every kind, metadata, an expiry and
// sequences: an exclusive import writes the notes as plain items and the users one
// at a time.
func transferNotes(t *testing.T) *store {
	t.Helper()
	s := transferUsers(t)
	note := func(i int) ryno.Key { return ryno.Key{Scope: "acme", Type: "note", ID: fmt.Sprintf("n%02d", i)} }
	for i := range 40 {
		e := &ryno.Entity{Key: note(i), Attributes: map[string]any{"title": fmt.Sprintf("Note %d", i), "n": i}}
		if i%4 == 0 {
			e.Meta = map[string]any{"by": "import"}
		}
		if i == 9 {
			e.Expires = time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)
		}
		_, err := s.Create(ctx, e)
		require.NoError(t, err)
		if i%5 == 4 {
			continue // no lists
		}
		u := user(fmt.Sprintf("u%02d", i%30), "").Key
		require.NoError(t, s.ReplaceRelationships(ctx, note(i), "follows", []ryno.Key{note((i + 1) % 40), u, note((i + 1) % 40)}))
		_, err = s.AddRelationships(ctx, note(i), "likes", []ryno.Key{note((i + 2) % 40), note((i + 3) % 40)})
		require.NoError(t, err)
		require.NoError(t, s.ReplaceRelationships(ctx, note(i), "ranks", []ryno.Key{note((i + 5) % 40), note((i + 4) % 40)}))
		if i%3 == 0 {
			_, _, err := s.TransactNext(ctx, note(i), "rev", func(int64) ([]ryno.Op, error) { return nil, nil })
			require.NoError(t, err)
		}
	}
	return s
}

// TestAnExclusiveImportWritesWhatTheOneAtATimeImportWrites imports one export
// into two empty prefixes, one line at a time and exclusively: both export as the
// original, their tables hold the same items (but for the tokens of the writes
// and the positions an ordered set draws from the clock), check finds nothing, and
// the exclusive import wrote the notes without a transaction.
func TestAnExclusiveImportWritesWhatTheOneAtATimeImportWrites(t *testing.T) {
	dynamotest.Parallel(t)
	a := transferNotes(t)
	lines := export(t, a, bulk.ExportOptions{})
	require.Len(t, lines, 70)
	file := strings.Join(lines, "\n") + "\n"

	b := newStoreOpts(t, nil, transferOptions())
	_, err := b.Import(ctx, strings.NewReader(file), bulk.ImportOptions{})
	require.NoError(t, err)

	var counter *dynamotest.Counter
	c := newStoreOpts(t, func(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
		counter = dynamotest.NewCounter(api)
		return counter
	}, transferOptions())
	counter.Reset()
	report, err := c.Import(ctx, strings.NewReader(file), bulk.ImportOptions{Exclusive: true})
	require.NoError(t, err)
	require.Equal(t, 70, report.Written)
	require.Equal(t, 71, report.Resume)
	require.Equal(t, 10+32*7, report.Relations, "the users' 10, and 7 for each note with lists")
	require.Equal(t, 30, counter.Count("TransactWriteItems"), "one transaction a user (each holds a unique value), none for a note")
	require.Positive(t, counter.Count("BatchWriteItem"))

	require.Equal(t, lines, export(t, b, bulk.ExportOptions{}))
	require.Equal(t, lines, export(t, c, bulk.ExportOptions{}), "the exclusive copy exports as the original")
	for _, table := range []func(*store) string{
		func(s *store) string { return s.Names().Entities },
		func(s *store) string { return s.Names().Relationships },
		func(s *store) string { return s.Names().IndexEntries },
	} {
		require.Equal(t, comparableItems(t, b, table(b)), comparableItems(t, c, table(c)))
	}
	requireCheckFindsNothing(t, c.Client)

	n, err := c.Sequence(ctx, ryno.Key{Scope: "acme", Type: "note", ID: "n03"}, "rev")
	require.NoError(t, err)
	require.Equal(t, int64(1), n, "sequences at their last numbers")

	again, err := c.Import(ctx, strings.NewReader(file), bulk.ImportOptions{Exclusive: true})
	require.NoError(t, err)
	require.Equal(t, 70, again.Kept, "an entity stored is kept")
	require.Equal(t, lines, export(t, c, bulk.ExportOptions{}))
}

// comparableItems scans table of s and returns its items as JSON, sorted, without
// what differs between two writes of the same entities: the writes' tokens, the
// time the tables were made, and
// the keys of ordered set entries (positions drawn from the clock), of which it
// keeps the object and its order.
func comparableItems(t *testing.T, s *store, table string) []string {
	t.Helper()
	var items []string
	p := dynamodb.NewScanPaginator(s.raw, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		require.NoError(t, err)
		for _, item := range page.Items {
			delete(item, "_token")
			delete(item, "_schema_applied") // when each prefix's tables were made
			if pred, ok := item["_predicate"].(*types.AttributeValueMemberS); ok && pred.Value == "ranks" {
				for name := range item {
					if name != "_subject_key" && name != "_object_key" && name != "_predicate" {
						delete(item, name)
					}
				}
			}
			b, err := json.Marshal(flatten(item))
			require.NoError(t, err)
			items = append(items, string(b))
		}
	}
	slices.Sort(items)
	return items
}

// flatten is item with each value as its Go form, for a stable JSON.
func flatten(item map[string]types.AttributeValue) map[string]any {
	out := make(map[string]any, len(item))
	for name, av := range item {
		b, _ := bulk.MarshalValue(av)
		out[name] = string(b)
	}
	return out
}

// TestAnExclusiveImportUnderThrottlingAndUnprocessedItemsLosesNothing imports
// exclusively through a DynamoDB that throttles batch requests and leaves half
// their items unprocessed: the copy exports as the original.
func TestAnExclusiveImportUnderThrottlingAndUnprocessedItemsLosesNothing(t *testing.T) {
	dynamotest.Parallel(t)
	a := transferNotes(t)
	lines := export(t, a, bulk.ExportOptions{})
	b := newStoreOpts(t, nil, transferOptions())
	chaos := dynamotest.NewChaos(b.raw, underLoad(7))
	opts := transferOptions()
	opts.TablePrefix = b.Names().Prefix
	opts.Retry = ryno.RetryOptions{BaseDelay: time.Millisecond, MaxDelay: 20 * time.Millisecond, MaxAttempts: 50}
	db, err := ryno.New(chaos, opts)
	require.NoError(t, err)
	report, err := db.Import(ctx, strings.NewReader(strings.Join(lines, "\n")), bulk.ImportOptions{Exclusive: true})
	require.NoError(t, err)
	require.Equal(t, 70, report.Written)
	requireFaultsMet(t, chaos)
	require.Equal(t, lines, export(t, b, bulk.ExportOptions{}), "nothing lost")
}

// TestAnExclusiveImportOfAFileNamingAnEntityTwiceWritesOneOfItsLines imports,
// exclusively and several times, a file naming one entity on lines of chunks
// written at once, with different lists: the entity and its list are one line's,
// the other line is kept, and check finds nothing.
func TestAnExclusiveImportOfAFileNamingAnEntityTwiceWritesOneOfItsLines(t *testing.T) {
	dynamotest.Parallel(t)
	note := func(i int) ryno.Key { return ryno.Key{Scope: "acme", Type: "note", ID: fmt.Sprintf("n%03d", i)} }
	line := func(i int, id ryno.Key, title string, list ...ryno.Key) string {
		l := bulk.Line{Key: id, Version: 1, Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
			Attributes: map[string]types.AttributeValue{"title": &types.AttributeValueMemberS{Value: title}},
			Lists:      map[string][]ryno.Key{"follows": list}}
		l.Updated = l.Created.Add(time.Duration(i) * time.Second)
		b, err := json.Marshal(l)
		require.NoError(t, err)
		return string(b)
	}
	for round := range 3 {
		var lines []string
		twice := note(1000 + round)
		for i := range 300 {
			lines = append(lines, line(i, note(i), "plain", note((i+1)%300)))
			switch i { // in the chunks of lines 1-50, 51-100 and 101-150
			case 10:
				lines = append(lines, line(i, twice, "first", note(1), note(2), note(3)))
			case 70:
				lines = append(lines, line(i, twice, "second", note(4)))
			case 130:
				lines = append(lines, line(i, twice, "third", note(5), note(6)))
			}
		}
		s := newStoreOpts(t, nil, transferOptions())
		report, err := s.Import(ctx, strings.NewReader(strings.Join(lines, "\n")), bulk.ImportOptions{Exclusive: true})
		require.NoError(t, err)
		require.Equal(t, 301, report.Written)
		require.Equal(t, 2, report.Kept, "the entity's other lines are kept")
		e, err := s.Get(ctx, twice, ryno.WithRelationships())
		require.NoError(t, err)
		want := map[string][]ryno.Key{"first": {note(1), note(2), note(3)}, "second": {note(4)}, "third": {note(5), note(6)}}[e.Attributes["title"].(string)]
		require.NotNil(t, want)
		require.Equal(t, want, e.Relationships["follows"], "the list of the line whose entity is stored")
		requireCheckFindsNothing(t, s.Client)
	}
}
