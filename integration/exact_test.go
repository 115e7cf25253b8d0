package integration_test

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/ryno"
)

// entityItems returns the items of the entities table that are entities, keyed by
// the entity key, read consistently.
func entityItems(t *testing.T, raw *dynamodb.Client, names schema.Names) map[string]map[string]types.AttributeValue {
	t.Helper()
	items := map[string]map[string]types.AttributeValue{}
	p := dynamodb.NewScanPaginator(raw, &dynamodb.ScanInput{TableName: aws.String(names.Entities), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		require.NoError(t, err)
		for _, item := range out.Items {
			if _, ok := item[schema.AttrScope]; !ok {
				continue // the schema version record
			}
			s := func(name string) string { return item[name].(*types.AttributeValueMemberS).Value }
			items[schema.SubjectKey(s(schema.AttrScope), s(schema.AttrType), s(schema.AttrID))] = item
		}
	}
	return items
}

// expectedIndexItems returns the index entries the entities stored emit with the
// store's indexes, keyed as indexItems keys them: what the index entries table must
// hold exactly. A tombstone left behind fails the test: every Delete must finish.
func expectedIndexItems(t *testing.T, s *store) map[string]map[string]types.AttributeValue {
	t.Helper()
	want := map[string]map[string]types.AttributeValue{}
	for key, item := range entityItems(t, s.raw, s.Names()) {
		require.NotContains(t, item, schema.AttrDeleting, "%s: a Delete did not finish", key)
		require.NotContains(t, item, schema.AttrPending, "%s: index entries are still being written", key)
		var e struct {
			Scope string `dynamodbav:"_scope"`
			Type  string `dynamodbav:"_type"`
			ID    string `dynamodbav:"_id"`
		}
		require.NoError(t, attributevalue.UnmarshalMap(item, &e))
		got, err := s.Get(ctx, ryno.Key{Scope: e.Scope, Type: e.Type, ID: e.ID})
		require.NoError(t, err)
		for _, ix := range s.indexes {
			if ix.Type != e.Type {
				continue
			}
			projected := map[string]types.AttributeValue{}
			for _, name := range ix.Project {
				if v, ok := item[name]; ok {
					projected[name] = v
				}
			}
			ix.Map(got, func(v indexing.Value) {
				entry := indexentries.Entry{Scope: e.Scope, Type: e.Type, ID: e.ID, IndexName: ix.Name, Value: v, Attributes: projected}
				entryItem, err := entry.Item()
				require.NoError(t, err)
				k := fmt.Sprint(key, " ", entryItem[schema.AttrUniqueKey].(*types.AttributeValueMemberS).Value)
				want[k] = entryItem
			})
		}
	}
	return want
}

// requireIndexExact checks that the index entries table holds exactly what the
// stored entities emit: no stale entry, no missing one, projections up to date.
func requireIndexExact(t *testing.T, s *store) {
	t.Helper()
	want := expectedIndexItems(t, s)
	got := indexItems(t, s.raw, s.Names())
	var stale, missing, differ []string
	for k, item := range got {
		w, ok := want[k]
		switch {
		case !ok:
			stale = append(stale, k)
		case !maps.EqualFunc(w, item, attributeEqual):
			differ = append(differ, k)
		}
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			missing = append(missing, k)
		}
	}
	slices.Sort(stale)
	slices.Sort(missing)
	require.Empty(t, stale, "stale index entries")
	require.Empty(t, missing, "missing index entries")
	require.Empty(t, differ, "index entries with other attributes")
}

// attributeEqual compares two attribute values by what they decode to.
func attributeEqual(a, b types.AttributeValue) bool {
	var x, y any
	if attributevalue.Unmarshal(a, &x) != nil || attributevalue.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// listItems returns the raw items of subject's list for predicate: its head, its
// markers and its entries, read consistently.
func listItems(t *testing.T, s *store, subject ryno.Key, predicate string) (head map[string]types.AttributeValue, markers, entries []map[string]types.AttributeValue) {
	t.Helper()
	p := dynamodb.NewQueryPaginator(s.raw, &dynamodb.QueryInput{
		TableName:                 aws.String(s.Names().Relationships),
		KeyConditionExpression:    aws.String("#k = :k"),
		ExpressionAttributeNames:  map[string]string{"#k": schema.AttrSubjectKey},
		ExpressionAttributeValues: map[string]types.AttributeValue{":k": str(subject.String())},
		ConsistentRead:            aws.Bool(true),
	})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		require.NoError(t, err)
		for _, item := range out.Items {
			k := item[schema.AttrPredicateKey].(*types.AttributeValueMemberS).Value
			switch {
			case k == schema.ListHeadKey(predicate):
				head = item
			case strings.HasPrefix(k, schema.ListMarkersPrefix(predicate)):
				markers = append(markers, item)
			case strings.HasPrefix(k, schema.PredicatePrefix(predicate)):
				entries = append(entries, item)
			}
		}
	}
	return head, markers, entries
}

// requireListExact checks that the head and markers of subject's list for predicate
// describe its entries exactly: no lease left, the count and digest of the entries,
// a next free position above every entry, positions used once, and one marker per
// object holding exactly its positions.
func requireListExact(t *testing.T, s *store, subject ryno.Key, predicate string) {
	t.Helper()
	headItem, markerItems, entryItems := listItems(t, s, subject, predicate)
	var entries []relationships.Entry
	for _, item := range entryItems {
		e, err := relationships.FromItem(item)
		require.NoError(t, err)
		entries = append(entries, e)
	}
	head, err := relationships.HeadFromItem(subject, predicate, headItem)
	require.NoError(t, err)
	if headItem == nil {
		require.Empty(t, entries, "a list with entries has a head")
		require.Empty(t, markerItems, "a list with markers has a head")
		return
	}
	require.Empty(t, head.Lease, "no lease is left")
	require.Equal(t, len(entries), head.Count, "the head counts the entries")
	require.True(t, relationships.DigestOf(entries).Equal(head.Digest), "the head's digest is the entries'")
	want := map[ryno.Key][]int{}
	used := map[int]bool{}
	for _, e := range entries {
		require.Less(t, e.Index, head.Next, "next is above every position")
		require.False(t, used[e.Index], "position %d is used twice", e.Index)
		used[e.Index] = true
		want[e.Object] = append(want[e.Object], e.Index)
	}
	got := map[ryno.Key][]int{}
	for _, item := range markerItems {
		o := ryno.Key{Scope: stringAttr(item, schema.AttrObjectScope), Type: stringAttr(item, schema.AttrObjectType), ID: stringAttr(item, schema.AttrObjectID)}
		m, err := relationships.MarkerFromItem(o, item)
		require.NoError(t, err)
		if len(m.Positions) > 0 {
			got[o] = m.Positions
		}
	}
	for o := range want {
		slices.Sort(want[o])
	}
	require.Equal(t, want, got, "one marker per object, holding its positions")
}

func stringAttr(item map[string]types.AttributeValue, name string) string {
	if s, ok := item[name].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// claimItems returns the claims of the index entries table.
func claimItems(t *testing.T, s *store) []indexentries.Claim {
	t.Helper()
	var claims []indexentries.Claim
	p := dynamodb.NewScanPaginator(s.raw, &dynamodb.ScanInput{TableName: aws.String(s.Names().IndexEntries), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		require.NoError(t, err)
		for _, item := range out.Items {
			if indexentries.IsClaim(item) {
				c, err := indexentries.ClaimFromItem(item)
				require.NoError(t, err)
				claims = append(claims, c)
			}
		}
	}
	return claims
}

// requireClaimsExact checks that the claims are exactly the values the stored
// entities emit into unique indexes, each owned by its entity.
func requireClaimsExact(t *testing.T, s *store) {
	t.Helper()
	var want []indexentries.Claim
	for _, item := range expectedIndexItems(t, s) {
		e, err := indexentries.FromItem(item)
		require.NoError(t, err)
		for _, ix := range s.indexes {
			if ix.Unique && ix.Name == e.IndexName && ix.Type == e.Type {
				want = append(want, indexentries.ClaimOf(e))
			}
		}
	}
	require.ElementsMatch(t, want, claimItems(t, s), "one claim per unique value held, owned by its entity")
}
