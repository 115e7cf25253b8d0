package ryno

import (
	"context"
	"iter"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/numbers"
	"github.com/rynodb/rynodb/internal/schema"
)

// IndexEntry is one entry of an index: the entity it points at, the value its map
// function emitted, and the attributes the index projects.
type IndexEntry struct {
	Key   Key
	Index string
	Value indexing.Value
	// Attributes are the projected attributes, decoded as Entity.Attributes are.
	Attributes map[string]any
}

// QueryIndex returns one page of the entities whose entries in the index in match
// cond, in index order (reversed with Descending). The entities are read
// fresh from the entities table: one Query, then parallel BatchGetItem requests, two
// rounds per page. An entity emitting several matching values appears once per
// value; entries whose entity no longer exists are skipped. An index the client
// does not register fails with a *ValidationError (ErrInvalid) before any request,
// as in QueryIndexEntries, AllInIndex, AllIndexEntries and LookupUnique.
func (c *Client) QueryIndex(ctx context.Context, in ScopedIndex, cond indexing.Condition, p PageOptions) (_ *Page[*Entity], err error) {
	ctx, call, err := c.begin(ctx, "QueryIndex")
	defer call.end(&err)
	if err != nil {
		return nil, err
	}
	entries, err := c.QueryIndexEntries(ctx, in, cond, p)
	if err != nil {
		return nil, err
	}
	keys := make([]Key, len(entries.Items))
	for i, e := range entries.Items {
		keys[i] = e.Key
	}
	return c.entitiesPage(ctx, keys, entries.Cursor, false)
}

// QueryIndexEntries returns one page of the entries of the index in that match cond, in index order, with their projected attributes, without reading the
// entities. One Query request per page, on the lookup index, which DynamoDB keeps
// eventually consistent. An index the client does not register fails with a
// *ValidationError (ErrInvalid) before any request.
func (c *Client) QueryIndexEntries(ctx context.Context, in ScopedIndex, cond indexing.Condition, p PageOptions) (_ *Page[IndexEntry], err error) {
	ctx, call, err := c.begin(ctx, "QueryIndexEntries")
	defer call.end(&err)
	if err != nil {
		return nil, err
	}
	q, err := c.indexQuery(in.Scope, in.Index, cond)
	if err != nil {
		return nil, err
	}
	items, cursor, err := c.queryPage(ctx, q, p)
	if err != nil {
		return nil, wrap(err, "query index %s of %s", in.Index, in.Scope)
	}
	page := &Page[IndexEntry]{Items: make([]IndexEntry, len(items)), Cursor: cursor}
	for i, item := range items {
		if page.Items[i], err = decodeIndexEntry(item); err != nil {
			return nil, err
		}
	}
	return page, nil
}

// indexQuery is the query of QueryIndexEntries. An index the client does not
// register is refused, as LookupUnique refuses it: its entries, if any, are those
// another client maintains, or stale ones.
func (c *Client) indexQuery(scope, index string, cond indexing.Condition) (pageQuery, error) {
	if _, ok := c.indexes.byName(index); !ok {
		return pageQuery{}, errUnregistered(index)
	}
	expr, err := cond.Expression(scope, index)
	if err != nil {
		return pageQuery{}, err
	}
	return pageQuery{
		in: &dynamodb.QueryInput{
			TableName:                 aws.String(c.names.IndexEntries),
			IndexName:                 aws.String(c.names.IndexLookup),
			KeyConditionExpression:    aws.String(expr.KeyCondition),
			ExpressionAttributeNames:  expr.Names,
			ExpressionAttributeValues: expr.Values,
		},
		position: lookupPosition(scope, index, cond),
		identity: c.names.IndexLookup + "\x00" + schema.ScopeIndexName(scope, index) + "\x00" + cond.String(),
	}, nil
}

// AllIndexEntries iterates over every entry QueryIndexEntries would page through.
func (c *Client) AllIndexEntries(ctx context.Context, in ScopedIndex, cond indexing.Condition, p PageOptions) iter.Seq2[IndexEntry, error] {
	return all(ctx, p, func(ctx context.Context, p PageOptions) (*Page[IndexEntry], error) {
		return c.QueryIndexEntries(ctx, in, cond, p)
	})
}

// AllInIndex iterates over every entity QueryIndex would page through.
func (c *Client) AllInIndex(ctx context.Context, in ScopedIndex, cond indexing.Condition, p PageOptions) iter.Seq2[*Entity, error] {
	return all(ctx, p, func(ctx context.Context, p PageOptions) (*Page[*Entity], error) {
		return c.QueryIndex(ctx, in, cond, p)
	})
}

func decodeIndexEntry(item map[string]types.AttributeValue) (IndexEntry, error) {
	e, err := indexentries.FromItem(item)
	if err != nil {
		return IndexEntry{}, wrap(err, "decode index entry")
	}
	attrs := make(map[string]any, len(e.Attributes))
	if err := decoder.Decode(mapValue(e.Attributes), &attrs); err != nil {
		return IndexEntry{}, wrap(err, "decode index entry")
	}
	numbers.JSON(attrs)
	return IndexEntry{
		Key:        Key{Scope: e.Scope, Type: e.Type, ID: e.ID},
		Index:      e.IndexName,
		Value:      e.Value,
		Attributes: attrs,
	}, nil
}
