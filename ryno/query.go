package ryno

import (
	"context"
	"maps"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/schema"
)

// queryPages runs in page after page, handing each page's items to fn, until no page
// follows or fn fails. Only one page is held at a time.
func (c *Client) queryPages(ctx context.Context, in *dynamodb.QueryInput, fn func([]map[string]types.AttributeValue) error) error {
	return eachPage(func(start map[string]types.AttributeValue) ([]map[string]types.AttributeValue, map[string]types.AttributeValue, error) {
		page := *in
		page.ExclusiveStartKey = start
		out, err := c.api.Query(ctx, &page)
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

// queryAll returns the items of every page of in.
func (c *Client) queryAll(ctx context.Context, in *dynamodb.QueryInput) ([]map[string]types.AttributeValue, error) {
	var items []map[string]types.AttributeValue
	err := c.queryPages(ctx, in, func(page []map[string]types.AttributeValue) error {
		items = append(items, page...)
		return nil
	})
	return items, err
}

// keyCondition returns a Query of table (and index, if not empty) for the items whose
// partition key attribute pk equals value.
func keyCondition(table, index, pk, value string) *dynamodb.QueryInput {
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": pk},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(value)},
	}
	if index != "" {
		in.IndexName = aws.String(index)
	}
	return in
}

// withSortPrefix narrows in to the items whose sort key attribute sk begins with prefix.
func withSortPrefix(in *dynamodb.QueryInput, sk, prefix string) *dynamodb.QueryInput {
	in.KeyConditionExpression = aws.String("#pk = :pk AND begins_with(#sk, :sk)")
	in.ExpressionAttributeNames["#sk"] = sk
	in.ExpressionAttributeValues[":sk"] = str(prefix)
	return in
}

// keysOnly makes in return only the named attributes.
func keysOnly(in *dynamodb.QueryInput, names ...string) *dynamodb.QueryInput {
	expr, attrs := batching.Projection(names)
	in.ProjectionExpression = expr
	maps.Copy(in.ExpressionAttributeNames, attrs)
	return in
}

// outgoingQuery selects the relationship entries of subject: all of them, or those of
// one predicate. Either way the key condition leaves out the lists' heads and
// markers, which sort before every entry.
func (c *Client) outgoingQuery(subject Key, predicate string) *dynamodb.QueryInput {
	in := keyCondition(c.names.Relationships, "", schema.AttrSubjectKey, subject.String())
	in.ConsistentRead = aws.Bool(c.opts.ConsistentRead)
	if predicate != "" {
		return withSortPrefix(in, schema.AttrPredicateKey, schema.PredicatePrefix(predicate))
	}
	in.KeyConditionExpression = aws.String("#pk = :pk AND #sk > :sk")
	in.ExpressionAttributeNames["#sk"] = schema.AttrPredicateKey
	in.ExpressionAttributeValues[":sk"] = str(schema.EntriesStart)
	return in
}

// incomingQuery selects the relationship entries pointing at object, through the
// reverse index.
func (c *Client) incomingQuery(object Key) *dynamodb.QueryInput {
	return keyCondition(c.names.Relationships, c.names.ReverseRelationships, schema.AttrObjectKey, object.String())
}

// indexEntriesQuery selects the index entries of an entity.
func (c *Client) indexEntriesQuery(k Key) *dynamodb.QueryInput {
	in := keyCondition(c.names.IndexEntries, "", schema.AttrSubjectKey, k.String())
	in.ConsistentRead = aws.Bool(true)
	return in
}

// edgeQuery selects the entries of subject under predicate pointing at object,
// through the by-object local index.
func (c *Client) edgeQuery(subject Key, predicate string, object Key) *dynamodb.QueryInput {
	in := keyCondition(c.names.Relationships, c.names.RelationshipsByObject, schema.AttrSubjectKey, subject.String())
	in.KeyConditionExpression = aws.String("#pk = :pk AND #sk = :sk")
	in.ExpressionAttributeNames["#sk"] = schema.AttrPredicateObjectKey
	in.ExpressionAttributeValues[":sk"] = str(schema.PredicateObjectKey(predicate, object.Scope, object.Type, object.ID))
	in.ConsistentRead = aws.Bool(c.opts.ConsistentRead)
	return in
}
