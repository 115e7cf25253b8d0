package ryno

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/schema"
)

// writeOp puts item (when not nil) or deletes the item with key in table.
type writeOp struct {
	table string
	key   map[string]types.AttributeValue
	item  map[string]types.AttributeValue
	id    string // itemID(table, key)
}

func putOp(table string, key, item map[string]types.AttributeValue) writeOp {
	return writeOp{table: table, key: key, item: item, id: itemID(table, key)}
}

func deleteOp(table string, key map[string]types.AttributeValue) writeOp {
	return writeOp{table: table, key: key, id: itemID(table, key)}
}

func (op writeOp) request() types.WriteRequest {
	if op.item != nil {
		return types.WriteRequest{PutRequest: &types.PutRequest{Item: op.item}}
	}
	return types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: op.key}}
}

func (op writeOp) size() int {
	if op.item != nil {
		return schema.ItemSize(op.item)
	}
	return schema.ItemSize(op.key)
}

// write applies ops with BatchWriteItem. When ops name one item more than once, the
// last op for it wins: DynamoDB rejects a request naming an item twice, and parallel
// requests would apply them in no particular order.
func (b *batcher) write(ctx context.Context, ops []writeOp) error {
	ops = lastWriteWins(ops)
	chunks := chunk(ops, maxBatchWriteItems, maxRequestBytes, writeOp.size)
	var failed failures
	inParallel(ctx, len(chunks), b.concurrency, false, func(ctx context.Context, i int) error {
		left, err := b.writeChunk(ctx, chunks[i])
		if err != nil {
			failed.add(writeKeys(left), err)
		}
		return err
	})
	return failed.err("BatchWriteItem")
}

// lastWriteWins drops every op followed by a later op on the same item.
func lastWriteWins(ops []writeOp) []writeOp {
	last := make(map[string]int, len(ops))
	for i, op := range ops {
		last[op.id] = i
	}
	if len(last) == len(ops) {
		return ops
	}
	kept := make([]writeOp, 0, len(last))
	for i, op := range ops {
		if last[op.id] == i {
			kept = append(kept, op)
		}
	}
	return kept
}

// writeChunk sends one chunk until every op is done, returning the ops it could not
// finish and why. A throttled request counts as one that wrote nothing.
func (b *batcher) writeChunk(ctx context.Context, pending []writeOp) ([]writeOp, error) {
	return untilDone(ctx, b, pending, func(ctx context.Context, pending []writeOp) ([]writeOp, error) {
		out, err := b.api.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: writeRequests(pending)})
		if err != nil {
			return pending, retryThrottled(err)
		}
		return unprocessedWrites(pending, out.UnprocessedItems), nil
	})
}

func writeRequests(ops []writeOp) map[string][]types.WriteRequest {
	reqs := make(map[string][]types.WriteRequest, 1)
	for _, op := range ops {
		reqs[op.table] = append(reqs[op.table], op.request())
	}
	return reqs
}

// unprocessedWrites returns the ops of pending that DynamoDB reported unprocessed.
func unprocessedWrites(pending []writeOp, unprocessed map[string][]types.WriteRequest) []writeOp {
	if len(unprocessed) == 0 {
		return nil
	}
	byID := make(map[string]writeOp, len(pending))
	names := make(map[string][]string, 1) // key attribute names by table
	for _, op := range pending {
		byID[op.id] = op
		if _, ok := names[op.table]; !ok {
			names[op.table] = keyNames(op.key)
		}
	}
	var left []writeOp
	for table, reqs := range unprocessed {
		for _, r := range reqs {
			op := requestOp(table, r, names[table])
			if known, ok := byID[op.id]; ok {
				op = known
			}
			left = append(left, op)
		}
	}
	return left
}

// requestOp rebuilds the op of a write request; keyNames are the table's key attributes.
func requestOp(table string, r types.WriteRequest, keyNames []string) writeOp {
	if r.PutRequest != nil {
		return putOp(table, project(r.PutRequest.Item, keyNames), r.PutRequest.Item)
	}
	return deleteOp(table, r.DeleteRequest.Key)
}

func writeKeys(ops []writeOp) []ItemKey {
	keys := make([]ItemKey, len(ops))
	for i, op := range ops {
		keys[i] = ItemKey{Table: op.table, Key: op.key}
	}
	return keys
}
