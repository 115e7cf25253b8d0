package ryno

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"iter"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DefaultPageLimit is the page size when PageOptions.Limit is zero.
const DefaultPageLimit = 100

// PageOptions selects one page of a listing.
type PageOptions struct {
	// Limit is the most items a page holds; default DefaultPageLimit. A page can
	// hold fewer when DynamoDB's 1 MB response limit ends it early; its Cursor then
	// continues the listing.
	Limit int
	// Cursor continues a listing from the page that returned it; empty for the first
	// page. A cursor is only valid for the query (and direction) that issued it.
	Cursor string
	// Descending reverses the order of the listing.
	Descending bool
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
		return DefaultPageLimit, nil
	}
	return p.Limit, nil
}

// pageQuery is a Query whose results are paged with cursors.
type pageQuery struct {
	in *dynamodb.QueryInput // key condition and names; no Limit or ExclusiveStartKey
	// positionNames are the attributes that locate an item in the query: the table's
	// key plus, for an index, the index's key.
	positionNames []string
	// identity names the query; a cursor carries its hash and is refused by others.
	identity string
}

// queryPage runs one page of q. It asks for one item more than the page holds, so an
// empty Cursor means that no item follows.
func (c *Client) queryPage(ctx context.Context, q pageQuery, p PageOptions) ([]map[string]types.AttributeValue, string, error) {
	limit, err := p.limit()
	if err != nil {
		return nil, "", err
	}
	binding := cursorBinding(q.identity, p.Descending)
	start, err := decodeCursor(p.Cursor, binding, q.positionNames)
	if err != nil {
		return nil, "", err
	}
	in := *q.in
	in.Limit = aws.Int32(int32(min(limit+1, maxQueryLimit)))
	in.ExclusiveStartKey = start
	in.ScanIndexForward = aws.Bool(!p.Descending)
	out, err := c.api.Query(ctx, &in)
	if err != nil {
		return nil, "", err
	}
	items, next := out.Items, out.LastEvaluatedKey
	if len(items) > limit {
		items = items[:limit]
		next = project(items[limit-1], q.positionNames)
	}
	if len(next) == 0 {
		return items, "", nil
	}
	cursor, err := encodeCursor(binding, next)
	return items, cursor, err
}

// maxQueryLimit keeps Limit+1 within int32.
const maxQueryLimit = 1<<31 - 1

// cursor is the decoded form of a cursor string: the hash of the query it belongs
// to and the position (DynamoDB's exclusive start key) to continue from.
type cursor struct {
	Query string                 `json:"q"`
	Key   map[string]cursorValue `json:"k"`
}

// cursorValue is one key attribute: S or N.
type cursorValue struct {
	S *string `json:"s,omitempty"`
	N *string `json:"n,omitempty"`
}

func cursorBinding(identity string, descending bool) string {
	h := fnv.New64a()
	h.Write([]byte(identity))
	if descending {
		h.Write([]byte{0, 'd'})
	}
	return strconv.FormatUint(h.Sum64(), 36)
}

func encodeCursor(binding string, key map[string]types.AttributeValue) (string, error) {
	cur := cursor{Query: binding, Key: make(map[string]cursorValue, len(key))}
	for name, v := range key {
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			cur.Key[name] = cursorValue{S: &v.Value}
		case *types.AttributeValueMemberN:
			cur.Key[name] = cursorValue{N: &v.Value}
		default:
			return "", fmt.Errorf("ryno: cannot page past key attribute %s of type %T", name, v)
		}
	}
	b, err := json.Marshal(cur)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// decodeCursor returns the exclusive start key of s, or nil for the empty cursor.
func decodeCursor(s, binding string, positionNames []string) (map[string]types.AttributeValue, error) {
	if s == "" {
		return nil, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%w: not a cursor", ErrInvalidCursor)
	}
	var cur cursor
	if err := json.Unmarshal(b, &cur); err != nil {
		return nil, fmt.Errorf("%w: not a cursor", ErrInvalidCursor)
	}
	if cur.Query != binding {
		return nil, fmt.Errorf("%w: issued for a different query", ErrInvalidCursor)
	}
	if len(cur.Key) != len(positionNames) {
		return nil, fmt.Errorf("%w: wrong key attributes", ErrInvalidCursor)
	}
	key := make(map[string]types.AttributeValue, len(cur.Key))
	for _, name := range positionNames {
		v, ok := cur.Key[name]
		switch {
		case !ok:
			return nil, fmt.Errorf("%w: missing key attribute %s", ErrInvalidCursor, name)
		case v.S != nil && v.N == nil:
			key[name] = &types.AttributeValueMemberS{Value: *v.S}
		case v.N != nil && v.S == nil:
			key[name] = &types.AttributeValueMemberN{Value: *v.N}
		default:
			return nil, fmt.Errorf("%w: malformed key attribute %s", ErrInvalidCursor, name)
		}
	}
	return key, nil
}

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
