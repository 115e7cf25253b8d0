package ryno

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/store"
)

// getChecked is getEntity of an entity whose owners a read checks (Owns.ObjectType):
// the GetItem and the lookup of its owners go in one round, then a round for each
// level of owners.
func (c *Client) getChecked(ctx context.Context, k Key, consistent bool) (*Entity, error) {
	var item map[string]types.AttributeValue
	var owners map[store.Key][]store.Key
	err := batching.Parallel(ctx, 2, 2, func(ctx context.Context, i int) error {
		var err error
		if i == 0 {
			item, err = c.core.GetItem(ctx, relationships.Key(k), consistent)
		} else {
			owners, err = c.core.Owners(ctx, []store.Key{relationships.Key(k)}, c.opts.MaxConcurrency-1)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if item == nil || c.core.Hidden(item) {
		return nil, notFound(k)
	}
	hidden, err := c.core.HiddenByOwners(ctx, owners, consistent)
	if err != nil {
		return nil, err
	}
	if hidden[relationships.Key(k)] {
		return nil, notFound(k)
	}
	return decodeEntity(item)
}

// dropOwnerHidden sets to nil each of entities that an owner being deleted, expired
// or gone hides (Owns.ObjectType). Entities of types no Owns.ObjectType names cost
// nothing; for the others it looks up their owners, one round, then reads them, a
// round a level.
func (c *Client) dropOwnerHidden(ctx context.Context, entities []*Entity, consistent bool) error {
	var keys []store.Key
	for _, e := range entities {
		if e != nil && c.core.ChecksOwners(e.Type) {
			keys = append(keys, relationships.Key(e.Key))
		}
	}
	if len(keys) == 0 {
		return nil
	}
	owners, err := c.core.Owners(ctx, keys, c.opts.MaxConcurrency)
	if err != nil {
		return err
	}
	hidden, err := c.core.HiddenByOwners(ctx, owners, consistent)
	if err != nil {
		return err
	}
	for i, e := range entities {
		if e != nil && hidden[relationships.Key(e.Key)] {
			entities[i] = nil
		}
	}
	return nil
}

// keepOwnerVisible removes from page the entities an owner hides, as
// dropOwnerHidden.
func (c *Client) keepOwnerVisible(ctx context.Context, page *Page[*Entity], consistent bool) (*Page[*Entity], error) {
	if err := c.dropOwnerHidden(ctx, page.Items, consistent); err != nil {
		return nil, err
	}
	return presentPage(page.Items, page.Cursor), nil
}
