package integration_test

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/ryno"
	"github.com/rynodb/rynodb/tables"
)

// entityItems returns the items of the entities table that are entities, keyed by
// the entity key, read consistently.
func entityItems(t *testing.T, raw *dynamodb.Client, names tables.Names) map[string]map[string]types.AttributeValue {
	t.Helper()
	items := map[string]map[string]types.AttributeValue{}
	p := dynamodb.NewScanPaginator(raw, &dynamodb.ScanInput{TableName: aws.String(names.Entities), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		require.NoError(t, err)
		for _, item := range out.Items {
			if _, ok := item[tables.AttrScope]; !ok {
				continue // the schema version record
			}
			s := func(name string) string { return item[name].(*types.AttributeValueMemberS).Value }
			items[tables.SubjectKey(s(tables.AttrScope), s(tables.AttrType), s(tables.AttrID))] = item
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
		require.NotContains(t, item, tables.AttrDeleting, "%s: a Delete did not finish", key)
		require.NotContains(t, item, tables.AttrPending, "%s: index entries are still being written", key)
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
				entry := indexing.Entry{Scope: e.Scope, Type: e.Type, ID: e.ID, IndexName: ix.Name, Value: v, Attributes: projected}
				entryItem, err := entry.Item()
				require.NoError(t, err)
				k := fmt.Sprint(key, " ", entryItem[tables.AttrUniqueKey].(*types.AttributeValueMemberS).Value)
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
