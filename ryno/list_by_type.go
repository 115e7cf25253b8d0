package ryno

import (
	"context"
	"iter"
)

// ListByType returns one page of the entities of type t, ordered by the
// time they were last written (oldest first, or newest first with Descending), read
// from the entities-by-type index, which DynamoDB keeps eventually consistent. An
// item of the page that cannot be read does not fail the others: the page comes
// with an *UnreadableError naming it. It sends one Query per page (one round), or
// for a ShardedType one per shard, in parallel, merged by update time (still one
// round); entities whose reads check their owners (Owns.ObjectType) add rounds as
// in Get.
//
// The index orders the items by their _updated as stored. One that another program
// wrote in another layout than the store's (2019-01-01T00:00:00Z) reads as that
// time but sorts as its string does, until the entity's next write stores it in
// the store's.
func (c *Client) ListByType(ctx context.Context, t Type, p PageOptions) (_ *Page[*Entity], err error) {
	ctx, call, err := c.begin(ctx, "ListByType")
	defer call.end(&err)
	if err != nil {
		return nil, err
	}
	if err := p.Projection.validate("PageOptions.Projection"); err != nil {
		return nil, err
	}
	q, err := c.core.ByTypePage(t.Scope, t.Name)
	if err != nil {
		return nil, err
	}
	items, cursor, err := c.queryPage(ctx, q, p, p.Projection.names(false, c.sharded()))
	if err != nil {
		return nil, wrap(err, "list %s", t)
	}
	page, bad, err := decodePage(items, cursor, c.core.Visible, decodeListed) // one being deleted or expired is gone for readers
	if err != nil {
		return nil, err
	}
	p.Projection.applyAll(page.Items)
	return c.keepOwnerVisible(ctx, page, bad, c.opts.ConsistentRead)
}

// AllByType iterates over every entity of type t, in the order of
// ListByType, starting from p.Cursor and fetching p.Limit entities per request. It
// sends what ListByType sends for each page, as the loop reaches it.
func (c *Client) AllByType(ctx context.Context, t Type, p PageOptions) iter.Seq2[*Entity, error] {
	return all(ctx, p, func(ctx context.Context, p PageOptions) (*Page[*Entity], error) {
		return c.ListByType(ctx, t, p)
	})
}
