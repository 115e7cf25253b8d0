package dynamotest

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/integration/costmodel"
)

// describe reads the schemas of the tables not known yet.
func (r *Recorder) describe(ctx context.Context, names []string) {
	for _, name := range names {
		r.mu.Lock()
		_, known := r.schema[name]
		r.mu.Unlock()
		if known {
			continue
		}
		out, err := r.api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil {
			var notFound *types.ResourceNotFoundException
			if !errors.As(err, &notFound) { // a request to a missing table fails anyway
				r.fail(fmt.Errorf("recorder: describe %s: %w", name, err))
			}
			continue
		}
		r.mu.Lock()
		r.schema[name] = costmodel.TableFromDescription(out.Table)
		r.mu.Unlock()
	}
}

func (r *Recorder) table(name *string) (costmodel.Table, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.schema[aws.ToString(name)]
	return t, ok
}

// itemKey is the key of one item of a table.
type itemKey struct {
	table costmodel.Table
	key   costmodel.Item
}

// imagesBefore reads the items in writes or reads by key, and the items a Query or
// Scan evaluates.
func (r *Recorder) imagesBefore(ctx context.Context, in any) (map[costmodel.Ref]costmodel.Item, []costmodel.Item) {
	var keys []itemKey
	add := func(name *string, key costmodel.Item) {
		if t, ok := r.table(name); ok {
			keys = append(keys, itemKey{t, t.Key(key)})
		}
	}
	switch in := in.(type) {
	case *dynamodb.GetItemInput:
		add(in.TableName, in.Key)
	case *dynamodb.PutItemInput:
		add(in.TableName, in.Item)
	case *dynamodb.UpdateItemInput:
		add(in.TableName, in.Key)
	case *dynamodb.DeleteItemInput:
		add(in.TableName, in.Key)
	case *dynamodb.BatchGetItemInput:
		for name, ka := range in.RequestItems {
			for _, k := range ka.Keys {
				add(&name, k)
			}
		}
	case *dynamodb.BatchWriteItemInput:
		for name, reqs := range in.RequestItems {
			for _, w := range reqs {
				switch {
				case w.PutRequest != nil:
					add(&name, w.PutRequest.Item)
				case w.DeleteRequest != nil:
					add(&name, w.DeleteRequest.Key)
				}
			}
		}
	case *dynamodb.TransactWriteItemsInput:
		for _, a := range in.TransactItems {
			switch {
			case a.Put != nil:
				add(a.Put.TableName, a.Put.Item)
			case a.Update != nil:
				add(a.Update.TableName, a.Update.Key)
			case a.Delete != nil:
				add(a.Delete.TableName, a.Delete.Key)
			case a.ConditionCheck != nil:
				add(a.ConditionCheck.TableName, a.ConditionCheck.Key)
			}
		}
	case *dynamodb.QueryInput:
		return nil, r.evaluatedQuery(ctx, in)
	case *dynamodb.ScanInput:
		return nil, r.evaluatedScan(ctx, in)
	default:
		return nil, nil
	}
	return r.getItems(ctx, keys), nil
}

// imagesAfter reads the items in updates, after it.
func (r *Recorder) imagesAfter(ctx context.Context, in any) map[costmodel.Ref]costmodel.Item {
	var keys []itemKey
	add := func(name *string, key costmodel.Item) {
		if t, ok := r.table(name); ok {
			keys = append(keys, itemKey{t, t.Key(key)})
		}
	}
	switch in := in.(type) {
	case *dynamodb.UpdateItemInput:
		add(in.TableName, in.Key)
	case *dynamodb.TransactWriteItemsInput:
		for _, a := range in.TransactItems {
			if a.Update != nil {
				add(a.Update.TableName, a.Update.Key)
			}
		}
	}
	if len(keys) == 0 {
		return nil
	}
	return r.getItems(ctx, keys)
}

// getItems reads keys consistently; the map holds the items found.
func (r *Recorder) getItems(ctx context.Context, keys []itemKey) map[costmodel.Ref]costmodel.Item {
	images := map[costmodel.Ref]costmodel.Item{}
	seen := map[costmodel.Ref]bool{}
	var pending []itemKey
	for _, k := range keys {
		ref := k.table.Ref(k.key)
		if !seen[ref] {
			seen[ref] = true
			pending = append(pending, k)
		}
	}
	tables := map[string]costmodel.Table{}
	for chunk := range slices.Chunk(pending, 100) {
		in := &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{}}
		for _, k := range chunk {
			tables[k.table.Name] = k.table
			ka := in.RequestItems[k.table.Name]
			ka.Keys = append(ka.Keys, k.key)
			ka.ConsistentRead = aws.Bool(true)
			in.RequestItems[k.table.Name] = ka
		}
		for len(in.RequestItems) > 0 {
			out, err := r.api.BatchGetItem(ctx, in)
			if err != nil {
				r.fail(fmt.Errorf("recorder: read images: %w", err))
				return images
			}
			for name, items := range out.Responses {
				for _, item := range items {
					images[tables[name].Ref(item)] = item
				}
			}
			in.RequestItems = out.UnprocessedKeys
		}
	}
	return images
}

// usedOnly returns the entries of names and values that expr refers to.
func usedOnly(expr string, names map[string]string, values map[string]types.AttributeValue) (map[string]string, map[string]types.AttributeValue) {
	var n map[string]string
	for _, tok := range nameToken.FindAllString(expr, -1) {
		if v, ok := names[tok]; ok {
			if n == nil {
				n = map[string]string{}
			}
			n[tok] = v
		}
	}
	var v map[string]types.AttributeValue
	for _, tok := range valueToken.FindAllString(expr, -1) {
		if av, ok := values[tok]; ok {
			if v == nil {
				v = map[string]types.AttributeValue{}
			}
			v[tok] = av
		}
	}
	return n, v
}

// evaluatedQuery runs in without its filter and projection: the items it
// evaluates, whole as its table or index stores them.
func (r *Recorder) evaluatedQuery(ctx context.Context, in *dynamodb.QueryInput) []costmodel.Item {
	q := *in
	q.FilterExpression, q.ProjectionExpression, q.Select, q.ReturnConsumedCapacity = nil, nil, "", ""
	q.QueryFilter, q.AttributesToGet = nil, nil
	q.ExpressionAttributeNames, q.ExpressionAttributeValues = usedOnly(
		aws.ToString(q.KeyConditionExpression), in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	out, err := r.api.Query(ctx, &q)
	if err != nil {
		if !isClientError(err) {
			r.fail(fmt.Errorf("recorder: read the items a query evaluates: %w", err))
		}
		return nil
	}
	return nonNil(out.Items)
}

// evaluatedScan runs in without its filter and projection.
func (r *Recorder) evaluatedScan(ctx context.Context, in *dynamodb.ScanInput) []costmodel.Item {
	q := *in
	q.FilterExpression, q.ProjectionExpression, q.Select, q.ReturnConsumedCapacity = nil, nil, "", ""
	q.ScanFilter, q.AttributesToGet = nil, nil
	q.ExpressionAttributeNames, q.ExpressionAttributeValues = nil, nil
	out, err := r.api.Scan(ctx, &q)
	if err != nil {
		if !isClientError(err) {
			r.fail(fmt.Errorf("recorder: read the items a scan evaluates: %w", err))
		}
		return nil
	}
	return nonNil(out.Items)
}

func nonNil(items []costmodel.Item) []costmodel.Item {
	if items == nil {
		return []costmodel.Item{}
	}
	return items
}
