package ryno

import (
	"context"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/store"
)

// getChecked is getVisible of an entity whose owners a read checks (Owns.ObjectType):
// the GetItem and the lookup of its owners go in one round, then a round for each
// level of owners.
func (c *Client) getChecked(ctx context.Context, k Key, r entityRead) (map[string]types.AttributeValue, error) {
	var item map[string]types.AttributeValue
	var owners map[store.Key][]store.Key
	err := batching.Parallel(ctx, 2, 2, func(ctx context.Context, i int) error {
		var err error
		if i == 0 {
			item, err = c.core.GetEntity(ctx, k, r.options())
		} else {
			owners, err = c.core.Owners(ctx, []store.Key{k}, c.opts.MaxConcurrency-1)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if item == nil || c.core.Hidden(item) {
		return nil, notFound(k)
	}
	hidden, err := c.core.HiddenByOwners(ctx, owners, r.consistent)
	if err != nil {
		return nil, err
	}
	if hidden[k] {
		return nil, notFound(k)
	}
	return item, nil
}

// dropOwnerHidden sets to nil each of entities that an owner being deleted, expired
// or gone hides (Owns.ObjectType), and leaves out of bad (nil for none) the items
// it hides. Entities of types no Owns.ObjectType names cost nothing; for the others
// it looks up their owners, one round, then reads them, a round a level.
func (c *Client) dropOwnerHidden(ctx context.Context, entities []*Entity, bad *UnreadableError, consistent bool) error {
	var keys []store.Key
	for _, e := range entities {
		if e != nil && c.core.ChecksOwners(e.Type) {
			keys = append(keys, e.Key)
		}
	}
	if bad != nil {
		for _, it := range bad.Items {
			if c.core.ChecksOwners(it.Key.Type) {
				keys = append(keys, it.Key)
			}
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
		if e != nil && hidden[e.Key] {
			entities[i] = nil
		}
	}
	if bad != nil {
		bad.Items = slices.DeleteFunc(bad.Items, func(it UnreadableItem) bool { return hidden[it.Key] })
	}
	return nil
}

// keepOwnerVisible removes the entities an owner hides from page, and from bad, the
// items of the page it could not read, as dropOwnerHidden. It returns the page,
// with bad when bad still names an item.
func (c *Client) keepOwnerVisible(ctx context.Context, page *Page[*Entity], bad *UnreadableError, consistent bool) (*Page[*Entity], error) {
	if err := c.dropOwnerHidden(ctx, page.Items, bad, consistent); err != nil {
		return nil, err
	}
	return presentPage(page.Items, page.Cursor), unreadableOrNil(bad)
}
