package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/rynodb/rynodb/examples/internal/catalog"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

func TestStreamConsumerCountsEachAuthorsArticlesOnce(t *testing.T) {
	ctx := context.Background()
	prefix := dynamotest.Tables(t, dynamotest.API(t))
	db := newTestCatalog(t, prefix)
	table := db.Names().Relationships
	dynamotest.EnableStream(t, dynamotest.API(t), table)

	var err error
	ada, bob := catalog.Authors.Key("ada"), catalog.Authors.Key("bob")
	a1, a2 := catalog.Articles.Key("a1"), catalog.Articles.Key("a2")
	for _, k := range []ryno.Key{ada, bob, a1, a2} {
		_, err := db.Create(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"title": k.ID, "name": k.ID}})
		must(t, err)
	}
	_, err = db.AddRelationships(ctx, a1, catalog.PredicateAuthors, []ryno.Key{ada, bob})
	must(t, err)
	_, err = db.AddRelationships(ctx, a2, catalog.PredicateAuthors, []ryno.Key{ada})
	must(t, err)
	_, err = db.RemoveRelationships(ctx, a1, catalog.PredicateAuthors, []ryno.Key{bob})
	must(t, err)
	must(t, db.Delete(ctx, a2)) // its entry to ada goes with it

	ev := lambdaEvent(t, table)
	h, err := NewStreamHandler(db, slog.New(slog.NewTextHandler(t.Output(), nil)))
	must(t, err)
	counts := func() map[string]any {
		out := map[string]any{}
		for _, k := range []ryno.Key{ada, bob} {
			e, err := db.Get(ctx, k)
			must(t, err)
			out[k.ID] = e.Attributes[articleCount]
		}
		return out
	}

	res, err := h.Handle(ctx, ev)
	must(t, err)
	if len(res.BatchItemFailures) > 0 {
		t.Fatalf("failures: %v", res.BatchItemFailures)
	}
	want := map[string]any{"ada": json.Number("1"), "bob": json.Number("0")}
	if got := counts(); !equalJSON(got, want) {
		t.Fatalf("counts %v, want %v", got, want)
	}

	// Lambda sends a batch again after a failure or a timeout: nothing changes.
	_, err = h.Handle(ctx, ev)
	must(t, err)
	if got := counts(); !equalJSON(got, want) {
		t.Fatalf("counts after the batch came again %v, want %v", got, want)
	}

	// A record the decoder cannot read stops the batch there: it is reported, and the
	// records after it are left for Lambda to send again.
	broken := ev
	broken.Records = append([]events.DynamoDBEventRecord{ev.Records[0]}, ev.Records...)
	broken.Records[1].EventSourceArn = "arn:aws:sqs:us-east-1:123456789012:queue"
	res, err = h.Handle(ctx, broken)
	must(t, err)
	if len(res.BatchItemFailures) != 1 || res.BatchItemFailures[0].ItemIdentifier != broken.Records[1].Change.SequenceNumber {
		t.Fatalf("failures %v, want the second record's", res.BatchItemFailures)
	}
}

// lambdaEvent reads every record of the stream of table, as Lambda would deliver
// them in one batch.
func lambdaEvent(t *testing.T, table string) events.DynamoDBEvent {
	t.Helper()
	arn, records := dynamotest.StreamRecords(t, dynamotest.API(t), table)
	var ev events.DynamoDBEvent
	for _, r := range records {
		ev.Records = append(ev.Records, lambdaRecord(t, arn, r))
	}
	if len(ev.Records) == 0 {
		t.Fatal("the stream holds no record")
	}
	return ev
}

// lambdaRecord returns r as Lambda delivers it.
func lambdaRecord(t *testing.T, arn string, r streamtypes.Record) events.DynamoDBEventRecord {
	t.Helper()
	return events.DynamoDBEventRecord{
		EventID: aws.ToString(r.EventID), EventName: string(r.EventName), EventSource: "aws:dynamodb", EventSourceArn: arn,
		Change: events.DynamoDBStreamRecord{
			SequenceNumber: aws.ToString(r.Dynamodb.SequenceNumber),
			OldImage:       lambdaImage(t, r.Dynamodb.OldImage),
			NewImage:       lambdaImage(t, r.Dynamodb.NewImage),
		},
	}
}

func lambdaImage(t *testing.T, img map[string]streamtypes.AttributeValue) map[string]events.DynamoDBAttributeValue {
	if img == nil {
		return nil
	}
	out := make(map[string]events.DynamoDBAttributeValue, len(img))
	for name, v := range img {
		out[name] = lambdaValue(t, v)
	}
	return out
}

func lambdaValue(t *testing.T, v streamtypes.AttributeValue) events.DynamoDBAttributeValue {
	switch v := v.(type) {
	case *streamtypes.AttributeValueMemberS:
		return events.NewStringAttribute(v.Value)
	case *streamtypes.AttributeValueMemberN:
		return events.NewNumberAttribute(v.Value)
	case *streamtypes.AttributeValueMemberBOOL:
		return events.NewBooleanAttribute(v.Value)
	case *streamtypes.AttributeValueMemberNULL:
		return events.NewNullAttribute()
	case *streamtypes.AttributeValueMemberSS:
		return events.NewStringSetAttribute(v.Value)
	case *streamtypes.AttributeValueMemberNS:
		return events.NewNumberSetAttribute(v.Value)
	case *streamtypes.AttributeValueMemberL:
		l := make([]events.DynamoDBAttributeValue, len(v.Value))
		for i, e := range v.Value {
			l[i] = lambdaValue(t, e)
		}
		return events.NewListAttribute(l)
	case *streamtypes.AttributeValueMemberM:
		return events.NewMapAttribute(lambdaImage(t, v.Value))
	}
	t.Fatalf("a value of type %T", v)
	return events.DynamoDBAttributeValue{}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func equalJSON(a, b map[string]any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return errors.Join(err1, err2) == nil && string(x) == string(y)
}

func TestStreamConsumerCompletesExpiries(t *testing.T) {
	ctx := context.Background()
	prefix := dynamotest.Tables(t, dynamotest.API(t))
	db := newTestCatalog(t, prefix)
	ada, a1 := catalog.Authors.Key("ada"), catalog.Articles.Key("a1")
	for _, k := range []ryno.Key{ada, a1} {
		_, err := db.Create(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"title": k.ID, "name": k.ID}})
		must(t, err)
	}
	_, err := db.AddRelationships(ctx, a1, catalog.PredicateAuthors, []ryno.Key{ada})
	must(t, err)

	// DynamoDB's time to live removes the article's item alone; the stream of the
	// entities table says so, naming the service as the user.
	old := events.NewMapAttribute(map[string]events.DynamoDBAttributeValue{
		"_id": events.NewStringAttribute(a1.ID), "_scope_type_key": events.NewStringAttribute(a1.Scope + ":" + a1.Type),
		"_scope": events.NewStringAttribute(a1.Scope), "_type": events.NewStringAttribute(a1.Type),
		"_version": events.NewNumberAttribute("1"),
	})
	_, err = dynamotest.API(t).DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(db.Names().Entities),
		Key: map[string]types.AttributeValue{"_id": &types.AttributeValueMemberS{Value: a1.ID}, "_scope_type_key": &types.AttributeValueMemberS{Value: a1.Scope + ":" + a1.Type}}})
	must(t, err)
	ev := events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{{
		EventID: "ttl", EventName: "REMOVE",
		EventSourceArn: "arn:aws:dynamodb:us-east-1:123456789012:table/" + db.Names().Entities + "/stream/x",
		UserIdentity:   &events.DynamoDBUserIdentity{Type: "Service", PrincipalID: "dynamodb.amazonaws.com"},
		Change:         events.DynamoDBStreamRecord{SequenceNumber: "1", OldImage: old.Map()},
	}}}
	h, err := NewStreamHandler(db, slog.New(slog.NewTextHandler(t.Output(), nil)))
	must(t, err)
	for range 2 { // once, and again as a retried batch would
		res, err := h.Handle(ctx, ev)
		must(t, err)
		if len(res.BatchItemFailures) > 0 {
			t.Fatalf("failures: %v", res.BatchItemFailures)
		}
	}
	page, err := db.ReverseRelationships(ctx, ada, catalog.PredicateAuthors, ryno.PageOptions{})
	must(t, err)
	if len(page.Items) != 0 {
		t.Fatalf("the expired article still lists ada: %v", page.Items)
	}
}
