package store

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/paging"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

// PageQuery is the query of one listing: its key condition, what its cursors may
// hold, and the identity that binds a cursor to it.
type PageQuery struct {
	In       *dynamodb.QueryInput // key condition and names; no Limit or ExclusiveStartKey
	Position paging.Position      // what a cursor of the query may hold
	// Identity names the query (table or index, partition, condition): a cursor
	// issued for another fails to decode.
	Identity string
	// Local says the index In reads is a local secondary index, which strongly
	// consistent reads may read.
	Local bool
	// Shards, when not empty, are the queries of the listing's shards, whose items
	// a page gathers in the order of the string attribute SortKey, the first of
	// its names an item has (In and Position are then those of the first shard).
	Shards  []PageQuery
	SortKey []string
	// Distinct, when set, names the key attributes by which a gathered page
	// returns each item once, when the shards overlap.
	Distinct []string
}

// Global reports whether the query reads a global secondary index, which
// DynamoDB keeps eventually consistent.
func (q PageQuery) Global() bool { return q.In.IndexName != nil && !q.Local }

// PageRequest is which page of a listing a call asks for.
type PageRequest struct {
	Limit      int // at least 1
	Cursor     string
	Descending bool
	Consistent bool   // strongly consistent, whatever Config.ConsistentRead says
	Seal       []byte // the key cursors are sealed with; nil: not sealed
	// Projection names the attributes the page returns of each item, with the
	// query's key attributes, which its cursor holds; nil: every attribute.
	Projection []string
}

// maxQueryLimit is the largest Limit a Query takes.
const maxQueryLimit = 1<<31 - 1

// QueryPage runs one page of q: at most r.Limit items, from r.Cursor on, and the
// cursor of the next page ("" when there is none). It asks DynamoDB for one item
// more than the limit, so that a page that ends the listing returns no cursor. A
// query of shards gathers its page from theirs (see queryGathered).
func (c *Core) QueryPage(ctx context.Context, q PageQuery, r PageRequest) ([]map[string]types.AttributeValue, string, error) {
	if r.Consistent && q.Global() {
		return nil, "", Invalid("PageOptions.Consistent", "", "this listing reads a global secondary index, which DynamoDB keeps eventually consistent")
	}
	cursors := paging.Codec{Identity: q.Identity, Descending: r.Descending, Seal: r.Seal}
	if len(q.Shards) > 0 {
		return c.queryGathered(ctx, q, r, cursors)
	}
	start, err := cursors.Decode(r.Cursor, q.Position)
	if err != nil {
		return nil, "", err
	}
	items, next, err := c.queryFrom(ctx, q, r, start)
	if err != nil {
		return nil, "", err
	}
	if len(items) > r.Limit {
		items = items[:r.Limit]
		next = batching.Project(items[r.Limit-1], q.Position.Names())
	}
	if len(next) == 0 {
		return items, "", nil
	}
	cursor, err := cursors.Encode(next)
	return items, cursor, err
}

// queryFrom runs one Query of q from start for r, asking for one item more than
// r.Limit, and returns its items and its LastEvaluatedKey.
func (c *Core) queryFrom(ctx context.Context, q PageQuery, r PageRequest, start map[string]types.AttributeValue) ([]map[string]types.AttributeValue, map[string]types.AttributeValue, error) {
	in := *q.In
	if r.Consistent || (c.ConsistentRead && !q.Global()) {
		in.ConsistentRead = aws.Bool(true)
	} else {
		in.ConsistentRead = nil
	}
	in.Limit = aws.Int32(int32(min(r.Limit, maxQueryLimit-1) + 1)) // one more tells whether any follows
	in.ExclusiveStartKey = start
	in.ScanIndexForward = aws.Bool(!r.Descending)
	if r.Projection != nil {
		in.ExpressionAttributeNames = maps.Clone(in.ExpressionAttributeNames)
		names := slices.Concat(r.Projection, q.Position.Names())
		slices.Sort(names)
		KeysOnly(&in, slices.Compact(names)...) // a name twice is refused
	}
	out, err := c.API.Query(ctx, &in)
	if err != nil {
		return nil, nil, err
	}
	return out.Items, out.LastEvaluatedKey, nil
}

// OutgoingPage is the query of subject's relationships under predicate (every
// predicate when ""), in list order; an ordered set's in the order of its
// positions, through the by-object local index.
func (c *Core) OutgoingPage(subject Key, predicate string) (PageQuery, error) {
	if err := schema.ValidateEntityKey(subject.Scope, subject.Type, subject.ID); err != nil {
		return PageQuery{}, err
	}
	if predicate != "" {
		if err := relationships.ValidatePredicate(predicate); err != nil {
			return PageQuery{}, err
		}
	}
	if c.Ordered[predicate] {
		return c.orderedPage(subject, predicate), nil
	}
	return PageQuery{
		In:       c.OutgoingQuery(subject, predicate),
		Position: outgoingPosition(subject, predicate, c.Sets),
		Identity: c.Names.Relationships + "\x00" + subject.String() + "\x00" + schema.Escape(predicate),
	}, nil
}

// orderedPage is the query of an ordered set's entries in the order of their
// positions.
func (c *Core) orderedPage(subject Key, predicate string) PageQuery {
	in := KeyCondition(c.Names.Relationships, c.Names.RelationshipsByObject, schema.AttrSubjectKey, subject.String())
	in = WithSortPrefix(in, schema.AttrPredicateObjectKey, schema.OrderedSetPrefix(predicate))
	return PageQuery{
		In:    in,
		Local: true,
		Position: paging.Position{Attrs: []paging.Attr{
			{Name: schema.AttrSubjectKey, Fixed: subject.String()},
			{Name: schema.AttrPredicateKey, Max: schema.MaxSortKeyBytes},
			{Name: schema.AttrPredicateObjectKey, Max: schema.MaxSortKeyBytes, Valid: func(k string) bool {
				_, err := schema.ParseOrderedSetKey(predicate, k)
				return err == nil
			}},
		}},
		Identity: c.Names.RelationshipsByObject + "\x00" + subject.String() + "\x00" + schema.Escape(predicate),
	}
}

// IncomingPage is the query of the relationships pointing at object, through the
// reverse index: with a predicate, those whose _reverse_key starts with it. For
// an object whose type's incoming entries are sharded, it gathers the shards of
// the sharded reverse index (and, while they move, the reverse index too), in
// _reverse_key order, which is the order of the reverse index.
func (c *Core) IncomingPage(object Key, predicate string) (PageQuery, error) {
	if err := schema.ValidateEntityKey(object.Scope, object.Type, object.ID); err != nil {
		return PageQuery{}, err
	}
	if predicate != "" {
		if err := relationships.ValidatePredicate(predicate); err != nil {
			return PageQuery{}, err
		}
	}
	parts, err := c.incomingParts(object)
	if err != nil {
		return PageQuery{}, err
	}
	for i, part := range parts {
		if predicate != "" {
			part.In = WithSortPrefix(part.In, schema.AttrReverseKey, schema.PredicatePrefix(predicate))
			// A predicate makes another query, with cursors of its own.
			part.Identity += "\x00" + schema.Escape(predicate)
		}
		part.Position = incomingPosition(object, predicate, c.Sets, part.attr, part.key)
		parts[i] = part
	}
	if len(parts) == 1 {
		return parts[0].PageQuery, nil
	}
	q := PageQuery{SortKey: []string{schema.AttrReverseKey}, Distinct: schema.RelationshipKeyAttrs()}
	for _, part := range parts {
		q.Shards = append(q.Shards, part.PageQuery)
	}
	q.In, q.Position = q.Shards[0].In, q.Shards[0].Position
	q.Identity = fmt.Sprintf("%s\x00%d", q.Shards[0].Identity, len(parts))
	return q, nil
}

// IndexPage is the query of cond in the index of scope named index, through the
// lookup index of the index entries table; of each of its shards, gathered, when
// it has more than one. While its entries move from the layout of before shards
// (1: unsharded; 0: none) to that of shards, it gathers the partition keys of
// both, each read once (a shard's key is the same in both layouts), and each
// entry once a page.
func (c *Core) IndexPage(scope, index string, cond indexing.Condition, shards, before int) (PageQuery, error) {
	expr, err := cond.Expression(scope, index)
	if err != nil {
		return PageQuery{}, err
	}
	unsharded, n := TypeShards{Shards: shards, Before: before}.layouts()
	if n == 0 {
		return c.indexShardPage(scope, index, cond, expr, 0, 1), nil
	}
	partition := schema.ShardedScopeIndexName(scope, index, n-1, n) // the longest
	if err := schema.ValidateKeyLength("scope and index name", partition, schema.MaxPartitionKeyBytes); err != nil {
		return PageQuery{}, err
	}
	q := PageQuery{SortKey: []string{schema.AttrIndexKey}}
	if unsharded {
		q.Shards = append(q.Shards, c.indexShardPage(scope, index, cond, expr, 0, 1))
		q.Distinct = schema.IndexEntryKeyAttrs()
	}
	for shard := range n {
		q.Shards = append(q.Shards, c.indexShardPage(scope, index, cond, expr, shard, n))
	}
	q.In, q.Position = q.Shards[0].In, q.Shards[0].Position
	q.Identity = fmt.Sprintf("%s\x00%t\x00%d", q.Shards[0].Identity, unsharded, n)
	return q, nil
}

// indexShardPage is the query of cond, whose key condition is expr, in shard of
// the index of scope named index sharded over shards.
func (c *Core) indexShardPage(scope, index string, cond indexing.Condition, expr indexing.Expression, shard, shards int) PageQuery {
	partition := schema.ShardedScopeIndexName(scope, index, shard, shards)
	if shards > 1 {
		expr = expr.WithPartition(partition)
	}
	return PageQuery{
		In: &dynamodb.QueryInput{
			TableName:                 aws.String(c.Names.IndexEntries),
			IndexName:                 aws.String(c.Names.IndexLookup),
			KeyConditionExpression:    aws.String(expr.KeyCondition),
			ExpressionAttributeNames:  expr.Names,
			ExpressionAttributeValues: expr.Values,
		},
		Position: lookupPosition(scope, index, partition, cond),
		Identity: c.Names.IndexLookup + "\x00" + partition + "\x00" + cond.String(),
	}
}

// InlinePage is the query of cond in the inline index named index of typ, held in
// slot (from 1) of the entities table's inline indexes.
func (c *Core) InlinePage(scope, typ, index string, slot int, cond indexing.Condition) (PageQuery, error) {
	expr, err := cond.Expression(scope, index)
	if err != nil {
		return PageQuery{}, err
	}
	names := make(map[string]string, len(expr.Names))
	for placeholder, name := range expr.Names {
		switch name {
		case schema.AttrScopeIndexName:
			name = schema.AttrInlineName[slot-1]
		case schema.AttrIndexKey:
			name = schema.AttrInlineKey[slot-1]
		}
		names[placeholder] = name
	}
	gsi := c.Names.EntitiesInline[slot-1]
	return PageQuery{
		In: &dynamodb.QueryInput{
			TableName:                 aws.String(c.Names.Entities),
			IndexName:                 aws.String(gsi),
			KeyConditionExpression:    aws.String(expr.KeyCondition),
			ExpressionAttributeNames:  names,
			ExpressionAttributeValues: expr.Values,
		},
		Position: inlinePosition(scope, typ, index, slot, cond),
		Identity: gsi + "\x00" + schema.ScopeIndexName(scope, index) + "\x00" + cond.String(),
	}, nil
}
