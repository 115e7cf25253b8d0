package ryno

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// getOp reads the item with key from table.
type getOp struct {
	table string
	key   map[string]types.AttributeValue
	id    string // itemID(table, key)
}

func newGetOp(table string, key map[string]types.AttributeValue) getOp {
	return getOp{table: table, key: key, id: itemID(table, key)}
}

// itemSet holds items read by a batch, by itemID of their key.
type itemSet struct {
	mu    sync.Mutex
	items map[string]map[string]types.AttributeValue
}

func (s *itemSet) add(id string, item map[string]types.AttributeValue) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items[id] = item
}

// readOptions shape the reads of a batch.
type readOptions struct {
	consistent bool
	projection []string // the attributes to read, which must include the key; all when empty
}

// get reads the items of ops with BatchGetItem and returns those that exist, by
// itemID. Each item is read once however often ops name it. A failure cancels the
// remaining requests.
func (b *batcher) get(ctx context.Context, ops []getOp, ro readOptions) (map[string]map[string]types.AttributeValue, error) {
	ops = uniqueGets(ops)
	chunks := chunk(ops, maxBatchGetKeys, maxRequestBytes, func(getOp) int { return 0 })
	found := itemSet{items: make(map[string]map[string]types.AttributeValue, len(ops))}
	var failed failures
	inParallel(ctx, len(chunks), b.concurrency, true, func(ctx context.Context, i int) error {
		left, err := b.getChunk(ctx, chunks[i], ro, &found)
		if err != nil {
			failed.add(getKeys(left), err)
		}
		return err
	})
	if err := failed.err("BatchGetItem"); err != nil {
		return nil, err
	}
	return found.items, nil
}

func uniqueGets(ops []getOp) []getOp {
	seen := make(map[string]bool, len(ops))
	unique := ops[:0:0]
	for _, op := range ops {
		if !seen[op.id] {
			seen[op.id] = true
			unique = append(unique, op)
		}
	}
	return unique
}

// getChunk reads one chunk until every key is answered, returning the ops it could
// not finish and why. A throttled request counts as one that read nothing.
func (b *batcher) getChunk(ctx context.Context, pending []getOp, ro readOptions, found *itemSet) ([]getOp, error) {
	return untilDone(ctx, b, pending, func(ctx context.Context, pending []getOp) ([]getOp, error) {
		out, err := b.api.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: getRequests(pending, ro)})
		if err != nil {
			return pending, retryThrottled(err)
		}
		byID := make(map[string]getOp, len(pending))
		names := make(map[string][]string, 1)
		for _, op := range pending {
			byID[op.id] = op
			if _, ok := names[op.table]; !ok {
				names[op.table] = keyNames(op.key)
			}
		}
		for table, items := range out.Responses {
			for _, item := range items {
				found.add(itemID(table, project(item, names[table])), item)
			}
		}
		return unprocessedGets(byID, out.UnprocessedKeys), nil
	})
}

func getRequests(ops []getOp, ro readOptions) map[string]types.KeysAndAttributes {
	reqs := make(map[string]types.KeysAndAttributes, 1)
	for _, op := range ops {
		r, ok := reqs[op.table]
		if !ok {
			r.ConsistentRead = aws.Bool(ro.consistent)
			r.ProjectionExpression, r.ExpressionAttributeNames = projection(ro.projection)
		}
		r.Keys = append(r.Keys, op.key)
		reqs[op.table] = r
	}
	return reqs
}

// projection returns a projection expression of names, with its placeholders; nil for
// no names.
func projection(names []string) (*string, map[string]string) {
	if len(names) == 0 {
		return nil, nil
	}
	placeholders := make([]string, len(names))
	attrs := make(map[string]string, len(names))
	for i, name := range names {
		placeholders[i] = "#a" + strconv.Itoa(i)
		attrs[placeholders[i]] = name
	}
	return aws.String(strings.Join(placeholders, ", ")), attrs
}

func unprocessedGets(byID map[string]getOp, unprocessed map[string]types.KeysAndAttributes) []getOp {
	var left []getOp
	for table, ka := range unprocessed {
		for _, key := range ka.Keys {
			op, ok := byID[itemID(table, key)]
			if !ok {
				op = newGetOp(table, key)
			}
			left = append(left, op)
		}
	}
	return left
}

func getKeys(ops []getOp) []ItemKey {
	keys := make([]ItemKey, len(ops))
	for i, op := range ops {
		keys[i] = ItemKey{Table: op.table, Key: op.key}
	}
	return keys
}
