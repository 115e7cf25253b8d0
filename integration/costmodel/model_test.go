package costmodel_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/costmodel"
)

// The tables of the tests: ents with a global index on (_sk, _updated), projecting
// all; rels with a global index on (o, i), projecting all, a local index on (s, po)
// projecting keys only, and a global index on (o, tag) projecting "note".
var (
	ents = costmodel.Table{Name: "ents", PartitionKey: "_id", SortKey: "_sk", Indexes: []costmodel.Index{
		{Name: "byType", PartitionKey: "_sk", SortKey: "_updated", Projection: types.ProjectionTypeAll},
	}}
	rels = costmodel.Table{Name: "rels", PartitionKey: "s", SortKey: "p", Indexes: []costmodel.Index{
		{Name: "byObj", Local: true, PartitionKey: "s", SortKey: "po", Projection: types.ProjectionTypeKeysOnly},
		{Name: "byTag", PartitionKey: "o", SortKey: "tag", Projection: types.ProjectionTypeInclude, NonKey: []string{"note"}},
		{Name: "rev", PartitionKey: "o", SortKey: "i", Projection: types.ProjectionTypeAll},
	}}
	testSchema = costmodel.Schema{"ents": ents, "rels": rels}
)

func str(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func num(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

// ent returns an entity of exactly size bytes (at least 18 with an _updated of two bytes) with the given
// _updated; "" leaves it out of byType.
func ent(t *testing.T, id, updated string, size int) costmodel.Item {
	t.Helper()
	item := costmodel.Item{"_id": str(id), "_sk": str("t")}
	if updated != "" {
		item["_updated"] = str(updated)
	}
	if pad := size - costmodel.Size(item) - len("pad"); pad >= 0 {
		item["pad"] = str(strings.Repeat("x", pad))
	}
	require.Equal(t, size, costmodel.Size(item), "the test's item size")
	return item
}

func entKey(id string) costmodel.Item { return costmodel.Item{"_id": str(id), "_sk": str("t")} }

// edge returns an entry of rels, in byObj when po is set, in rev always.
func edge(p, po string) costmodel.Item {
	item := costmodel.Item{"s": str("subject"), "p": str(p), "o": str("object"), "i": num("1")}
	if po != "" {
		item["po"] = str(po)
	}
	return item
}

func images(pairs ...any) map[costmodel.Ref]costmodel.Item {
	m := map[costmodel.Ref]costmodel.Item{}
	for i := 0; i < len(pairs); i += 2 {
		item := pairs[i+1].(costmodel.Item)
		m[pairs[i].(costmodel.Table).Ref(item)] = item
	}
	return m
}

// w and r build the expected units of a table ("ents") or an index ("ents/byType").
func w(arm string, n float64) costmodel.Units { return units(arm, 0, n) }
func r(arm string, n float64) costmodel.Units { return units(arm, n, 0) }

func units(arm string, read, write float64) costmodel.Units {
	table, index, _ := strings.Cut(arm, "/")
	return costmodel.Units{Table: table, Index: index, Read: read, Write: write}
}

func cost(us ...costmodel.Units) costmodel.Cost {
	c := costmodel.Cost{}
	for _, u := range us {
		c = c.Add(costmodel.Cost{Units: []costmodel.Units{u}})
	}
	return c
}

var (
	conditionFailed = &types.ConditionalCheckFailedException{Message: aws.String("The conditional request failed")}
	canceled        = &types.TransactionCanceledException{Message: aws.String("Transaction cancelled")}
)

func TestUnits(t *testing.T) {
	for _, c := range []struct {
		bytes      int
		wcu, rcu   float64
		eventually float64
	}{
		{0, 1, 1, 0.5},
		{1, 1, 1, 0.5},
		{1024, 1, 1, 0.5},
		{1025, 2, 1, 0.5},
		{4096, 4, 1, 0.5},
		{4097, 5, 2, 1},
		{400 * 1024, 400, 100, 50},
	} {
		require.Equal(t, c.wcu, costmodel.WCU(c.bytes), "WCU(%d)", c.bytes)
		require.Equal(t, c.rcu, costmodel.RCU(c.bytes, true), "RCU(%d, consistent)", c.bytes)
		require.Equal(t, c.eventually, costmodel.RCU(c.bytes, false), "RCU(%d, eventually)", c.bytes)
	}
}

func TestBill(t *testing.T) {
	e18 := ent(t, "a", "u1", 18)
	tests := []struct {
		name string
		req  costmodel.Request
		want costmodel.Cost
	}{
		{
			name: "put of a new item: 1 on the table, 1 on the index it enters",
			req:  costmodel.Request{Input: &dynamodb.PutItemInput{TableName: aws.String("ents"), Item: e18}, Before: images()},
			want: cost(w("ents", 1), w("ents/byType", 1)),
		},
		{
			name: "put growing an item from 18 B to 2000 B in place: the larger image, on both",
			req: costmodel.Request{
				Input:  &dynamodb.PutItemInput{TableName: aws.String("ents"), Item: ent(t, "a", "u1", 2000)},
				Before: images(ents, e18),
			},
			want: cost(w("ents", 2), w("ents/byType", 2)),
		},
		{
			name: "put shrinking 3000 B to 100 B and moving the index key: delete 3 and put 1 on the index",
			req: costmodel.Request{
				Input:  &dynamodb.PutItemInput{TableName: aws.String("ents"), Item: ent(t, "a", "u2", 100)},
				Before: images(ents, ent(t, "a", "u1", 3000)),
			},
			want: cost(w("ents", 3), w("ents/byType", 4)),
		},
		{
			name: "put of an identical item: the index is not written",
			req:  costmodel.Request{Input: &dynamodb.PutItemInput{TableName: aws.String("ents"), Item: e18}, Before: images(ents, e18)},
			want: cost(w("ents", 1)),
		},
		{
			name: "put dropping the index key: 1 to delete the index entry",
			req: costmodel.Request{
				Input:  &dynamodb.PutItemInput{TableName: aws.String("ents"), Item: ent(t, "a", "", 100)},
				Before: images(ents, ent(t, "a", "u1", 1500)),
			},
			want: cost(w("ents", 2), w("ents/byType", 2)),
		},
		{
			name: "put without images: the old item ALL_OLD returns",
			req: costmodel.Request{
				Input:  &dynamodb.PutItemInput{TableName: aws.String("ents"), Item: e18, ReturnValues: types.ReturnValueAllOld},
				Output: &dynamodb.PutItemOutput{Attributes: ent(t, "a", "u0", 2500)},
			},
			want: cost(w("ents", 3), w("ents/byType", 4)),
		},
		{
			name: "put whose condition fails on a 2500 B item: 3, and no index write",
			req: costmodel.Request{
				Input:  &dynamodb.PutItemInput{TableName: aws.String("ents"), Item: e18},
				Err:    conditionFailed,
				Before: images(ents, ent(t, "a", "u0", 2500)),
			},
			want: cost(w("ents", 3)),
		},
		{
			name: "put whose condition fails on no item: 1",
			req: costmodel.Request{
				Input:  &dynamodb.PutItemInput{TableName: aws.String("ents"), Item: e18},
				Err:    fmt.Errorf("operation error: %w", conditionFailed),
				Before: images(),
			},
			want: cost(w("ents", 1)),
		},
		{
			name: "failed condition without images: the item the error returns",
			req: costmodel.Request{
				Input: &dynamodb.PutItemInput{TableName: aws.String("ents"), Item: e18},
				Err: &types.ConditionalCheckFailedException{
					Message: aws.String("The conditional request failed"), Item: ent(t, "a", "u0", 1100)},
			},
			want: cost(w("ents", 2)),
		},
		{
			name: "another error: nothing",
			req: costmodel.Request{
				Input: &dynamodb.PutItemInput{TableName: aws.String("ents"), Item: e18},
				Err:   errors.New("connection reset"),
			},
			want: cost(),
		},
		{
			name: "update from 18 B to 1100 B in place",
			req: costmodel.Request{
				Input:  &dynamodb.UpdateItemInput{TableName: aws.String("ents"), Key: entKey("a")},
				Before: images(ents, e18),
				After:  images(ents, ent(t, "a", "u1", 1100)),
			},
			want: cost(w("ents", 2), w("ents/byType", 2)),
		},
		{
			name: "update without images: ALL_NEW, a new item",
			req: costmodel.Request{
				Input:  &dynamodb.UpdateItemInput{TableName: aws.String("ents"), Key: entKey("a"), ReturnValues: types.ReturnValueAllNew},
				Output: &dynamodb.UpdateItemOutput{Attributes: ent(t, "a", "u1", 1100)},
			},
			want: cost(w("ents", 2), w("ents/byType", 2)),
		},
		{
			name: "update whose condition fails on a 5000 B item",
			req: costmodel.Request{
				Input:  &dynamodb.UpdateItemInput{TableName: aws.String("ents"), Key: entKey("a")},
				Err:    conditionFailed,
				Before: images(ents, ent(t, "a", "u1", 5000)),
			},
			want: cost(w("ents", 5)),
		},
		{
			name: "delete of a 1500 B item: 2 on the table, 2 on the index",
			req: costmodel.Request{
				Input:  &dynamodb.DeleteItemInput{TableName: aws.String("ents"), Key: entKey("a")},
				Before: images(ents, ent(t, "a", "u1", 1500)),
			},
			want: cost(w("ents", 2), w("ents/byType", 2)),
		},
		{
			name: "delete of a missing item: 1",
			req:  costmodel.Request{Input: &dynamodb.DeleteItemInput{TableName: aws.String("ents"), Key: entKey("a")}, Before: images()},
			want: cost(w("ents", 1)),
		},
		{
			name: "batch write: each item on its own; the unprocessed one is not billed",
			req: costmodel.Request{
				Input: &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
					"rels": {
						{PutRequest: &types.PutRequest{Item: edge("p1", "po1")}},
						{PutRequest: &types.PutRequest{Item: edge("p2", "")}},
						{DeleteRequest: &types.DeleteRequest{Key: costmodel.Item{"s": str("subject"), "p": str("p3")}}},
						{PutRequest: &types.PutRequest{Item: edge("p4", "po4")}},
					},
					"ents": {{DeleteRequest: &types.DeleteRequest{Key: entKey("a")}}},
				}},
				Output: &dynamodb.BatchWriteItemOutput{UnprocessedItems: map[string][]types.WriteRequest{
					"rels": {{PutRequest: &types.PutRequest{Item: edge("p4", "po4")}}},
				}},
				Before: images(rels, edge("p3", "po3"), ents, e18),
			},
			// rels: p1 (new, in byObj and rev), p2 (new, in rev), p3 (deleted, in both).
			want: cost(w("rels", 3), w("rels/rev", 3), w("rels/byObj", 2), w("ents", 1), w("ents/byType", 1)),
		},
		{
			name: "transaction: 2 per item on the tables, condition checks too; plain index writes",
			req: costmodel.Request{
				Input: &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
					{Put: &types.Put{TableName: aws.String("ents"), Item: ent(t, "n", "u1", 18)}},
					{ConditionCheck: &types.ConditionCheck{TableName: aws.String("ents"), Key: entKey("big")}},
					{Delete: &types.Delete{TableName: aws.String("ents"), Key: entKey("gone")}},
					{Update: &types.Update{TableName: aws.String("ents"), Key: entKey("a")}},
					{Put: &types.Put{TableName: aws.String("rels"), Item: edge("p1", "po1")}},
				}},
				Before: images(ents, ent(t, "big", "u1", 5000), ents, e18),
				After:  images(ents, ent(t, "a", "u1", 1100)),
			},
			// ents: put 2, check 10, delete of a missing item 2, update 4; byType:
			// put 1, update max(1, 2). rels: put 2; rev and byObj 1 each.
			want: cost(w("ents", 18), w("ents/byType", 3), w("rels", 2), w("rels/rev", 1), w("rels/byObj", 1)),
		},
		{
			name: "cancelled transaction: each action once, on the item it found; no index write",
			req: costmodel.Request{
				Input: &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
					{Put: &types.Put{TableName: aws.String("ents"), Item: ent(t, "n", "u1", 18)}},
					{ConditionCheck: &types.ConditionCheck{TableName: aws.String("ents"), Key: entKey("big")}},
					{Update: &types.Update{TableName: aws.String("ents"), Key: entKey("a")}},
				}},
				Err:    fmt.Errorf("operation error: %w", canceled),
				Before: images(ents, ent(t, "big", "u1", 5000), ents, e18),
			},
			want: cost(w("ents", 7)),
		},
		{
			name: "get of a 5000 B item, eventually consistent, projected: the whole item",
			req: costmodel.Request{
				Input:  &dynamodb.GetItemInput{TableName: aws.String("ents"), Key: entKey("a"), ProjectionExpression: aws.String("x")},
				Before: images(ents, ent(t, "a", "u1", 5000)),
			},
			want: cost(r("ents", 1)),
		},
		{
			name: "get of a 5000 B item, consistent",
			req: costmodel.Request{
				Input:  &dynamodb.GetItemInput{TableName: aws.String("ents"), Key: entKey("a"), ConsistentRead: aws.Bool(true)},
				Before: images(ents, ent(t, "a", "u1", 5000)),
			},
			want: cost(r("ents", 2)),
		},
		{
			name: "get of a missing item: the minimum",
			req:  costmodel.Request{Input: &dynamodb.GetItemInput{TableName: aws.String("ents"), Key: entKey("a")}, Before: images()},
			want: cost(r("ents", 0.5)),
		},
		{
			name: "batch get: each key on its own, missing ones too; unprocessed ones are not billed",
			req: costmodel.Request{
				Input: &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
					"ents": {Keys: []costmodel.Item{entKey("a"), entKey("b"), entKey("gone"), entKey("l")}},
					"rels": {Keys: []costmodel.Item{{"s": str("subject"), "p": str("p1")}}, ConsistentRead: aws.Bool(true)},
				}},
				Output: &dynamodb.BatchGetItemOutput{UnprocessedKeys: map[string]types.KeysAndAttributes{
					"ents": {Keys: []costmodel.Item{entKey("l")}},
				}},
				Before: images(ents, ent(t, "a", "u1", 5000), ents, ent(t, "b", "u1", 18), ents, ent(t, "l", "u1", 18), rels, edge("p1", "")),
			},
			want: cost(r("ents", 2), r("rels", 1)),
		},
		{
			name: "query: the items evaluated, summed, then rounded once",
			req: costmodel.Request{
				Input: &dynamodb.QueryInput{TableName: aws.String("ents"), FilterExpression: aws.String("x")},
				Evaluated: []costmodel.Item{
					ent(t, "a", "u1", 3000), ent(t, "a", "u2", 3000), ent(t, "a", "u3", 3000),
				},
				Output: &dynamodb.QueryOutput{Items: []costmodel.Item{}},
			},
			want: cost(r("ents", 1.5)),
		},
		{
			name: "consistent query of a global index: eventually consistent",
			req: costmodel.Request{
				Input:     &dynamodb.QueryInput{TableName: aws.String("ents"), IndexName: aws.String("byType"), ConsistentRead: aws.Bool(true)},
				Evaluated: []costmodel.Item{ent(t, "a", "u1", 5000)},
			},
			want: cost(r("ents/byType", 1)),
		},
		{
			name: "consistent query of a local index",
			req: costmodel.Request{
				Input:     &dynamodb.QueryInput{TableName: aws.String("rels"), IndexName: aws.String("byObj"), ConsistentRead: aws.Bool(true)},
				Evaluated: []costmodel.Item{{"s": str("subject"), "p": str("p1"), "po": str("po1")}},
			},
			want: cost(r("rels/byObj", 1)),
		},
		{
			name: "query without images: the items returned",
			req: costmodel.Request{
				Input:  &dynamodb.QueryInput{TableName: aws.String("ents")},
				Output: &dynamodb.QueryOutput{Items: []costmodel.Item{ent(t, "a", "u1", 4000), ent(t, "a", "u2", 4000)}},
			},
			want: cost(r("ents", 1)),
		},
		{
			name: "query evaluating nothing: the minimum",
			req:  costmodel.Request{Input: &dynamodb.QueryInput{TableName: aws.String("ents")}, Evaluated: []costmodel.Item{}},
			want: cost(r("ents", 0.5)),
		},
		{
			name: "scan",
			req: costmodel.Request{
				Input:     &dynamodb.ScanInput{TableName: aws.String("ents"), ConsistentRead: aws.Bool(true)},
				Evaluated: []costmodel.Item{ent(t, "a", "u1", 4000), ent(t, "b", "u2", 4000)},
			},
			want: cost(r("ents", 2)),
		},
		{
			name: "describe table: free",
			req:  costmodel.Request{Input: &dynamodb.DescribeTableInput{TableName: aws.String("ents")}},
			want: cost(),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := costmodel.Bill(testSchema, tc.req)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			requirePartitionsSumToBill(t, tc.req, got)
		})
	}
}

// requirePartitionsSumToBill checks that what Partitions shares out by key adds up
// to the writes Bill reports on each table and index.
func requirePartitionsSumToBill(t *testing.T, req costmodel.Request, bill costmodel.Cost) {
	t.Helper()
	parts, err := costmodel.Partitions(testSchema, req)
	require.NoError(t, err)
	sums := map[[2]string]float64{}
	for _, p := range parts {
		require.NotEmpty(t, p.Key, "every write lands on a partition key")
		sums[[2]string{p.Table, p.Index}] += p.Write
	}
	for _, u := range bill.Units {
		require.Equal(t, u.Write, sums[[2]string{u.Table, u.Index}], "%s/%s", u.Table, u.Index)
		delete(sums, [2]string{u.Table, u.Index})
	}
	for arm, n := range sums {
		require.Zero(t, n, "%v is billed nothing", arm)
	}
}

func TestPartitionsShareAnIndexMoveBetweenItsKeys(t *testing.T) {
	moved := costmodel.Request{
		Input:  &dynamodb.PutItemInput{TableName: aws.String("rels"), Item: costmodel.Item{"s": str("subject"), "p": str("x"), "o": str("new"), "i": num("1")}},
		Before: images(rels, costmodel.Item{"s": str("subject"), "p": str("x"), "o": str("old"), "i": num("1")}),
	}
	parts, err := costmodel.Partitions(testSchema, moved)
	require.NoError(t, err)
	var rev []string
	for _, p := range parts {
		if p.Index == "rev" {
			rev = append(rev, fmt.Sprintf("%s %s %g", p.Key, p.Sort, p.Write))
		}
	}
	require.Equal(t, []string{`S"new" N"1" 1`, `S"old" N"1" 1`}, rev, "the entry leaves old's partition and joins new's")
}

func TestBillRefuses(t *testing.T) {
	_, err := costmodel.Bill(testSchema, costmodel.Request{Input: &dynamodb.PutItemInput{TableName: aws.String("nope")}})
	require.ErrorContains(t, err, `no schema for table "nope"`)
	_, err = costmodel.Bill(testSchema, costmodel.Request{Op: "TransactGetItems", Input: &dynamodb.TransactGetItemsInput{}})
	require.ErrorContains(t, err, "cannot bill TransactGetItems")
	_, err = costmodel.Bill(testSchema, costmodel.Request{Input: &dynamodb.QueryInput{TableName: aws.String("ents"), IndexName: aws.String("nope")}})
	require.ErrorContains(t, err, `no index "nope"`)
}

func TestIndexWrite(t *testing.T) {
	byObj, byTag := rels.Indexes[0], rels.Indexes[1]
	withAttrs := func(item costmodel.Item, kv ...string) costmodel.Item {
		c := costmodel.Item{}
		for k, v := range item {
			c[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			c[kv[i]] = str(kv[i+1])
		}
		return c
	}
	big := strings.Repeat("x", 2000)
	e := edge("p1", "po1")
	for _, c := range []struct {
		name          string
		ix            costmodel.Index
		before, after costmodel.Item
		want          float64
	}{
		{"keys only: a large attribute outside the projection costs nothing", byObj, nil, withAttrs(e, "big", big), 1},
		{"keys only: changing an attribute outside it writes nothing", byObj, e, withAttrs(e, "big", big), 0},
		{"keys only: moving its key, delete and put", byObj, e, withAttrs(e, "po", "po2"), 2},
		{"include: an attribute outside it writes nothing", byTag, withAttrs(e, "tag", "t"), withAttrs(e, "tag", "t", "big", big), 0},
		{"include: a large included attribute", byTag, withAttrs(e, "tag", "t"), withAttrs(e, "tag", "t", "note", big), 2},
		{"absent both sides", byTag, e, e, 0},
		{"sets compare without order", rels.Indexes[2],
			withSet(e, "a", "b"), withSet(e, "b", "a"), 0},
	} {
		require.Equal(t, c.want, costmodel.IndexWrite(rels, c.ix, c.before, c.after), c.name)
	}
}

func withSet(item costmodel.Item, members ...string) costmodel.Item {
	c := costmodel.Item{"set": &types.AttributeValueMemberSS{Value: members}}
	for k, v := range item {
		c[k] = v
	}
	return c
}

func TestReported(t *testing.T) {
	c, ok := costmodel.Reported(&dynamodb.PutItemOutput{ConsumedCapacity: &types.ConsumedCapacity{
		TableName: aws.String("ents"), CapacityUnits: aws.Float64(3),
		Table:                  &types.Capacity{CapacityUnits: aws.Float64(1)},
		GlobalSecondaryIndexes: map[string]types.Capacity{"byType": {CapacityUnits: aws.Float64(2)}},
	}})
	require.True(t, ok)
	require.Equal(t, cost(w("ents", 1), w("ents/byType", 2)), c)

	c, ok = costmodel.Reported(&dynamodb.QueryOutput{ConsumedCapacity: &types.ConsumedCapacity{
		TableName: aws.String("rels"), CapacityUnits: aws.Float64(0.5),
		LocalSecondaryIndexes: map[string]types.Capacity{"byObj": {CapacityUnits: aws.Float64(0.5)}},
	}})
	require.True(t, ok)
	require.Equal(t, cost(r("rels/byObj", 0.5)), c)

	c, ok = costmodel.Reported(&dynamodb.GetItemOutput{ConsumedCapacity: &types.ConsumedCapacity{
		TableName: aws.String("ents"), CapacityUnits: aws.Float64(1)}})
	require.True(t, ok)
	require.Equal(t, cost(r("ents", 1)), c)

	_, ok = costmodel.Reported(&dynamodb.GetItemOutput{})
	require.False(t, ok)
}

func TestTableFromDescription(t *testing.T) {
	d := &types.TableDescription{
		TableName: aws.String("rels"),
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("p"), KeyType: types.KeyTypeRange},
			{AttributeName: aws.String("s"), KeyType: types.KeyTypeHash},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndexDescription{
			{IndexName: aws.String("rev"), KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("o"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("i"), KeyType: types.KeyTypeRange},
			}, Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}},
			{IndexName: aws.String("byTag"), KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("o"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("tag"), KeyType: types.KeyTypeRange},
			}, Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"note"}}},
		},
		LocalSecondaryIndexes: []types.LocalSecondaryIndexDescription{
			{IndexName: aws.String("byObj"), KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("s"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("po"), KeyType: types.KeyTypeRange},
			}, Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}},
		},
	}
	require.Equal(t, rels, costmodel.TableFromDescription(d))
}
