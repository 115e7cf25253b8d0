package integration_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/costmodel"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/internal/schema"
)

func avNum(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

// entityItem returns an item of the entities table of about size bytes.
func entityItem(id, updated string, size int) costmodel.Item {
	item := costmodel.Item{
		schema.AttrID:           str(id),
		schema.AttrScopeTypeKey: str("acme:person"),
		schema.AttrUpdated:      str(updated),
	}
	if pad := size - costmodel.Size(item) - len("pad"); pad > 0 {
		item["pad"] = str(strings.Repeat("x", pad))
	}
	return item
}

// edgeItem returns a relationship entry, seen by the reverse index and, when
// byObject, by the by-object index.
func edgeItem(subject string, i int, object string, byObject bool) costmodel.Item {
	item := costmodel.Item{
		schema.AttrSubjectKey:   str(subject),
		schema.AttrPredicateKey: str(schema.PredicateKey("follows", i, "person", object)),
		schema.AttrObjectKey:    str("acme:person:" + object),
		schema.AttrReverseKey:   str(schema.ReverseKey("follows", "acme", "person", subject, i)),
	}
	if byObject {
		item[schema.AttrPredicateObjectKey] = str(schema.PredicateObjectKey("follows", "acme", "person", object))
	}
	return item
}

// TestCostModelMatchesDynamoDBLocal sends requests whose capacity DynamoDB Local
// reports as AWS bills it (single-item writes, batches, reads) and checks that the
// cost model bills each exactly what DynamoDB Local reports, by table and index.
func TestCostModelMatchesDynamoDBLocal(t *testing.T) {
	api := dynamotest.API(t)
	names, err := schema.NewNames(dynamotest.Tables(t, api))
	require.NoError(t, err)
	rec := dynamotest.NewRecorder(api, dynamotest.RecorderOptions{Images: true, Capacity: true})
	ents, rels := aws.String(names.Entities), aws.String(names.Relationships)
	entKey := func(id string) costmodel.Item {
		return costmodel.Item{schema.AttrID: str(id), schema.AttrScopeTypeKey: str("acme:person")}
	}
	queryPartition := func(id string) *dynamodb.QueryInput {
		return &dynamodb.QueryInput{
			TableName:                 ents,
			KeyConditionExpression:    aws.String("#pk = :pk"),
			ExpressionAttributeNames:  map[string]string{"#pk": schema.AttrID},
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(id)},
		}
	}

	steps := []struct {
		name string
		send func() error
		// differs says why DynamoDB Local reports other than AWS bills, when it does:
		// the step is then logged, not checked.
		differs string
	}{
		{"put a new item with the by-type key", func() error {
			_, err := rec.PutItem(ctx, &dynamodb.PutItemInput{TableName: ents, Item: entityItem("a", "2024-01-01", 300)})
			return err
		}, ""},
		{"put it again, identical", func() error {
			_, err := rec.PutItem(ctx, &dynamodb.PutItemInput{TableName: ents, Item: entityItem("a", "2024-01-01", 300)})
			return err
		}, ""},
		{"put it again, changing a projected attribute", func() error {
			_, err := rec.PutItem(ctx, &dynamodb.PutItemInput{TableName: ents, Item: entityItem("a", "2024-01-01", 310)})
			return err
		}, ""},
		{"put it again, moving its by-type key", func() error {
			_, err := rec.PutItem(ctx, &dynamodb.PutItemInput{TableName: ents, Item: entityItem("a", "2024-01-02", 310)})
			return err
		}, ""},
		{"grow it to 2.5 KB", func() error {
			_, err := rec.PutItem(ctx, &dynamodb.PutItemInput{TableName: ents, Item: entityItem("a", "2024-01-02", 2500)})
			return err
		}, ""},
		{"shrink it to 200 bytes, moving its key", func() error {
			_, err := rec.PutItem(ctx, &dynamodb.PutItemInput{TableName: ents, Item: entityItem("a", "2024-01-03", 200)})
			return err
		}, ""},
		{"put a 5 KB item", func() error {
			_, err := rec.PutItem(ctx, &dynamodb.PutItemInput{TableName: ents, Item: entityItem("b", "2024-01-01", 5000)})
			return err
		}, ""},
		{"put an item outside the by-type index", func() error {
			item := entityItem("c", "", 100)
			delete(item, schema.AttrUpdated)
			_, err := rec.PutItem(ctx, &dynamodb.PutItemInput{TableName: ents, Item: item})
			return err
		}, ""},
		{"update a non-key attribute", func() error {
			_, err := rec.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName: ents, Key: entKey("b"),
				UpdateExpression:          aws.String("SET #a = :v"),
				ExpressionAttributeNames:  map[string]string{"#a": "extra"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":v": str("hello")},
			})
			return err
		}, ""},
		{"update the by-type key", func() error {
			_, err := rec.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName: ents, Key: entKey("b"),
				UpdateExpression:          aws.String("SET #u = :u"),
				ExpressionAttributeNames:  map[string]string{"#u": schema.AttrUpdated},
				ExpressionAttributeValues: map[string]types.AttributeValue{":u": str("2024-02-01")},
			})
			return err
		}, ""},
		{"update an item into the by-type index", func() error {
			_, err := rec.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName: ents, Key: entKey("c"),
				UpdateExpression:          aws.String("SET #u = :u"),
				ExpressionAttributeNames:  map[string]string{"#u": schema.AttrUpdated},
				ExpressionAttributeValues: map[string]types.AttributeValue{":u": str("2024-02-01")},
			})
			return err
		}, ""},
		{"update a missing item into existence", func() error {
			_, err := rec.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName: ents, Key: entKey("d"),
				UpdateExpression:          aws.String("SET #a = :v"),
				ExpressionAttributeNames:  map[string]string{"#a": "extra"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":v": str("hello")},
			})
			return err
		}, ""},
		{"get an item, eventually consistent", func() error {
			_, err := rec.GetItem(ctx, &dynamodb.GetItemInput{TableName: ents, Key: entKey("b")})
			return err
		}, ""},
		{"get an item, consistent, projected", func() error {
			_, err := rec.GetItem(ctx, &dynamodb.GetItemInput{
				TableName: ents, Key: entKey("b"), ConsistentRead: aws.Bool(true),
				ProjectionExpression: aws.String("#id"), ExpressionAttributeNames: map[string]string{"#id": schema.AttrID},
			})
			return err
		}, ""},
		{"get a missing item", func() error {
			_, err := rec.GetItem(ctx, &dynamodb.GetItemInput{TableName: ents, Key: entKey("nobody")})
			return err
		}, ""},
		{"batch-get items", func() error {
			_, err := rec.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				*ents: {Keys: []costmodel.Item{entKey("a"), entKey("b"), entKey("c")}},
			}})
			return err
		}, ""},
		{"batch-get present and missing items", func() error {
			_, err := rec.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				*ents: {Keys: []costmodel.Item{entKey("a"), entKey("b"), entKey("c"), entKey("nobody")}},
			}})
			return err
		}, "DynamoDB Local charges nothing for a missing key; AWS charges each key as a GetItem"},
		{"batch-get consistently", func() error {
			_, err := rec.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				*ents: {Keys: []costmodel.Item{entKey("a"), entKey("b")}, ConsistentRead: aws.Bool(true)},
			}})
			return err
		}, ""},
		{"query a partition, eventually consistent", func() error {
			_, err := rec.Query(ctx, queryPartition("b"))
			return err
		}, ""},
		{"query a partition consistently, with a filter that drops everything", func() error {
			in := queryPartition("b")
			in.ConsistentRead = aws.Bool(true)
			in.FilterExpression = aws.String("#x = :x")
			in.ExpressionAttributeNames["#x"] = "extra"
			in.ExpressionAttributeValues[":x"] = str("no such value")
			_, err := rec.Query(ctx, in)
			return err
		}, ""},
		{"query an empty partition", func() error {
			_, err := rec.Query(ctx, queryPartition("nobody"))
			return err
		}, "DynamoDB Local reports 0 for a query that reads nothing; AWS charges the minimum, 0.5"},
		{"query the by-type index", func() error {
			_, err := rec.Query(ctx, &dynamodb.QueryInput{
				TableName: ents, IndexName: aws.String(names.EntitiesByType),
				KeyConditionExpression:    aws.String("#pk = :pk"),
				ExpressionAttributeNames:  map[string]string{"#pk": schema.AttrScopeTypeKey},
				ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str("acme:person")},
			})
			return err
		}, ""},
		{"put an entry seen by both indexes", func() error {
			_, err := rec.PutItem(ctx, &dynamodb.PutItemInput{TableName: rels, Item: edgeItem("acme:person:s", 0, "o1", true)})
			return err
		}, ""},
		{"batch-write entries, some seen by the by-object index", func() error {
			var reqs []types.WriteRequest
			for i := range 30 {
				reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{
					Item: edgeItem("acme:person:s", i+1, fmt.Sprintf("o%d", i+2), i%2 == 0)}})
			}
			_, err := rec.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{*rels: reqs[:25]}})
			if err != nil {
				return err
			}
			_, err = rec.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{*rels: reqs[25:]}})
			return err
		}, ""},
		{"query the by-object index", func() error {
			_, err := rec.Query(ctx, &dynamodb.QueryInput{
				TableName: rels, IndexName: aws.String(names.RelationshipsByObject),
				KeyConditionExpression:    aws.String("#pk = :pk"),
				ExpressionAttributeNames:  map[string]string{"#pk": schema.AttrSubjectKey},
				ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str("acme:person:s")},
				ConsistentRead:            aws.Bool(true),
			})
			return err
		}, ""},
		{"query the reverse index", func() error {
			_, err := rec.Query(ctx, &dynamodb.QueryInput{
				TableName: rels, IndexName: aws.String(names.ReverseRelationships),
				KeyConditionExpression:    aws.String("#pk = :pk"),
				ExpressionAttributeNames:  map[string]string{"#pk": schema.AttrObjectKey},
				ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str("acme:person:o1")},
			})
			return err
		}, ""},
		{"batch-write deletes across two tables", func() error {
			_, err := rec.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				*rels: {
					{DeleteRequest: &types.DeleteRequest{Key: costmodel.Item{
						schema.AttrSubjectKey: str("acme:person:s"), schema.AttrPredicateKey: str(schema.PredicateKey("follows", 0, "person", "o1"))}}},
					{DeleteRequest: &types.DeleteRequest{Key: costmodel.Item{
						schema.AttrSubjectKey: str("acme:person:s"), schema.AttrPredicateKey: str(schema.PredicateKey("follows", 2, "person", "o3"))}}},
				},
				*ents: {{DeleteRequest: &types.DeleteRequest{Key: entKey("a")}}},
			}})
			return err
		}, ""},
		{"delete an item", func() error {
			_, err := rec.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: ents, Key: entKey("b")})
			return err
		}, ""},
		{"delete a missing item", func() error {
			_, err := rec.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: ents, Key: entKey("nobody")})
			return err
		}, ""},
		{"transact puts and a condition check", func() error {
			_, err := rec.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: ents, Item: entityItem("t1", "2024-01-01", 300)}},
				{Put: &types.Put{TableName: ents, Item: entityItem("t2", "2024-01-01", 1500)}},
				{Put: &types.Put{TableName: rels, Item: edgeItem("acme:person:t", 0, "o1", true)}},
				{ConditionCheck: &types.ConditionCheck{TableName: ents, Key: entKey("c"), ConditionExpression: aws.String("attribute_exists(#id)"),
					ExpressionAttributeNames: map[string]string{"#id": schema.AttrID}}},
			}})
			return err
		}, "DynamoDB Local does not report transactions as AWS bills them: here it doubles the index writes, " +
			"which AWS bills as plain writes; larger transactions it under-counts"},
	}
	for _, step := range steps {
		rec.Reset()
		require.NoError(t, step.send(), step.name)
		require.NoError(t, rec.Err())
		billed, err := rec.Bill()
		require.NoError(t, err)
		if step.differs != "" {
			t.Logf("%s: model %v; DynamoDB Local %v (%s)", step.name, billed, rec.Reported(), step.differs)
			continue
		}
		require.Equal(t, rec.Reported(), billed, step.name)
	}
}
