package ryno

import (
	"context"
	"iter"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/paging"
)

// defaultPageLimit is the page size when PageOptions.Limit is zero.
const defaultPageLimit = 100

// PageOptions selects one page of a listing.
type PageOptions struct {
	// Limit is the most items a page holds; default 100. A page can
	// hold fewer when DynamoDB's 1 MB response limit ends it early; its Cursor then
	// continues the listing.
	Limit int
	// Cursor continues a listing from the page that returned it; empty for the first
	// page. A cursor is only valid for the query and direction that issued it, as
	// issued: any other, altered or malformed cursor fails with ErrInvalidCursor
	// before a request is sent. Options.CursorKey seals cursors, so that clients can
	// neither read nor forge them.
	Cursor string
	// Descending reverses the order of the listing.
	Descending bool
	// Consistent reads strongly consistently, as Get with Consistent() does: a page
	// sees every write that returned before the call. Only the listings of a table
	// support it (Relationships, RelatedEntities, which also reads its entities so);
	// the others read a global secondary index, which DynamoDB keeps eventually
	// consistent, and refuse it with ErrInvalid. Options.ConsistentRead makes it the
	// default where it is supported.
	Consistent bool
}

// Page is one page of a listing. Cursor is empty when no items follow; otherwise
// pass it in PageOptions.Cursor for the next page.
type Page[T any] struct {
	Items  []T
	Cursor string
}

func (p PageOptions) limit() (int, error) {
	switch {
	case p.Limit < 0:
		return 0, invalid("PageOptions.Limit", strconv.Itoa(p.Limit), "must not be negative")
	case p.Limit == 0:
		return defaultPageLimit, nil
	}
	return p.Limit, nil
}

// pageQuery is a Query whose results are paged with cursors.
type pageQuery struct {
	in *dynamodb.QueryInput // key condition and names; no Limit or ExclusiveStartKey
	// position describes the keys of the items the query returns: the attributes
	// that locate an item (the table's key plus, for an index, the index's key) and
	// what the query requires of them. A cursor holding any other key is refused.
	position paging.Position
	// identity names the query; a cursor is bound to it and refused by others.
	identity string
	// local says the index the query reads is a local one, which reads
	// consistently when asked, as a table does.
	local bool
}

// global reports whether q reads a global secondary index, which DynamoDB keeps
// eventually consistent.
func (q pageQuery) global() bool { return q.in.IndexName != nil && !q.local }

// begin checks the page options of q, with seal the client's Options.CursorKey: the
// page's limit, the cursors of its query and direction, and the position to start
// after (nil for the first page).
func (q pageQuery) begin(p PageOptions, seal []byte) (limit int, cursors paging.Codec, start map[string]types.AttributeValue, err error) {
	if limit, err = p.limit(); err != nil {
		return 0, paging.Codec{}, nil, err
	}
	if p.Consistent && q.global() {
		return 0, paging.Codec{}, nil, invalid("PageOptions.Consistent", "", "this listing reads a global secondary index, which DynamoDB keeps eventually consistent")
	}
	cursors = paging.Codec{Identity: q.identity, Descending: p.Descending, Seal: seal}
	start, err = cursors.Decode(p.Cursor, q.position)
	return limit, cursors, start, err
}

// queryPage runs one page of q. It asks for one item more than the page holds, so an
// empty Cursor means that no item follows.
func (c *Client) queryPage(ctx context.Context, q pageQuery, p PageOptions) ([]map[string]types.AttributeValue, string, error) {
	limit, cursors, start, err := q.begin(p, c.opts.CursorKey)
	if err != nil {
		return nil, "", err
	}
	in := *q.in
	in.ConsistentRead = c.consistentPage(q, p)
	in.Limit = aws.Int32(int32(min(limit+1, maxQueryLimit)))
	in.ExclusiveStartKey = start
	in.ScanIndexForward = aws.Bool(!p.Descending)
	out, err := c.core.API.Query(ctx, &in)
	if err != nil {
		return nil, "", err
	}
	items, next := out.Items, out.LastEvaluatedKey
	if len(items) > limit {
		items = items[:limit]
		next = batching.Project(items[limit-1], q.position.Names())
	}
	if len(next) == 0 {
		return items, "", nil
	}
	cursor, err := cursors.Encode(next)
	return items, cursor, err
}

// consistentPage returns the ConsistentRead of a page of q: asked for, or the
// client's default on a table. nil leaves DynamoDB's default, eventually consistent.
func (c *Client) consistentPage(q pageQuery, p PageOptions) *bool {
	if p.Consistent || (c.opts.ConsistentRead && !q.global()) {
		return aws.Bool(true)
	}
	return nil
}

// maxQueryLimit keeps Limit+1 within int32.
const maxQueryLimit = 1<<31 - 1

// all iterates over every item of a listing, fetching pages as it goes. It stops at
// the first error, which it yields.
func all[T any](ctx context.Context, p PageOptions, page func(context.Context, PageOptions) (*Page[T], error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for {
			pg, err := page(ctx, p)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range pg.Items {
				if !yield(it, nil) {
					return
				}
			}
			if pg.Cursor == "" {
				return
			}
			p.Cursor = pg.Cursor
		}
	}
}
