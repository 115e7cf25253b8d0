package ryno

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/schema"
)

// fakeIndex answers Query as DynamoDB does on one partition of an index whose items
// are in order: Limit counts the items read before the filter, a response that read
// Limit items carries a LastEvaluatedKey even when nothing follows, and one that
// stops early (as DynamoDB's 1 MB limit stops one) carries it too.
type fakeIndex struct {
	DynamoDBAPI // nil: calling any other operation panics

	t *testing.T
	// preds holds the predicate of the item at each position; an item's key is its
	// position, in attribute pos.
	preds []string
	// maxRead, when above 0, ends every response after that many items.
	maxRead  int
	requests []fakeRequest
}

// fakeRequest is what a Query asked for: its Limit and where it started (-1 for the
// beginning).
type fakeRequest struct {
	Start int
	Limit int32
}

func fakePos(i int) *types.AttributeValueMemberS { return str(fmt.Sprintf("%02d", i)) }

func (f *fakeIndex) Query(_ context.Context, in *dynamodb.QueryInput, _ ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	order := make([]int, len(f.preds))
	for i := range order {
		order[i] = i
	}
	if !aws.ToBool(in.ScanIndexForward) {
		slices.Reverse(order)
	}
	req := fakeRequest{Start: -1, Limit: aws.ToInt32(in.Limit)}
	next := 0
	if in.ExclusiveStartKey != nil {
		req.Start = posOf(f.t, in.ExclusiveStartKey)
		next = slices.Index(order, req.Start) + 1
		require.Positive(f.t, next, "start key %d is not in the index", req.Start)
	}
	f.requests = append(f.requests, req)
	require.Positive(f.t, req.Limit, "DynamoDB refuses a Limit below 1")

	out := &dynamodb.QueryOutput{}
	for next < len(order) && out.ScannedCount < req.Limit && (f.maxRead == 0 || int(out.ScannedCount) < f.maxRead) {
		pos := order[next]
		next++
		out.ScannedCount++
		if in.FilterExpression != nil && f.preds[pos] != in.ExpressionAttributeValues[":p"].(*types.AttributeValueMemberS).Value {
			continue
		}
		out.Items = append(out.Items, map[string]types.AttributeValue{"pos": fakePos(pos), "p": str(f.preds[pos])})
	}
	out.Count = int32(len(out.Items))
	if out.ScannedCount == req.Limit || next < len(order) {
		out.LastEvaluatedKey = map[string]types.AttributeValue{"pos": fakePos(order[next-1])}
	}
	return out, nil
}

func posOf(t *testing.T, key map[string]types.AttributeValue) int {
	t.Helper()
	s, ok := key["pos"].(*types.AttributeValueMemberS)
	require.True(t, ok, "key %v has no position", key)
	n, err := strconv.Atoi(s.Value)
	require.NoError(t, err)
	return n
}

// sparseIndex has 100 items; those of predicate "a" are at 3, 4, 30 to 35, and 80.
func sparseIndex(t *testing.T) *fakeIndex {
	preds := slices.Repeat([]string{"b"}, 100)
	for _, i := range []int{3, 4, 30, 31, 32, 33, 34, 35, 80} {
		preds[i] = "a"
	}
	return &fakeIndex{t: t, preds: preds}
}

// filteredQuery selects the items of predicate a.
var filteredQuery = pageQuery{
	in: &dynamodb.QueryInput{
		TableName:                 aws.String("t"),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		FilterExpression:          aws.String("#p = :p"),
		ExpressionAttributeNames:  map[string]string{"#pk": "pk", "#p": "p"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str("x"), ":p": str("a")},
	},
	position: position{attrs: []keyAttr{{name: "pos", max: schema.MaxSortKeyBytes}}},
	identity: "filtered",
}

// cursorAt returns the cursor filteredQuery issues at pos, or "" for -1.
func cursorAt(t *testing.T, pos int, descending bool) string {
	t.Helper()
	if pos < 0 {
		return ""
	}
	s, err := cursorCodec{identity: filteredQuery.identity, descending: descending}.encode(map[string]types.AttributeValue{"pos": fakePos(pos)})
	require.NoError(t, err)
	return s
}

func TestFilteredQueryPageReadsUntilThePageIsFull(t *testing.T) {
	tests := []struct {
		name       string
		limit      int
		after      int // the position the page continues from; -1 for the first page
		descending bool
		maxRead    int
		want       []int         // positions of the page's items
		cursor     int           // position the cursor continues from; -1 for none
		requests   []fakeRequest // every Query, in order
	}{
		{
			name:  "matches spread across several responses",
			limit: 4, after: -1,
			want: []int{3, 4, 30, 31}, cursor: 31,
			requests: []fakeRequest{{-1, 10}, {9, 11}, {20, 22}},
		},
		{
			name:  "the next page starts after the cursor and finds one match beyond past reads without any",
			limit: 4, after: 31,
			want: []int{32, 33, 34, 35}, cursor: 35,
			requests: []fakeRequest{{31, 10}, {41, 10}, {51, 20}, {71, 40}},
		},
		{
			name:  "a page ending before the last match has a cursor",
			limit: 8, after: -1,
			want: []int{3, 4, 30, 31, 32, 33, 34, 35}, cursor: 35,
			requests: []fakeRequest{{-1, 10}, {9, 25}, {34, 35}, {69, 70}},
		},
		{
			name:  "a page ending at the last match has none",
			limit: 9, after: -1,
			want: []int{3, 4, 30, 31, 32, 33, 34, 35, 80}, cursor: -1,
			requests: []fakeRequest{{-1, 10}, {9, 29}, {38, 39}, {77, 78}},
		},
		{
			name:  "a limit larger than the matches takes one request",
			limit: 100, after: -1,
			want: []int{3, 4, 30, 31, 32, 33, 34, 35, 80}, cursor: -1,
			requests: []fakeRequest{{-1, 101}},
		},
		{
			name:  "a page of one reads what one read unit holds",
			limit: 1, after: -1,
			want: []int{3}, cursor: 3,
			requests: []fakeRequest{{-1, 10}},
		},
		{
			name:  "no match after the cursor",
			limit: 3, after: 80,
			want: nil, cursor: -1,
			// The first response read its Limit, so only a second can tell that
			// nothing follows.
			requests: []fakeRequest{{80, 10}, {90, 44}},
		},
		{
			name:  "descending",
			limit: 2, after: -1, descending: true,
			want: []int{80, 35}, cursor: 35,
			requests: []fakeRequest{{-1, 10}, {90, 33}, {57, 44}},
		},
		{
			name:  "responses cut short by their size",
			limit: 2, after: -1, maxRead: 4,
			want: []int{3, 4}, cursor: 4,
			requests: []fakeRequest{{-1, 10}, {3, 10}, {7, 10}, {11, 12}, {15, 16}, {19, 20}, {23, 24}, {27, 28}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := sparseIndex(t)
			f.maxRead = tt.maxRead
			c, err := New(f, Options{TablePrefix: "t"})
			require.NoError(t, err)
			p := PageOptions{Limit: tt.limit, Cursor: cursorAt(t, tt.after, tt.descending), Descending: tt.descending}

			items, cursor, err := c.filteredQueryPage(context.Background(), filteredQuery, p)
			require.NoError(t, err)
			var got []int
			for _, item := range items {
				got = append(got, posOf(t, item))
			}
			require.Equal(t, tt.want, got)
			require.Equal(t, cursorAt(t, tt.cursor, tt.descending), cursor)
			require.Equal(t, tt.requests, f.requests)
		})
	}
}

func TestFilteredQueryPageRefusesCursorsOfOtherQueriesWithoutARequest(t *testing.T) {
	f := sparseIndex(t)
	c, err := New(f, Options{TablePrefix: "t"})
	require.NoError(t, err)
	other, err := cursorCodec{identity: "unfiltered"}.encode(map[string]types.AttributeValue{"pos": fakePos(3)})
	require.NoError(t, err)
	backwards := cursorAt(t, 3, true)

	for _, cursor := range []string{other, backwards} {
		_, _, err := c.filteredQueryPage(context.Background(), filteredQuery, PageOptions{Cursor: cursor})
		require.ErrorIs(t, err, ErrInvalidCursor)
	}
	_, _, err = c.filteredQueryPage(context.Background(), filteredQuery, PageOptions{Limit: -1})
	require.ErrorIs(t, err, ErrInvalid)
	require.Empty(t, f.requests)
}

func TestFilteredReadSize(t *testing.T) {
	tests := []struct {
		name                     string
		remaining, read, matched int
		want                     int32
	}{
		{"the first read is the page and one beyond", 20, 0, 0, 21},
		{"but at least what one read unit holds", 4, 0, 0, minFilteredRead},
		{"scaled by the share of matches", 20, 10, 1, 21 * 11 / 2},
		{"at least as many as were read before", 2, 100, 50, 100},
		{"a read without matches makes the next larger", 3, 10, 0, 44},
		{"a guess is capped", 10, 500, 0, maxFilteredRead},
		{"the page itself is never capped", 5000, 500, 0, 5001},
		{"within int32", math.MaxInt, 0, 0, math.MaxInt32},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, filteredReadSize(tt.remaining, tt.read, tt.matched))
		})
	}
}

func TestWithPredicateFilterLeavesItsInputAlone(t *testing.T) {
	c, err := New(sparseIndex(t), Options{TablePrefix: "t"})
	require.NoError(t, err)
	in := c.incomingQuery(Key{Scope: "s", Type: "t", ID: "o"})
	before := *in
	names, values := len(in.ExpressionAttributeNames), len(in.ExpressionAttributeValues)

	out := withPredicateFilter(in, "follows")
	require.Equal(t, `_predicate="follows"`, renderExpr(t, out.FilterExpression, out.ExpressionAttributeNames, out.ExpressionAttributeValues))
	require.Equal(t, renderExpr(t, in.KeyConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues),
		renderExpr(t, out.KeyConditionExpression, out.ExpressionAttributeNames, out.ExpressionAttributeValues))
	require.Equal(t, before, *in)
	require.Len(t, in.ExpressionAttributeNames, names)
	require.Len(t, in.ExpressionAttributeValues, values)
	require.Equal(t, schema.AttrPredicate, out.ExpressionAttributeNames["#predicate"])
}
