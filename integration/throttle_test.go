package integration_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/ryno"
)

// chaosSeeds are the seeds each test under faults is repeated with.
var chaosSeeds = []uint64{1, 2, 3}

// underLoad returns the faults of a DynamoDB under load, for the batch engine to
// absorb: a tenth of the batch requests throttled after the SDK's retryer gave up,
// and half the items of the others left unprocessed. Other operations are spared:
// they do not go through the batch engine.
func underLoad(seed uint64) dynamotest.ChaosOptions {
	return dynamotest.ChaosOptions{
		ThrottleRate:    0.1,
		UnprocessedRate: 0.5,
		Ops:             []string{"BatchGetItem", "BatchWriteItem"},
		Seed:            seed,
	}
}

// chaosClient returns a client on the tables of s whose requests meet the faults of
// opts, with short backoff so that retries keep the test quick.
func chaosClient(t *testing.T, s *store, opts dynamotest.ChaosOptions) (*ryno.Client, *dynamotest.Chaos) {
	t.Helper()
	chaos := dynamotest.NewChaos(s.raw, opts)
	db, err := ryno.New(chaos, ryno.Options{
		TablePrefix: s.Names().Prefix,
		Retry:       ryno.RetryOptions{BaseDelay: time.Millisecond, MaxDelay: 20 * time.Millisecond},
	})
	require.NoError(t, err)
	return db, chaos
}

// requireFaultsMet checks that the faults of chaos happened, so that a test passing
// under them means something.
func requireFaultsMet(t *testing.T, chaos *dynamotest.Chaos) {
	t.Helper()
	require.Positive(t, chaos.Throttled(), "requests throttled")
	require.Positive(t, chaos.Unprocessed(), "items left unprocessed")
}

// shuffled returns keys in an order of its own, so that a result in input order
// cannot be one sorted by key.
func shuffled(keys []ryno.Key) []ryno.Key {
	out := make([]ryno.Key, len(keys))
	for i, j := range rand.New(rand.NewPCG(1, 2)).Perm(len(keys)) {
		out[i] = keys[j]
	}
	return out
}

// createAll creates a person for each key, named after its ID.
func createAll(t *testing.T, db *ryno.Client, keys []ryno.Key) {
	t.Helper()
	var g errgroup.Group
	g.SetLimit(8)
	for _, k := range keys {
		g.Go(func() error {
			_, err := db.Create(ctx, person(k.ID, map[string]any{"name": k.ID}))
			return err
		})
	}
	require.NoError(t, g.Wait())
}

func TestBatchGetOf1000KeysCompletesUnderThrottling(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreWith(t, nil)
	keys := shuffled(pks("p", 1000))
	createAll(t, s.Client, keys)

	for _, seed := range chaosSeeds {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			db, chaos := chaosClient(t, s, underLoad(seed))
			got, err := db.BatchGet(ctx, keys)

			require.NoError(t, err)
			require.Len(t, got, len(keys))
			for i, k := range keys {
				require.NotNil(t, got[i], "key %d", i)
				require.Equal(t, k, got[i].Key, "results are in input order")
				require.Equal(t, k.ID, got[i].Attributes["name"])
			}
			requireFaultsMet(t, chaos)
		})
	}
}

func TestSetOf1000RelationshipsCompletesUnderThrottling(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreWith(t, nil)
	objects := shuffled(pks("o", 1000))

	for _, seed := range chaosSeeds {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			// A list this long is written under a lease, in transactions: every
			// request, reads and transactions included, may be throttled.
			opts := underLoad(seed)
			opts.Ops = nil
			db, chaos := chaosClient(t, s, opts)
			subject := pk(fmt.Sprintf("subject%d", seed))
			_, err := db.Set(ctx, &ryno.Entity{Key: subject}, ryno.ReplaceLists(map[string][]ryno.Key{"follows": objects}))

			require.NoError(t, err)
			require.Equal(t, objects, objectsOf(t, s.Client, subject, "follows", 100), "every object once, in order")
			require.Positive(t, chaos.Throttled(), "requests throttled")
			requireListExact(t, s, subject, "follows")
		})
	}
}

// rawEntries returns n index entry items: items of a real table with nothing but
// their key, for requests sent without the store.
func rawEntries(n int) []map[string]types.AttributeValue {
	items := make([]map[string]types.AttributeValue, n)
	for i := range items {
		items[i] = map[string]types.AttributeValue{
			schema.AttrSubjectKey: str("chaos"),
			schema.AttrUniqueKey:  str(fmt.Sprintf("u%02d", i)),
		}
	}
	return items
}

func TestChaosLeavesItsShareOfBatchItemsUnprocessed(t *testing.T) {
	dynamotest.Parallel(t)
	tests := []struct {
		rate float64
		left int // of 10 items
	}{
		{0, 0},
		{0.25, 2}, // rounded down
		{0.5, 5},
		{1, 10},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.rate), func(t *testing.T) {
			s := newStoreWith(t, nil)
			table := s.Names().IndexEntries
			items := rawEntries(10)
			chaos := dynamotest.NewChaos(s.raw, dynamotest.ChaosOptions{UnprocessedRate: tt.rate, Seed: 1})

			var writes []types.WriteRequest
			for _, item := range items {
				writes = append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
			}
			wrote, err := chaos.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: writes}})
			require.NoError(t, err)
			require.Len(t, wrote.UnprocessedItems[table], tt.left)
			stored, err := s.raw.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table)})
			require.NoError(t, err)
			require.Len(t, stored.Items, 10-tt.left, "unprocessed items are not written")

			_, err = s.raw.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: writes}})
			require.NoError(t, err)
			read, err := chaos.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				table: {Keys: items, ConsistentRead: aws.Bool(true)},
			}})
			require.NoError(t, err)
			require.Len(t, read.UnprocessedKeys[table].Keys, tt.left)
			require.ElementsMatch(t, items, append(read.Responses[table], read.UnprocessedKeys[table].Keys...),
				"every key is either read or left unprocessed")
			if tt.left > 0 {
				require.Equal(t, aws.Bool(true), read.UnprocessedKeys[table].ConsistentRead, "unprocessed keys keep the request's options")
			}
			require.Equal(t, 2*tt.left, chaos.Unprocessed())
		})
	}
}

func TestChaosThrottlesOnlyTheChosenOperations(t *testing.T) {
	s := newStoreWith(t, nil)
	table := s.Names().IndexEntries
	item := rawEntries(1)[0]
	chaos := dynamotest.NewChaos(s.raw, dynamotest.ChaosOptions{ThrottleRate: 1, Ops: []string{"BatchWriteItem"}})

	_, err := chaos.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		table: {{PutRequest: &types.PutRequest{Item: item}}},
	}})
	var opErr *smithy.OperationError
	require.ErrorAs(t, err, &opErr)
	require.Equal(t, "BatchWriteItem", opErr.OperationName)
	var throttled *types.ProvisionedThroughputExceededException
	require.True(t, errors.As(err, &throttled), "a typed throttling error: %v", err)
	require.Equal(t, 1, chaos.Throttled())

	_, err = chaos.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
	require.NoError(t, err, "other operations are sent")
	got, err := chaos.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: item, ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	require.Equal(t, item, got.Item)
	require.Equal(t, 1, chaos.Throttled())
}
