package batching

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/schema"
)

// WriteOp puts item (when not nil) or deletes the item with key in table.
type WriteOp struct {
	Table string
	Key   map[string]types.AttributeValue
	Item  map[string]types.AttributeValue
	ID    string // ItemID(table, key)
}

// PutOp returns the put of item, whose key is key, into table.
func PutOp(table string, key, item map[string]types.AttributeValue) WriteOp {
	return WriteOp{Table: table, Key: key, Item: item, ID: ItemID(table, key)}
}

// DeleteOp returns the delete of the item of table with key.
func DeleteOp(table string, key map[string]types.AttributeValue) WriteOp {
	return WriteOp{Table: table, Key: key, ID: ItemID(table, key)}
}

func (op WriteOp) request() types.WriteRequest {
	if op.Item != nil {
		return types.WriteRequest{PutRequest: &types.PutRequest{Item: op.Item}}
	}
	return types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: op.Key}}
}

// Size returns the bytes the write counts for in a request: its item, or its key.
func (op WriteOp) Size() int {
	if op.Item != nil {
		return schema.ItemSize(op.Item)
	}
	return schema.ItemSize(op.Key)
}

// Write applies ops with BatchWriteItem. When ops name one item more than once, the
// last op for it wins: DynamoDB rejects a request naming an item twice, and parallel
// requests would apply them in no particular order.
func (b *Engine) Write(ctx context.Context, ops []WriteOp) error {
	ops = LastWriteWins(ops)
	chunks := Chunk(ops, maxBatchWriteItems, maxRequestBytes, WriteOp.Size)
	var failed Failures
	InParallel(ctx, len(chunks), b.concurrency, false, func(ctx context.Context, i int) error {
		left, err := b.writeChunk(ctx, chunks[i])
		if err != nil {
			failed.Add(writeKeys(left), err)
		}
		return err
	})
	return failed.Err("BatchWriteItem")
}

// LastWriteWins drops every op followed by a later op on the same item.
func LastWriteWins(ops []WriteOp) []WriteOp {
	last := make(map[string]int, len(ops))
	for i, op := range ops {
		last[op.ID] = i
	}
	if len(last) == len(ops) {
		return ops
	}
	kept := make([]WriteOp, 0, len(last))
	for i, op := range ops {
		if last[op.ID] == i {
			kept = append(kept, op)
		}
	}
	return kept
}

// writeChunk sends one chunk until every op is done, returning the ops it could not
// finish and why. A throttled request counts as one that wrote nothing.
func (b *Engine) writeChunk(ctx context.Context, pending []WriteOp) ([]WriteOp, error) {
	return UntilDone(ctx, b, pending, func(ctx context.Context, pending []WriteOp) ([]WriteOp, error) {
		out, err := b.api.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: writeRequests(pending)})
		if err != nil {
			return pending, retryThrottled(err)
		}
		return unprocessedWrites(pending, out.UnprocessedItems), nil
	})
}

func writeRequests(ops []WriteOp) map[string][]types.WriteRequest {
	reqs := make(map[string][]types.WriteRequest, 1)
	for _, op := range ops {
		reqs[op.Table] = append(reqs[op.Table], op.request())
	}
	return reqs
}

// unprocessedWrites returns the ops of pending that DynamoDB reported unprocessed.
func unprocessedWrites(pending []WriteOp, unprocessed map[string][]types.WriteRequest) []WriteOp {
	if len(unprocessed) == 0 {
		return nil
	}
	byID := make(map[string]WriteOp, len(pending))
	names := make(map[string][]string, 1) // key attribute names by table
	for _, op := range pending {
		byID[op.ID] = op
		if _, ok := names[op.Table]; !ok {
			names[op.Table] = keyNames(op.Key)
		}
	}
	var left []WriteOp
	for table, reqs := range unprocessed {
		for _, r := range reqs {
			op := requestOp(table, r, names[table])
			if known, ok := byID[op.ID]; ok {
				op = known
			}
			left = append(left, op)
		}
	}
	return left
}

// requestOp rebuilds the op of a write request; keyNames are the table's key attributes.
func requestOp(table string, r types.WriteRequest, keyNames []string) WriteOp {
	if r.PutRequest != nil {
		return PutOp(table, Project(r.PutRequest.Item, keyNames), r.PutRequest.Item)
	}
	return DeleteOp(table, r.DeleteRequest.Key)
}

func writeKeys(ops []WriteOp) []ItemKey {
	keys := make([]ItemKey, len(ops))
	for i, op := range ops {
		keys[i] = ItemKey{Table: op.Table, Key: op.Key}
	}
	return keys
}
