//go:build costreport

package integration_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/ryno"
)

// ceilingBatch is how many calls a combined transaction commits in the ceiling
// report: every one of the contention report's 8 processes in every batch.
const ceilingBatch = 8

// TestListCeilingReport (make bench-contention) measures what each request a list
// write is made of costs DynamoDB Local, 8 goroutines sending it at once for 3 s
// (after a second of each to warm DynamoDB Local up),
// and from those costs the most calls a second a list write could reach, against
// the raw appender of TestListContentionReport (a Query of the list, then a
// BatchWriteItem of one entry):
//   - one transaction a call: a BatchGetItem of the head, the object's marker and
//     the subject, then a TransactWriteItems of the head, the entry and the marker;
//   - calls of many processes combined ceilingBatch to a transaction, each posted
//     on the head once and polled once, the least writers yielding to one another
//     through the table can send, and the combining writer's BatchGetItem and
//     transaction shared among them;
//   - the limit of that as batches grow and polls cost nothing: the post, and the
//     entry and marker the call adds to the transaction.
//
// These are ceilings: they leave out conflicts, waits and the clients' own work,
// which the contention report measures.
func TestListCeilingReport(t *testing.T) {
	raw := dynamotest.API(t)
	names, err := schema.NewNames(dynamotest.Tables(t, raw))
	require.NoError(t, err)
	f := newCeilingFixture(t, raw, names)
	// A first second of each request, not reported, warms DynamoDB Local's JVM up.
	var seq atomic.Int64 // numbers the requests, so that no two write one item
	for _, r := range f.requests() {
		requestRate(t, r.send, time.Second, &seq)
	}
	costs := map[string]time.Duration{}
	fmt.Println("\n### What each request of a list write costs DynamoDB Local (8 goroutines at once)")
	fmt.Println("\n| request | per second | DynamoDB Local's time each |")
	fmt.Println("|---|---:|---:|")
	for _, r := range f.requests() {
		rate := requestRate(t, r.send, 3*time.Second, &seq)
		costs[r.name] = time.Duration(float64(time.Second) / rate)
		fmt.Printf("| %s | %.0f | %s |\n", r.name, rate, costs[r.name].Round(10*time.Microsecond))
	}
	rawCall := costs["Query"] + costs["BatchWriteItem"]
	oneTx := costs["BatchGetItem"] + costs["TransactWriteItems"]
	combined := costs["post"] + costs["poll"] +
		(costs["BatchGetItem, combined"]+costs["TransactWriteItems, combined"])/ceilingBatch
	// What each entry and marker adds to a transaction: the part of a combined
	// call no batch shares out.
	item := (costs["TransactWriteItems, combined"] - costs["TransactWriteItems"]) / (2*ceilingBatch - 2)
	unbounded := costs["post"] + 2*item
	// The same items written outside a transaction, by BatchWriteItem: what a
	// transaction's atomicity and conditions cost DynamoDB Local an item.
	plain := (costs["BatchWriteItem, combined"] - costs["BatchWriteItem"]) / (2*ceilingBatch - 1)
	fmt.Printf("\nAn entry or a marker: %s in a transaction, %s in a BatchWriteItem (%.1f×; AWS bills 2×).\n",
		item.Round(10*time.Microsecond), plain.Round(10*time.Microsecond), float64(item)/float64(plain))
	fmt.Println("\n| a call | DynamoDB Local's time | most calls a second | ÷ raw |")
	fmt.Println("|---|---:|---:|---:|")
	for _, c := range []struct {
		name string
		cost time.Duration
	}{
		{"raw: Query, BatchWriteItem of the entry", rawCall},
		{"one transaction a call: BatchGetItem, TransactWriteItems of 3 items", oneTx},
		{fmt.Sprintf("combined %d to a transaction, one post and one poll a call", ceilingBatch), combined},
		{"combined without end, no poll: the post, the entry and the marker", unbounded},
	} {
		fmt.Printf("| %s | %s | %.0f | %.2f× |\n", c.name, c.cost.Round(10*time.Microsecond),
			float64(time.Second)/float64(c.cost), float64(rawCall)/float64(c.cost))
	}
}

// ceilingFixture holds a list of 8 entries with its head, as a list 8 writers
// combine on stands, and hands out the keys the requests write: entries and
// markers of a list of another subject, so that the partition the raw appender
// queries keeps its 8 entries (DynamoDB Local's queries slow down with the items
// of the partition, those of other lists included).
type ceilingFixture struct {
	raw       *dynamodb.Client
	names     schema.Names
	subject   ryno.Key
	predicate string   // of the list read, whose head the requests write
	written   ryno.Key // the subject of the entries and markers the requests write
}

func newCeilingFixture(t *testing.T, raw *dynamodb.Client, names schema.Names) *ceilingFixture {
	f := &ceilingFixture{raw: raw, names: names, subject: ryno.Key{Scope: "acme", Type: "person", ID: "hub"},
		predicate: "follows", written: ryno.Key{Scope: "acme", Type: "person", ID: "written"}}
	db, err := ryno.New(raw, ryno.Options{TablePrefix: names.Prefix})
	require.NoError(t, err)
	_, err = db.Create(ctx, &ryno.Entity{Key: f.subject})
	require.NoError(t, err)
	var objects []ryno.Key
	for n := range 8 {
		objects = append(objects, f.object(ceilingBatch, n))
	}
	_, err = db.AddRelationships(ctx, f.subject, f.predicate, objects)
	require.NoError(t, err)
	// Requests of 8 writers waiting, as the head a combining writer reads carries.
	for w := range ceilingBatch {
		_, err := raw.UpdateItem(ctx, f.post(fmt.Sprintf("waiting-%d", w), f.object(w, 0)))
		require.NoError(t, err)
	}
	return f
}

func (f *ceilingFixture) object(w, n int) ryno.Key {
	return ryno.Key{Scope: "acme", Type: "person", ID: fmt.Sprintf("w%d-%d", w, n)}
}

// entry returns the n-th entry goroutine w writes, at a position no other takes.
func (f *ceilingFixture) entry(w, n int) relationships.Entry {
	return relationships.Entry{Subject: f.written, Predicate: f.predicate, Index: 100_000_000*(w+1) + n, Object: f.object(w, n)}
}

func (f *ceilingFixture) marker(w, n int) map[string]types.AttributeValue {
	return relationships.MarkerItem(f.written, f.predicate, f.object(w, n), []int{f.entry(w, n).Index})
}

// post returns a writer's request posted on the head, as a combining call sends it.
func (f *ceilingFixture) post(id string, object ryno.Key) *dynamodb.UpdateItemInput {
	return &dynamodb.UpdateItemInput{TableName: aws.String(f.names.Relationships),
		Key:                       relationships.HeadPrimaryKey(f.subject, f.predicate),
		UpdateExpression:          aws.String("SET #w = :r"),
		ConditionExpression:       aws.String("attribute_exists(#v)"),
		ExpressionAttributeNames:  map[string]string{"#w": schema.WaitingPrefix + id, "#v": schema.AttrVersion},
		ExpressionAttributeValues: map[string]types.AttributeValue{":r": relationships.RequestValue(relationships.Request{ID: id, Objects: []ryno.Key{object}, Posted: time.Now()})},
		ReturnValues:              types.ReturnValueAllNew}
}

// transact writes k entries of goroutine w with their markers and the head.
func (f *ceilingFixture) transact(w, n, k int) error {
	items := []types.TransactWriteItem{{Update: &types.Update{TableName: aws.String(f.names.Relationships),
		Key:                       relationships.HeadPrimaryKey(f.subject, f.predicate),
		UpdateExpression:          aws.String("ADD #c :one"),
		ConditionExpression:       aws.String("attribute_exists(#v)"),
		ExpressionAttributeNames:  map[string]string{"#c": schema.AttrCount, "#v": schema.AttrVersion},
		ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "0"}}}}}
	for i := range k {
		items = append(items,
			types.TransactWriteItem{Put: &types.Put{TableName: aws.String(f.names.Relationships), Item: f.entry(w, n*k+i).Item(),
				ConditionExpression: aws.String("attribute_not_exists(#s)"), ExpressionAttributeNames: map[string]string{"#s": schema.AttrSubjectKey}}},
			types.TransactWriteItem{Put: &types.Put{TableName: aws.String(f.names.Relationships), Item: f.marker(w, n*k+i),
				ConditionExpression: aws.String("attribute_not_exists(#s)"), ExpressionAttributeNames: map[string]string{"#s": schema.AttrSubjectKey}}})
	}
	_, err := f.raw.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	return err
}

// batchWrite writes k entries of goroutine w with their markers, unconditioned and
// outside any transaction: what the items of a combined transaction cost alone.
func (f *ceilingFixture) batchWrite(w, n, k int) error {
	var writes []types.WriteRequest
	for i := range k {
		writes = append(writes,
			types.WriteRequest{PutRequest: &types.PutRequest{Item: f.entry(w, n*k+i).Item()}},
			types.WriteRequest{PutRequest: &types.PutRequest{Item: f.marker(w, n*k+i)}})
	}
	_, err := f.raw.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		f.names.Relationships: writes}})
	return err
}

// batchGet reads the head, the subject and the markers of k objects.
func (f *ceilingFixture) batchGet(w, n, k int) error {
	keys := []map[string]types.AttributeValue{relationships.HeadPrimaryKey(f.subject, f.predicate)}
	for i := range k {
		keys = append(keys, relationships.MarkerPrimaryKey(f.written, f.predicate, f.object(w, n*k+i)))
	}
	_, err := f.raw.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		f.names.Relationships: {Keys: keys, ConsistentRead: aws.Bool(true)},
		f.names.Entities:      {Keys: []map[string]types.AttributeValue{actions.EntityKey(f.subject)}, ConsistentRead: aws.Bool(true)},
	}})
	return err
}

// requests are the requests the report measures; send(w, n) sends request n, a
// number no other request has, from goroutine w.
func (f *ceilingFixture) requests() []struct {
	name string
	send func(w, n int) error
} {
	rel := aws.String(f.names.Relationships)
	return []struct {
		name string
		send func(w, n int) error
	}{
		{"Query", func(w, n int) error { // the raw appender's read of the list
			_, err := f.raw.Query(ctx, &dynamodb.QueryInput{TableName: rel, ConsistentRead: aws.Bool(true),
				KeyConditionExpression:    aws.String("#s = :s AND begins_with(#p, :p)"),
				ExpressionAttributeNames:  map[string]string{"#s": schema.AttrSubjectKey, "#p": schema.AttrPredicateKey},
				ExpressionAttributeValues: map[string]types.AttributeValue{":s": str(f.subject.String()), ":p": str(f.predicate)}})
			return err
		}},
		{"BatchWriteItem", func(w, n int) error { // the raw appender's write: one entry
			_, err := f.raw.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				f.names.Relationships: {{PutRequest: &types.PutRequest{Item: f.entry(w, n).Item()}}}}})
			return err
		}},
		{"BatchGetItem", func(w, n int) error { return f.batchGet(w, n, 1) }},
		{"TransactWriteItems", func(w, n int) error { return f.transact(w, n+100_000, 1) }},
		{"post", func(w, n int) error {
			_, err := f.raw.UpdateItem(ctx, f.post(fmt.Sprintf("waiting-%d", w), f.object(w, n)))
			return err
		}},
		{"poll", func(w, n int) error { // a consistent read of the head, as a waiting call sends
			_, err := f.raw.GetItem(ctx, &dynamodb.GetItemInput{TableName: rel, ConsistentRead: aws.Bool(true),
				Key: relationships.HeadPrimaryKey(f.subject, f.predicate)})
			return err
		}},
		{"BatchGetItem, combined", func(w, n int) error { return f.batchGet(w, n, ceilingBatch) }},
		{"TransactWriteItems, combined", func(w, n int) error { return f.transact(w, n+200_000, ceilingBatch) }},
		{"BatchWriteItem, combined", func(w, n int) error { return f.batchWrite(w, n+300_000, ceilingBatch) }},
	}
}

// requestRate sends requests from 8 goroutines at once for window, numbered from
// seq, and returns how many a second DynamoDB Local answered.
func requestRate(t *testing.T, send func(w, n int) error, window time.Duration, seq *atomic.Int64) float64 {
	var answered atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	deadline := time.Now().Add(window)
	for w := range 8 {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				if err := send(w, int(seq.Add(1))); err != nil {
					failed.Store(err)
					return
				}
				answered.Add(1)
			}
		})
	}
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		t.Fatal(err)
	}
	return float64(answered.Load()) / window.Seconds()
}
