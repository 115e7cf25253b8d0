package ryno

import (
	"context"
	"errors"
	"iter"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/store"
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
	// Projection makes a listing of entities (ListByType, RelatedEntities,
	// ReverseRelatedEntities, QueryIndex and their iterators) return only what it
	// names of each, marked partial: see Projection. The listings of relationships
	// and index entries refuse it.
	Projection Projection
}

// Page is one page of a listing. Cursor is empty when no items follow; otherwise
// pass it in PageOptions.Cursor for the next page.
type Page[T any] struct {
	Items  []T
	Cursor string
	// ListVersion is the version of the list a page of Relationships or
	// RelatedEntities holds whole: the first page of one predicate of a list (not
	// a set, not AllPredicates) with no Cursor after it. It is computed from the
	// entries the page read, with no request, so it describes exactly what was
	// read, consistently or not; IfListVersion makes a write require it. Empty
	// for every other page: to version a list longer than a page, give a Limit
	// above its length (a page also ends at 1 MB of entries, about 2,500).
	ListVersion string
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

// entries is p for the listing of the entries under a listing of entities: the
// entities alone are read in part.
func (p PageOptions) entries() PageOptions {
	p.Projection = Projection{}
	return p
}

// errNoEntities is the refusal of a Projection by a listing that reads no
// entities.
func errNoEntities(call string) error {
	return invalid("PageOptions.Projection", "", call+" reads no entities")
}

// queryPage runs the page of q that p asks for: its items, and the cursor of the
// next page ("" when no item follows).
func (c *Client) queryPage(ctx context.Context, q store.PageQuery, p PageOptions, projection []string) ([]map[string]types.AttributeValue, string, error) {
	limit, err := p.limit()
	if err != nil {
		return nil, "", err
	}
	return c.core.QueryPage(ctx, q, store.PageRequest{Limit: limit, Cursor: p.Cursor, Descending: p.Descending, Consistent: p.Consistent,
		Seal: c.opts.CursorKey, Projection: projection})
}

// all iterates over every item of a listing, fetching pages as it goes. A page with
// items it could not read yields the others, then its *UnreadableError, and goes on
// to the next page if the loop continues. It stops at any other error, which it
// yields.
func all[T any](ctx context.Context, p PageOptions, page func(context.Context, PageOptions) (*Page[T], error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		p := p // each range starts at p.Cursor
		var zero T
		for {
			pg, err := page(ctx, p)
			var bad *UnreadableError
			if err != nil && (pg == nil || !errors.As(err, &bad)) {
				yield(zero, err)
				return
			}
			for _, it := range pg.Items {
				if !yield(it, nil) {
					return
				}
			}
			if err != nil && !yield(zero, err) {
				return
			}
			if pg.Cursor == "" {
				return
			}
			p.Cursor = pg.Cursor
		}
	}
}
