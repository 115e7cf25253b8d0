package batching

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// fakeDB is an in-memory stand-in for the batch operations of DynamoDB. It checks
// DynamoDB's request limits, and hooks let a test leave items unprocessed or fail
// requests, which DynamoDB Local never does.
type fakeDB struct {
	API // nil: calling any other operation panics

	t        *testing.T
	keyNames []string // key attributes of every table

	// writeHook and getHook, when set, choose what a request leaves unprocessed or
	// fail it. call counts requests of that operation from 1.
	writeHook func(call int, reqs map[string][]types.WriteRequest) (map[string][]types.WriteRequest, error)
	getHook   func(call int, reqs map[string]types.KeysAndAttributes) (map[string]types.KeysAndAttributes, error)

	// parallel, when above 1, holds every request until that many were in flight at
	// once: a test that sets it fails (after a timeout) unless requests run in
	// parallel.
	parallel int
	opened   chan struct{}
	open     sync.Once

	mu          sync.Mutex
	items       map[string]map[string]types.AttributeValue
	writeCalls  int
	getCalls    int
	inFlight    int
	maxInFlight int
	requestLens []int
	processed   map[string]int // by itemID: how often an item was written or read
}

func newFakeDB(t *testing.T) *fakeDB {
	return &fakeDB{t: t, keyNames: []string{"pk", "sk"}, items: map[string]map[string]types.AttributeValue{}, opened: make(chan struct{}), processed: map[string]int{}}
}

func (f *fakeDB) enter() error {
	f.mu.Lock()
	f.inFlight++
	f.maxInFlight = max(f.maxInFlight, f.inFlight)
	if f.parallel > 1 && f.maxInFlight == f.parallel {
		f.open.Do(func() { close(f.opened) })
	}
	f.mu.Unlock()
	if f.parallel <= 1 {
		return nil
	}
	select {
	case <-f.opened:
		return nil
	case <-time.After(5 * time.Second):
		return fmt.Errorf("fake: %d requests never ran in parallel", f.parallel)
	}
}

func (f *fakeDB) exit() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inFlight--
}

func (f *fakeDB) itemKeyID(table string, item map[string]types.AttributeValue) string {
	return ItemID(table, Project(item, f.keyNames))
}

func (f *fakeDB) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	if err := f.enter(); err != nil {
		return nil, err
	}
	defer f.exit()
	f.mu.Lock()
	f.writeCalls++
	call := f.writeCalls
	f.mu.Unlock()

	n := f.checkRequest(writeRequestIDs(f, in.RequestItems), maxBatchWriteItems)
	f.mu.Lock()
	f.requestLens = append(f.requestLens, n)
	f.mu.Unlock()
	var unprocessed map[string][]types.WriteRequest
	if f.writeHook != nil {
		var err error
		if unprocessed, err = f.writeHook(call, in.RequestItems); err != nil {
			return nil, err
		}
	}
	skip := map[string]bool{}
	for id := range writeRequestIDs(f, unprocessed) {
		skip[id] = true
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for table, reqs := range in.RequestItems {
		for _, r := range reqs {
			switch {
			case r.PutRequest != nil && !skip[f.itemKeyID(table, r.PutRequest.Item)]:
				f.items[f.itemKeyID(table, r.PutRequest.Item)] = r.PutRequest.Item
				f.processed[f.itemKeyID(table, r.PutRequest.Item)]++
			case r.DeleteRequest != nil && !skip[f.itemKeyID(table, r.DeleteRequest.Key)]:
				delete(f.items, f.itemKeyID(table, r.DeleteRequest.Key))
				f.processed[f.itemKeyID(table, r.DeleteRequest.Key)]++
			}
		}
	}
	return &dynamodb.BatchWriteItemOutput{UnprocessedItems: unprocessed}, nil
}

func (f *fakeDB) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	if err := f.enter(); err != nil {
		return nil, err
	}
	defer f.exit()
	f.mu.Lock()
	f.getCalls++
	call := f.getCalls
	f.mu.Unlock()

	ids := map[string]int{}
	for table, ka := range in.RequestItems {
		for _, k := range ka.Keys {
			ids[f.itemKeyID(table, k)]++
		}
	}
	n := f.checkRequest(ids, maxBatchGetKeys)
	f.mu.Lock()
	f.requestLens = append(f.requestLens, n)
	f.mu.Unlock()
	var unprocessed map[string]types.KeysAndAttributes
	if f.getHook != nil {
		var err error
		if unprocessed, err = f.getHook(call, in.RequestItems); err != nil {
			return nil, err
		}
	}
	skip := map[string]bool{}
	for table, ka := range unprocessed {
		for _, k := range ka.Keys {
			skip[f.itemKeyID(table, k)] = true
		}
	}
	out := &dynamodb.BatchGetItemOutput{Responses: map[string][]map[string]types.AttributeValue{}, UnprocessedKeys: unprocessed}
	f.mu.Lock()
	defer f.mu.Unlock()
	for table, ka := range in.RequestItems {
		for _, k := range ka.Keys {
			id := f.itemKeyID(table, k)
			if skip[id] {
				continue
			}
			f.processed[id]++
			if item, ok := f.items[id]; ok {
				out.Responses[table] = append(out.Responses[table], item)
			}
		}
	}
	return out, nil
}

// checkRequest reports requests DynamoDB would reject: empty, too many items, or an
// item named twice. It returns the number of items.
func (f *fakeDB) checkRequest(ids map[string]int, limit int) int {
	n := 0
	for id, count := range ids {
		n += count
		if count > 1 {
			f.t.Errorf("fake: item %q appears %d times in one request", id, count)
		}
	}
	if n == 0 || n > limit {
		f.t.Errorf("fake: request has %d items; DynamoDB allows 1 to %d", n, limit)
	}
	return n
}

func writeRequestIDs(f *fakeDB, reqs map[string][]types.WriteRequest) map[string]int {
	ids := map[string]int{}
	for table, rs := range reqs {
		for _, r := range rs {
			if r.PutRequest != nil {
				ids[f.itemKeyID(table, r.PutRequest.Item)]++
			} else {
				ids[f.itemKeyID(table, r.DeleteRequest.Key)]++
			}
		}
	}
	return ids
}

// testKey returns the key of item i of the fake's tables.
func testKey(i int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": str(fmt.Sprintf("k%04d", i)), "sk": str("s")}
}

func testItem(i int, value string) map[string]types.AttributeValue {
	item := testKey(i)
	item["v"] = str(value)
	return item
}

var errInjected = errors.New("injected failure")

// testPolicy is the retry policy of the tests: ryno's defaults.
var testPolicy = Policy{MaxAttempts: 10, BaseDelay: 25 * time.Millisecond, MaxDelay: 2 * time.Second}

func str(s string) *types.AttributeValueMemberS { return &types.AttributeValueMemberS{Value: s} }
