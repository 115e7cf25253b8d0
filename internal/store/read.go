package store

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/schema"
)

// GetItem reads the entity item of k; nil when there is none.
func (c *Core) GetItem(ctx context.Context, k Key, consistent bool) (map[string]types.AttributeValue, error) {
	return c.GetEntity(ctx, k, batching.ReadOptions{Consistent: consistent})
}

// GetEntity reads the entity item of k as ro asks, in part with ro.Projection; nil
// when there is none.
func (c *Core) GetEntity(ctx context.Context, k Key, ro batching.ReadOptions) (map[string]types.AttributeValue, error) {
	in := &dynamodb.GetItemInput{
		TableName:      aws.String(c.Names.Entities),
		Key:            actions.EntityKey(k),
		ConsistentRead: aws.Bool(ro.Consistent),
	}
	in.ProjectionExpression, in.ExpressionAttributeNames = batching.Projection(ro.Projection)
	out, err := c.API.GetItem(ctx, in)
	if err != nil {
		return nil, errs.Wrap(err, "get %s", k)
	}
	if out.Item != nil && ro.Projection == nil {
		c.Shapes.LearnStored(k.Type, out.Item) // a write of what was read needs no other
	}
	return out.Item, nil
}

// BatchReadEntities reads the entity items of keys as ro asks, with BatchGetItem
// requests in parallel, each distinct key once: in the order of keys, nil where
// there is none.
func (c *Core) BatchReadEntities(ctx context.Context, keys []Key, ro batching.ReadOptions) ([]map[string]types.AttributeValue, error) {
	ops := make([]batching.GetOp, len(keys))
	for i, k := range keys {
		ops[i] = batching.NewGetOp(c.Names.Entities, actions.EntityKey(k))
	}
	found, err := c.Batch.Get(ctx, ops, ro)
	if err != nil {
		return nil, err
	}
	items := make([]map[string]types.AttributeValue, len(keys))
	for i, op := range ops {
		items[i] = found[op.ID]
	}
	return items, nil
}

// GetInput is a strongly consistent GetItem of key in table.
func GetInput(table string, key map[string]types.AttributeValue) *dynamodb.GetItemInput {
	return &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)}
}

// GetRelationshipItem reads one item of the relationship entries table
// consistently; nil when there is none.
func (c *Core) GetRelationshipItem(ctx context.Context, key map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	out, err := c.API.GetItem(ctx, GetInput(c.Names.Relationships, key))
	if err != nil {
		return nil, err
	}
	return out.Item, nil
}

// Deleted reports whether item is the tombstone of an entity being deleted: the
// Delete has taken effect, and the entity reads as missing.
func Deleted(item map[string]types.AttributeValue) bool {
	_, ok := item[schema.AttrDeleting]
	return ok
}

// Hidden reports whether a reader sees item as missing: a tombstone, or an entity
// that has expired by the core's clock.
func (c *Core) Hidden(item map[string]types.AttributeValue) bool {
	return Deleted(item) || entitystate.ExpiredAt(entitystate.ExpiresOf(item), c.Now())
}

// Visible is the opposite of Hidden: what a reader sees.
func (c *Core) Visible(item map[string]types.AttributeValue) bool { return !c.Hidden(item) }

// ReadStored decodes the state of item, nil for no item, as of the core's clock.
func (c *Core) ReadStored(k Key, item map[string]types.AttributeValue) (entitystate.State, error) {
	return decodeStored(k, item, c.Now())
}

// decodeStored decodes the state of item, nil for no item, as of now.
func decodeStored(k Key, item map[string]types.AttributeValue, now time.Time) (entitystate.State, error) {
	s, err := entitystate.Decode(item, now)
	if err != nil {
		return s, errs.Wrap(err, "stored entity %s", k)
	}
	return s, nil
}

// ReadLive reads the entity k, strongly consistent, for a write that goes on from
// what it reads. An entity being deleted, or expired, reads as missing once its
// deletion is completed, as every writer meeting one completes it.
func (c *Core) ReadLive(ctx context.Context, k Key) (map[string]types.AttributeValue, error) {
	item, err := c.GetItem(ctx, k, true)
	if err != nil {
		return nil, err
	}
	s, err := c.ReadStored(k, item)
	switch {
	case err != nil:
		return nil, err
	case s.Ending():
		if err := c.Deletes.CompleteDelete(ctx, k, s); err != nil {
			return nil, errs.Wrap(err, "completing the delete of %s", k)
		}
		return nil, NotFound(k)
	case !s.Exists():
		return nil, NotFound(k)
	}
	return item, nil
}
