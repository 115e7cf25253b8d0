package store

import (
	"context"
	"maps"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

// QueryPages runs in page after page, handing each page's items to fn, until no page
// follows or fn fails. Only one page is held at a time.
func (c *Core) QueryPages(ctx context.Context, in *dynamodb.QueryInput, fn func([]map[string]types.AttributeValue) error) error {
	return eachPage(func(start map[string]types.AttributeValue) ([]map[string]types.AttributeValue, map[string]types.AttributeValue, error) {
		page := *in
		page.ExclusiveStartKey = start
		out, err := c.API.Query(ctx, &page)
		if err != nil {
			return nil, nil, err
		}
		return out.Items, out.LastEvaluatedKey, nil
	}, fn)
}

// ScanPages runs in page after page, handing each page's items to fn, until no page
// follows or fn fails.
func (c *Core) ScanPages(ctx context.Context, in *dynamodb.ScanInput, fn func([]map[string]types.AttributeValue) error) error {
	return eachPage(func(start map[string]types.AttributeValue) ([]map[string]types.AttributeValue, map[string]types.AttributeValue, error) {
		page := *in
		page.ExclusiveStartKey = start
		out, err := c.API.Scan(ctx, &page)
		if err != nil {
			return nil, nil, err
		}
		return out.Items, out.LastEvaluatedKey, nil
	}, fn)

}

// eachPage fetches page after page, from the start of a listing and then from the
// last key of the page before, handing each page's items to fn, until no page follows
// or fetch or fn fails.
func eachPage(
	fetch func(start map[string]types.AttributeValue) (items []map[string]types.AttributeValue, last map[string]types.AttributeValue, err error),
	fn func([]map[string]types.AttributeValue) error,
) error {
	var start map[string]types.AttributeValue
	for {
		items, last, err := fetch(start)
		if err != nil {
			return err
		}
		if err := fn(items); err != nil {
			return err
		}
		if len(last) == 0 {
			return nil
		}
		start = last
	}
}

// QueryAll returns the items of every page of in.
func (c *Core) QueryAll(ctx context.Context, in *dynamodb.QueryInput) ([]map[string]types.AttributeValue, error) {
	var items []map[string]types.AttributeValue
	err := c.QueryPages(ctx, in, func(page []map[string]types.AttributeValue) error {
		items = append(items, page...)
		return nil
	})
	return items, err
}

// KeyCondition returns a Query of table (and index, if not empty) for the items whose
// partition key attribute pk equals value.
func KeyCondition(table, index, pk, value string) *dynamodb.QueryInput {
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": pk},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": AttrS(value)},
	}
	if index != "" {
		in.IndexName = aws.String(index)
	}
	return in
}

// WithSortPrefix narrows in to the items whose sort key attribute sk begins with prefix.
func WithSortPrefix(in *dynamodb.QueryInput, sk, prefix string) *dynamodb.QueryInput {
	in.KeyConditionExpression = aws.String("#pk = :pk AND begins_with(#sk, :sk)")
	in.ExpressionAttributeNames["#sk"] = sk
	in.ExpressionAttributeValues[":sk"] = AttrS(prefix)
	return in
}

// KeysOnly makes in return only the named attributes.
func KeysOnly(in *dynamodb.QueryInput, names ...string) *dynamodb.QueryInput {
	expr, attrs := batching.Projection(names)
	in.ProjectionExpression = expr
	maps.Copy(in.ExpressionAttributeNames, attrs)
	return in
}

// OutgoingQuery selects the relationship entries of subject: all of them, or those of
// one predicate. Either way the key condition leaves out the lists' heads and
// markers, which sort before every entry.
func (c *Core) OutgoingQuery(subject Key, predicate string) *dynamodb.QueryInput {
	in := KeyCondition(c.Names.Relationships, "", schema.AttrSubjectKey, subject.String())
	in.ConsistentRead = aws.Bool(c.ConsistentRead)
	if predicate != "" {
		return WithSortPrefix(in, schema.AttrPredicateKey, schema.PredicatePrefix(predicate))
	}
	in.KeyConditionExpression = aws.String("#pk = :pk AND #sk > :sk")
	in.ExpressionAttributeNames["#sk"] = schema.AttrPredicateKey
	in.ExpressionAttributeValues[":sk"] = AttrS(schema.EntriesStart)
	return in
}

// IncomingQueries select the relationship entries pointing at object: through the
// reverse index, or the shards of the sharded reverse index for an object whose
// type's incoming entries are sharded, and both while they move.
func (c *Core) IncomingQueries(object Key) ([]*dynamodb.QueryInput, error) {
	parts, err := c.incomingParts(object)
	if err != nil {
		return nil, err
	}
	ins := make([]*dynamodb.QueryInput, len(parts))
	for i, part := range parts {
		ins[i] = part.In
	}
	return ins, nil
}

// incomingPart is one partition key of the entries pointing at an object.
type incomingPart struct {
	PageQuery
	attr, key string // the partition key: _object_key or _object_shard, and its value
}

// incomingParts returns the queries of the partition keys holding the entries
// pointing at object, as IncomingQueries says, with no Position yet.
func (c *Core) incomingParts(object Key) ([]incomingPart, error) {
	unsharded, shards := c.IncomingShards[object.Type].layouts()
	var parts []incomingPart
	if unsharded {
		parts = append(parts, incomingPart{PageQuery{
			In:       KeyCondition(c.Names.Relationships, c.Names.ReverseRelationships, schema.AttrObjectKey, object.String()),
			Identity: c.Names.ReverseRelationships + "\x00" + object.String(),
		}, schema.AttrObjectKey, object.String()})
	}
	if shards > 0 {
		if err := schema.ValidateKeyLength("object key", schema.ShardedObjectKey(object.String(), shards-1), schema.MaxPartitionKeyBytes); err != nil {
			return nil, err
		}
	}
	for shard := range shards {
		key := schema.ShardedObjectKey(object.String(), shard)
		parts = append(parts, incomingPart{PageQuery{
			In:       KeyCondition(c.Names.Relationships, c.Names.IncomingShard, schema.AttrObjectShard, key),
			Identity: c.Names.IncomingShard + "\x00" + key,
		}, schema.AttrObjectShard, key})
	}
	return parts, nil
}

// IndexEntriesQuery selects the index entries of an entity.
func (c *Core) IndexEntriesQuery(k Key) *dynamodb.QueryInput {
	in := KeyCondition(c.Names.IndexEntries, "", schema.AttrSubjectKey, k.String())
	in.ConsistentRead = aws.Bool(true)
	return in
}

// EdgeQuery selects the entries of subject under predicate pointing at object,
// through the by-object local index.
func (c *Core) EdgeQuery(subject Key, predicate string, object Key) *dynamodb.QueryInput {
	in := KeyCondition(c.Names.Relationships, c.Names.RelationshipsByObject, schema.AttrSubjectKey, subject.String())
	in.KeyConditionExpression = aws.String("#pk = :pk AND #sk = :sk")
	in.ExpressionAttributeNames["#sk"] = schema.AttrPredicateObjectKey
	in.ExpressionAttributeValues[":sk"] = AttrS(schema.PredicateObjectKey(predicate, object.Scope, object.Type, object.ID))
	in.ConsistentRead = aws.Bool(c.ConsistentRead)
	return in
}

// HasRelationship reports whether subject's list under predicate holds object: one
// GetItem of a set's entry, or one Query of the by-object index of a list.
func (c *Core) HasRelationship(ctx context.Context, subject Key, predicate string, object Key) (bool, error) {
	if c.Sets[predicate] {
		e := relationships.SetEntry(subject, predicate, object)
		in := GetInput(c.Names.Relationships, e.PrimaryKey())
		in.ConsistentRead = aws.Bool(c.ConsistentRead)
		out, err := c.API.GetItem(ctx, in)
		if err != nil {
			return false, err
		}
		return out.Item != nil, nil
	}
	in := c.EdgeQuery(subject, predicate, object)
	in.Limit = aws.Int32(1)
	out, err := c.API.Query(ctx, in)
	if err != nil {
		return false, err
	}
	return len(out.Items) > 0, nil
}
