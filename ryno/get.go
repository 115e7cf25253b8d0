package ryno

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Get returns the entity with key k, or an error wrapping ErrNotFound. One GetItem
// request.
func (c *Client) Get(ctx context.Context, k Key) (*Entity, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	item, err := c.getItem(ctx, k, c.opts.ConsistentRead)
	if err != nil {
		return nil, err
	}
	if item == nil {
		return nil, notFound(k)
	}
	return decodeEntity(item)
}

// getItem reads the entity item of k; nil when there is none.
func (c *Client) getItem(ctx context.Context, k Key, consistent bool) (map[string]types.AttributeValue, error) {
	out, err := c.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(c.names.Entities),
		Key:            k.item(),
		ConsistentRead: aws.Bool(consistent),
	})
	if err != nil {
		return nil, fmt.Errorf("ryno: get %s: %w", k, err)
	}
	return out.Item, nil
}

// BatchGet returns the entities with keys, in the order of keys, with nil where an
// entity does not exist. Any number of keys: they are read with ceil(n/100)
// BatchGetItem requests sent in parallel, each distinct key once. When some keys
// could not be read the error is a *BatchError naming them.
func (c *Client) BatchGet(ctx context.Context, keys []Key) ([]*Entity, error) {
	ops := make([]getOp, len(keys))
	for i, k := range keys {
		if err := k.Validate(); err != nil {
			return nil, fmt.Errorf("keys[%d]: %w", i, err)
		}
		ops[i] = newGetOp(c.names.Entities, k.item())
	}
	if len(ops) == 0 {
		return []*Entity{}, nil
	}
	items, err := c.batch.get(ctx, ops, c.opts.ConsistentRead)
	if err != nil {
		return nil, err
	}
	entities := make([]*Entity, len(keys))
	for i, op := range ops {
		item, ok := items[op.id]
		if !ok {
			continue
		}
		// Decoded per position: duplicate keys must not share one mutable entity.
		if entities[i], err = decodeEntity(item); err != nil {
			return nil, err
		}
	}
	return entities, nil
}

func notFound(k Key) error { return fmt.Errorf("%w: %s", ErrNotFound, k) }
