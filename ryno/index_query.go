package ryno

import (
	"context"
	"errors"
	"iter"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/indexes"
	"github.com/rynodb/rynodb/internal/numbers"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
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
// cond, in index order (reversed with Descending). The entities are read fresh from
// the entities table. An entity emitting several matching values appears once per
// value; entries whose entity no longer exists, or whose entity as read records no
// value of the index that cond selects (a stale entry), are skipped. An entity that
// cannot be read does not fail the page: it comes with an *UnreadableError naming
// it. An index the client does not register fails with a *ValidationError
// (ErrInvalid) before any request, as in QueryIndexEntries, AllInIndex,
// AllIndexEntries and LookupUnique.
//
// It sends one Query of the lookup index, then ceil(n/100) BatchGetItem in parallel
// for the page's n entities: 2 rounds per page. An inline index's GSI holds the
// entities themselves, so without Options.ConsistentRead it sends one Query per page
// (one round). See docs/indexes.md.
func (c *Client) QueryIndex(ctx context.Context, in ScopedIndex, cond indexing.Condition, p PageOptions) (_ *Page[*Entity], err error) {
	ctx, call, err := c.begin(ctx, "QueryIndex")
	defer call.end(&err)
	if err != nil {
		return nil, err
	}
	if err := p.Projection.validate("PageOptions.Projection"); err != nil {
		return nil, err
	}
	if ix, ok := c.indexes.ByName(in.Index); ok && ix.Inline > 0 && !c.opts.ConsistentRead {
		return c.queryInline(ctx, in, cond, p)
	}
	entries, err := c.QueryIndexEntries(ctx, in, cond, p.entries())
	if err != nil {
		return nil, err
	}
	keys := make([]Key, len(entries.Items))
	for i, e := range entries.Items {
		keys[i] = e.Key
	}
	r := entityRead{consistent: c.opts.ConsistentRead, projection: p.Projection, records: true, sharded: c.sharded()}
	items, err := c.readVisible(ctx, keys, r)
	if err != nil {
		return nil, err
	}
	if ix, _ := c.indexes.ByName(in.Index); ix.Inline == 0 { // the record names the values of entry indexes only
		for i, item := range items {
			if selects, known := store.RecordSelects(item, in.Index, cond.Match); known && !selects {
				items[i] = nil // a stale entry: the entity as read no longer holds a value cond selects
			}
		}
	}
	entities, bad, err := c.decodeVisible(ctx, keys, items, r)
	if err != nil {
		return nil, err
	}
	return presentPage(entities, entries.Cursor), unreadableOrNil(bad)
}

// QueryIndexEntries returns one page of the entries of the index in that match
// cond, in index order, with their projected attributes, without reading the
// entities. It reads the lookup index (an inline index's GSI for an inline index),
// which DynamoDB keeps eventually consistent. An index the client does not register
// fails with a *ValidationError (ErrInvalid) before any request. It sends one Query
// per page (one round).
func (c *Client) QueryIndexEntries(ctx context.Context, in ScopedIndex, cond indexing.Condition, p PageOptions) (_ *Page[IndexEntry], err error) {
	ctx, call, err := c.begin(ctx, "QueryIndexEntries")
	defer call.end(&err)
	if err != nil {
		return nil, err
	}
	ix, _ := c.indexes.ByName(in.Index)
	keep := func(item map[string]types.AttributeValue) bool {
		return ix.Inline == 0 || !c.core.Hidden(item) // an entity being deleted or expired leaves its inline entries
	}
	if !p.Projection.whole() {
		return nil, errNoEntities("QueryIndexEntries") // its attributes are those of Index.Project
	}
	page, bad, err := indexPage(ctx, c, in, cond, p, keep, func(item map[string]types.AttributeValue) (IndexEntry, error) {
		return decodeIndexEntry(item, ix)
	})
	if err != nil {
		return nil, err
	}
	return page, unreadableOrNil(bad)
}

// queryInline is QueryIndex of an inline index: its GSI holds the entity items
// themselves, so one Query reads the page.
func (c *Client) queryInline(ctx context.Context, in ScopedIndex, cond indexing.Condition, p PageOptions) (*Page[*Entity], error) {
	page, bad, err := indexPage(ctx, c, in, cond, p, c.core.Visible, decodeListed)
	if err != nil {
		return nil, err
	}
	p.Projection.applyAll(page.Items)
	return c.keepOwnerVisible(ctx, page, bad, false)
}

// indexPage reads one page of the items of the index in that match cond, and
// decodes those keep keeps, as decodePage.
func indexPage[T any](ctx context.Context, c *Client, in ScopedIndex, cond indexing.Condition, p PageOptions,
	keep func(map[string]types.AttributeValue) bool, decode func(map[string]types.AttributeValue) (T, error)) (*Page[T], *UnreadableError, error) {
	q, err := c.indexQuery(in.Scope, in.Index, cond)
	if err != nil {
		return nil, nil, err
	}
	items, cursor, err := c.queryPage(ctx, q, p, p.Projection.names(false, c.sharded()))
	if err != nil {
		return nil, nil, wrap(err, "query index %s of %s", in.Index, in.Scope)
	}
	return decodePage(items, cursor, keep, decode)
}

// decodePage decodes the items of a page that keep keeps. Those decode reports
// with an *UnreadableError are left out of the page, and bad names them; any other
// error fails the page.
func decodePage[T any](items []map[string]types.AttributeValue, cursor string,
	keep func(map[string]types.AttributeValue) bool, decode func(map[string]types.AttributeValue) (T, error)) (_ *Page[T], bad *UnreadableError, _ error) {
	page := &Page[T]{Items: make([]T, 0, len(items)), Cursor: cursor}
	bad = &UnreadableError{}
	for _, item := range items {
		if !keep(item) {
			continue
		}
		v, err := decode(item)
		var u *UnreadableError
		switch {
		case errors.As(err, &u):
			bad.Items = append(bad.Items, u.Items...)
			continue
		case err != nil:
			return nil, nil, err
		}
		page.Items = append(page.Items, v)
	}
	return page, bad, nil
}

// decodeListed decodes an entity item a listing returned, naming it by its stored
// key when it cannot.
func decodeListed(item map[string]types.AttributeValue) (*Entity, error) {
	return decodeStored(storedKey(item), item)
}

// indexQuery is the query of QueryIndexEntries: through the lookup index, or the
// inline index of the entities table that holds it. An index the client does not
// register is refused, as LookupUnique refuses it: its entries, if any, are those
// another client maintains, or stale ones.
func (c *Client) indexQuery(scope, index string, cond indexing.Condition) (store.PageQuery, error) {
	ix, ok := c.indexes.ByName(index)
	switch {
	case !ok:
		return store.PageQuery{}, errUnregistered(index)
	case ix.Inline > 0:
		return c.core.InlinePage(scope, ix.Type, ix.Name, ix.Inline, cond)
	}
	return c.core.IndexPage(scope, index, cond, ix.Shards, ix.Resharding)
}

// AllIndexEntries iterates over every entry QueryIndexEntries would page through. It
// sends one Query per page, as the loop reaches it.
func (c *Client) AllIndexEntries(ctx context.Context, in ScopedIndex, cond indexing.Condition, p PageOptions) iter.Seq2[IndexEntry, error] {
	return all(ctx, p, func(ctx context.Context, p PageOptions) (*Page[IndexEntry], error) {
		return c.QueryIndexEntries(ctx, in, cond, p)
	})
}

// AllInIndex iterates over every entity QueryIndex would page through. It sends what
// QueryIndex sends for each page, as the loop reaches it.
func (c *Client) AllInIndex(ctx context.Context, in ScopedIndex, cond indexing.Condition, p PageOptions) iter.Seq2[*Entity, error] {
	return all(ctx, p, func(ctx context.Context, p PageOptions) (*Page[*Entity], error) {
		return c.QueryIndex(ctx, in, cond, p)
	})
}

// decodeIndexEntry decodes an entry of ix: an item of the index entries table, or
// an entity item for an inline index.
func decodeIndexEntry(item map[string]types.AttributeValue, ix indexes.Def[Entity]) (IndexEntry, error) {
	if ix.Inline > 0 {
		return decodeInlineEntry(item, ix)
	}
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

// decodeInlineEntry decodes the entry of the inline index ix that the entity item
// holds, with the attributes ix projects.
func decodeInlineEntry(item map[string]types.AttributeValue, ix indexes.Def[Entity]) (IndexEntry, error) {
	e, err := decodeListed(item)
	if err != nil {
		return IndexEntry{}, err
	}
	name := schema.AttrInlineKey[ix.Inline-1]
	encoded, err := stringValue(name, item[name])
	if err != nil {
		return IndexEntry{}, wrap(err, "entity %s in inline index %s", e.Key, ix.Name)
	}
	v, err := indexing.ParseValue(encoded)
	if err != nil {
		return IndexEntry{}, wrap(err, "entity %s in inline index %s", e.Key, ix.Name)
	}
	attrs := make(map[string]any, len(ix.Project))
	for _, name := range ix.Project {
		if a, ok := e.Attributes[name]; ok && a != nil {
			attrs[name] = a
		}
	}
	return IndexEntry{Key: e.Key, Index: ix.Name, Value: v, Attributes: attrs}, nil
}
