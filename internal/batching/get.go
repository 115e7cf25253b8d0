package batching

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// GetOp reads the item with key from table.
type GetOp struct {
	Table string
	Key   map[string]types.AttributeValue
	ID    string // ItemID(table, key)
}

// NewGetOp returns the read of the item of table with key.
func NewGetOp(table string, key map[string]types.AttributeValue) GetOp {
	return GetOp{Table: table, Key: key, ID: ItemID(table, key)}
}

// itemSet holds items read by a batch, by ItemID of their key.
type itemSet struct {
	mu    sync.Mutex
	items map[string]map[string]types.AttributeValue
}

func (s *itemSet) add(id string, item map[string]types.AttributeValue) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items[id] = item
}

// ReadOptions shape the reads of a batch.
type ReadOptions struct {
	Consistent bool
	Projection []string // the attributes to read, the key's always among them; all when empty
}

// Get reads the items of ops with BatchGetItem and returns those that exist, by
// ItemID. Each item is read once however often ops name it. A failure cancels the
// remaining requests.
func (b *Engine) Get(ctx context.Context, ops []GetOp, ro ReadOptions) (map[string]map[string]types.AttributeValue, error) {
	ops = uniqueGets(ops)
	chunks := Chunk(ops, maxBatchGetKeys, maxRequestBytes, func(GetOp) int { return 0 })
	found := itemSet{items: make(map[string]map[string]types.AttributeValue, len(ops))}
	var failed Failures
	InParallel(ctx, len(chunks), b.concurrency, true, func(ctx context.Context, i int) error {
		left, err := b.getChunk(ctx, chunks[i], ro, &found)
		if err != nil {
			failed.Add(getKeys(left), err)
		}
		return err
	})
	if err := failed.Err("BatchGetItem"); err != nil {
		return nil, err
	}
	return found.items, nil
}

func uniqueGets(ops []GetOp) []GetOp {
	seen := make(map[string]bool, len(ops))
	unique := ops[:0:0]
	for _, op := range ops {
		if !seen[op.ID] {
			seen[op.ID] = true
			unique = append(unique, op)
		}
	}
	return unique
}

// getChunk reads one chunk until every key is answered, returning the ops it could
// not finish and why. A throttled request counts as one that read nothing.
func (b *Engine) getChunk(ctx context.Context, pending []GetOp, ro ReadOptions, found *itemSet) ([]GetOp, error) {
	return UntilDone(ctx, b, pending, func(ctx context.Context, pending []GetOp) ([]GetOp, error) {
		out, err := b.api.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: getRequests(pending, ro)})
		if err != nil {
			return pending, retryThrottled(err)
		}
		byID := make(map[string]GetOp, len(pending))
		names := make(map[string][]string, 1)
		for _, op := range pending {
			byID[op.ID] = op
			if _, ok := names[op.Table]; !ok {
				names[op.Table] = keyNames(op.Key)
			}
		}
		for table, items := range out.Responses {
			for _, item := range items {
				found.add(ItemID(table, Project(item, names[table])), item)
			}
		}
		return unprocessedGets(byID, out.UnprocessedKeys), nil
	})
}

// withKey returns names with the names of key added, so that each item read can be
// told by its key; nil (every attribute) for no names.
func withKey(names []string, key map[string]types.AttributeValue) []string {
	if len(names) == 0 {
		return nil
	}
	for _, k := range keyNames(key) {
		if !slices.Contains(names, k) {
			names = append(slices.Clip(names), k)
		}
	}
	return names
}

func getRequests(ops []GetOp, ro ReadOptions) map[string]types.KeysAndAttributes {
	reqs := make(map[string]types.KeysAndAttributes, 1)
	for _, op := range ops {
		r, ok := reqs[op.Table]
		if !ok {
			r.ConsistentRead = aws.Bool(ro.Consistent)
			r.ProjectionExpression, r.ExpressionAttributeNames = Projection(withKey(ro.Projection, op.Key))
		}
		r.Keys = append(r.Keys, op.Key)
		reqs[op.Table] = r
	}
	return reqs
}

// Projection returns a Projection expression of names, with its placeholders; nil for
// no names.
func Projection(names []string) (*string, map[string]string) {
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

func unprocessedGets(byID map[string]GetOp, unprocessed map[string]types.KeysAndAttributes) []GetOp {
	var left []GetOp
	for table, ka := range unprocessed {
		for _, key := range ka.Keys {
			op, ok := byID[ItemID(table, key)]
			if !ok {
				op = NewGetOp(table, key)
			}
			left = append(left, op)
		}
	}
	return left
}

func getKeys(ops []GetOp) []ItemKey {
	keys := make([]ItemKey, len(ops))
	for i, op := range ops {
		keys[i] = ItemKey{Table: op.Table, Key: op.Key}
	}
	return keys
}
