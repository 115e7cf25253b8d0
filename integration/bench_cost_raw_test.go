//go:build costreport

package integration_test

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/integration/costmodel"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/ryno"
)

// rawStore is the seed design (the Kixx RynoDB README) written directly against the
// DynamoDB API: for each use case, the requests the README names, in its order,
// in parallel only where it says so. PutItem, BatchWriteItem, Query and DeleteItem
// only: no transactions, no versions, no list heads or markers, no by-object index
// key. Items have the README's records, with the store's key encoding. It is what
// the library's cost is measured against, not a usable store: concurrent writers
// can interleave its reads and writes.
type rawStore struct {
	api   ryno.DynamoDBAPI
	names schema.Names
}

// rawEntity builds the README's entity record; entries maps index names to the
// keys the entity emits into them.
func (s *rawStore) rawEntity(k ryno.Key, attrs map[string]any, entries map[string][]string) (costmodel.Item, error) {
	item, err := attributevalue.MarshalMap(attrs)
	if err != nil {
		return nil, err
	}
	now := schema.FormatTime(time.Now())
	item[schema.AttrID] = str(k.ID)
	item[schema.AttrScope] = str(k.Scope)
	item[schema.AttrType] = str(k.Type)
	item[schema.AttrScopeTypeKey] = str(schema.ScopeTypeKey(k.Scope, k.Type))
	item[schema.AttrCreated] = str(now)
	item[schema.AttrUpdated] = str(now)
	if len(entries) > 0 {
		record := map[string]types.AttributeValue{}
		for name, keys := range entries {
			l := make([]types.AttributeValue, len(keys))
			for i, key := range keys {
				l[i] = str(key)
			}
			record[name] = &types.AttributeValueMemberL{Value: l}
		}
		item[schema.AttrIndexEntries] = &types.AttributeValueMemberM{Value: record}
	}
	return item, nil
}

// rawEntry builds the README's relationship record: the library's entry without
// the by-object index key.
func rawEntry(subject ryno.Key, predicate string, index int, object ryno.Key) costmodel.Item {
	item := relationships.Entry{
		Subject: subject, Predicate: predicate, Index: index, Object: object,
	}.Item()
	delete(item, schema.AttrPredicateObjectKey)
	return item
}

// rawIndexEntry builds the README's index entry record for a string value.
func rawIndexEntry(k ryno.Key, index, value string) costmodel.Item {
	key := indexing.String(value).Encoding()
	return costmodel.Item{
		schema.AttrScope:          str(k.Scope),
		schema.AttrType:           str(k.Type),
		schema.AttrID:             str(k.ID),
		schema.AttrIndexName:      str(index),
		schema.AttrIndexKey:       str(key),
		schema.AttrSubjectKey:     str(k.String()),
		schema.AttrUniqueKey:      str(schema.UniqueKey(index, key)),
		schema.AttrScopeIndexName: str(schema.ScopeIndexName(k.Scope, index)),
	}
}

// query reads every page of in.
func (s *rawStore) query(ctx context.Context, in *dynamodb.QueryInput) ([]costmodel.Item, error) {
	var items []costmodel.Item
	for {
		out, err := s.api.Query(ctx, in)
		if err != nil {
			return nil, err
		}
		items = append(items, out.Items...)
		if len(out.LastEvaluatedKey) == 0 {
			return items, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// list is "query(subject_key).begins_with(predicate)": the subject's entries for
// predicate.
func (s *rawStore) list(ctx context.Context, subject ryno.Key, predicate string) ([]costmodel.Item, error) {
	return s.query(ctx, &dynamodb.QueryInput{
		TableName:                aws.String(s.names.Relationships),
		KeyConditionExpression:   aws.String("#pk = :pk AND begins_with(#sk, :prefix)"),
		ExpressionAttributeNames: map[string]string{"#pk": schema.AttrSubjectKey, "#sk": schema.AttrPredicateKey},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": str(subject.String()), ":prefix": str(schema.PredicatePrefix(predicate)),
		},
	})
}

// batchWrite writes reqs to table in chunks of 25, in parallel, retrying what
// DynamoDB leaves unprocessed.
func (s *rawStore) batchWrite(ctx context.Context, table string, reqs []types.WriteRequest) error {
	var g errgroup.Group
	for chunk := range slices.Chunk(reqs, 25) {
		g.Go(func() error {
			items := map[string][]types.WriteRequest{table: chunk}
			for len(items) > 0 {
				out, err := s.api.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: items})
				if err != nil {
					return err
				}
				items = out.UnprocessedItems
			}
			return nil
		})
	}
	return g.Wait()
}

func puts(items []costmodel.Item) []types.WriteRequest {
	reqs := make([]types.WriteRequest, len(items))
	for i, item := range items {
		reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: item}}
	}
	return reqs
}

func deletes(keys []costmodel.Item) []types.WriteRequest {
	reqs := make([]types.WriteRequest, len(keys))
	for i, k := range keys {
		reqs[i] = types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: k}}
	}
	return reqs
}

func entryKey(item costmodel.Item) costmodel.Item {
	return costmodel.Item{schema.AttrSubjectKey: item[schema.AttrSubjectKey], schema.AttrPredicateKey: item[schema.AttrPredicateKey]}
}

func objectKey(item costmodel.Item) string {
	v, _ := item[schema.AttrObjectKey].(*types.AttributeValueMemberS)
	if v == nil {
		return ""
	}
	return v.Value
}

func entryIndex(item costmodel.Item) int {
	v, _ := item[schema.AttrIndex].(*types.AttributeValueMemberN)
	if v == nil {
		return -1
	}
	i, _ := strconv.Atoi(v.Value)
	return i
}

// Add: query the list, concatenate the new entries after the highest index,
// de-duplicated against the list, and batch-write them.
func (s *rawStore) Add(ctx context.Context, subject ryno.Key, predicate string, objects []ryno.Key) error {
	entries, err := s.list(ctx, subject, predicate)
	if err != nil {
		return err
	}
	present, next := map[string]bool{}, 0
	for _, e := range entries {
		present[objectKey(e)] = true
		next = max(next, entryIndex(e)+1)
	}
	var items []costmodel.Item
	for _, o := range objects {
		if !present[o.String()] {
			present[o.String()] = true
			items = append(items, rawEntry(subject, predicate, next, o))
			next++
		}
	}
	return s.batchWrite(ctx, s.names.Relationships, puts(items))
}

// Remove: query the list and batch-delete the entries of the objects.
func (s *rawStore) Remove(ctx context.Context, subject ryno.Key, predicate string, objects []ryno.Key) error {
	entries, err := s.list(ctx, subject, predicate)
	if err != nil {
		return err
	}
	gone := map[string]bool{}
	for _, o := range objects {
		gone[o.String()] = true
	}
	var keys []costmodel.Item
	for _, e := range entries {
		if gone[objectKey(e)] {
			keys = append(keys, entryKey(e))
		}
	}
	return s.batchWrite(ctx, s.names.Relationships, deletes(keys))
}

// Replace, as the README words it: query the list, batch-delete every entry, then
// batch-put the new list.
func (s *rawStore) Replace(ctx context.Context, subject ryno.Key, predicate string, objects []ryno.Key) error {
	entries, err := s.list(ctx, subject, predicate)
	if err != nil {
		return err
	}
	keys := make([]costmodel.Item, len(entries))
	for i, e := range entries {
		keys[i] = entryKey(e)
	}
	if err := s.batchWrite(ctx, s.names.Relationships, deletes(keys)); err != nil {
		return err
	}
	items := make([]costmodel.Item, len(objects))
	for i, o := range objects {
		items[i] = rawEntry(subject, predicate, i, o)
	}
	return s.batchWrite(ctx, s.names.Relationships, puts(items))
}

// ReplaceDiff is the least a replace can write: query the list, then one round of
// batch writes deleting the entries that are not in the new list at their position
// and putting those missing.
func (s *rawStore) ReplaceDiff(ctx context.Context, subject ryno.Key, predicate string, objects []ryno.Key) error {
	entries, err := s.list(ctx, subject, predicate)
	if err != nil {
		return err
	}
	type slot struct {
		index  int
		object string
	}
	want := map[slot]bool{}
	for i, o := range objects {
		want[slot{i, o.String()}] = true
	}
	var reqs []types.WriteRequest
	for _, e := range entries {
		s := slot{entryIndex(e), objectKey(e)}
		if want[s] {
			delete(want, s)
		} else {
			reqs = append(reqs, deletes([]costmodel.Item{entryKey(e)})...)
		}
	}
	for i, o := range objects {
		if want[slot{i, o.String()}] {
			reqs = append(reqs, puts([]costmodel.Item{rawEntry(subject, predicate, i, o)})...)
		}
	}
	return s.batchWrite(ctx, s.names.Relationships, reqs)
}

// Set: put the entity, then replace each list given, as Replace does.
func (s *rawStore) Set(ctx context.Context, k ryno.Key, attrs map[string]any, lists map[string][]ryno.Key) error {
	item, err := s.rawEntity(k, attrs, nil)
	if err != nil {
		return err
	}
	if _, err := s.api.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.names.Entities), Item: item}); err != nil {
		return err
	}
	for predicate, objects := range lists {
		if err := s.Replace(ctx, k, predicate, objects); err != nil {
			return err
		}
	}
	return nil
}

// Create: put the entity on condition that it does not exist, then batch-write its
// index entries (the README names no sequence for index entries; this is the
// least one).
func (s *rawStore) Create(ctx context.Context, k ryno.Key, attrs map[string]any, index string, values []string) error {
	var entries map[string][]string
	var items []costmodel.Item
	if len(values) > 0 {
		entries = map[string][]string{index: nil}
		for _, v := range values {
			entries[index] = append(entries[index], indexing.String(v).Encoding())
			items = append(items, rawIndexEntry(k, index, v))
		}
	}
	item, err := s.rawEntity(k, attrs, entries)
	if err != nil {
		return err
	}
	if _, err := s.api.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.names.Entities), Item: item,
		ConditionExpression:      aws.String("attribute_not_exists(#id)"),
		ExpressionAttributeNames: map[string]string{"#id": schema.AttrID},
	}); err != nil {
		return err
	}
	return s.batchWrite(ctx, s.names.IndexEntries, puts(items))
}

// Delete: query the entries pointing at the entity (reverse index), its own
// entries (the README forgot them) and its index entries, in parallel, each
// followed by the batch deletes of what it found; then delete the entity.
func (s *rawStore) Delete(ctx context.Context, k ryno.Key) error {
	byKey := func(table, index, attr string) *dynamodb.QueryInput {
		in := &dynamodb.QueryInput{
			TableName:                 aws.String(table),
			KeyConditionExpression:    aws.String("#pk = :pk"),
			ExpressionAttributeNames:  map[string]string{"#pk": attr},
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(k.String())},
		}
		if index != "" {
			in.IndexName = aws.String(index)
		}
		return in
	}
	sweep := func(table string, in *dynamodb.QueryInput, key func(costmodel.Item) costmodel.Item) error {
		items, err := s.query(ctx, in)
		if err != nil {
			return err
		}
		keys := make([]costmodel.Item, len(items))
		for i, item := range items {
			keys[i] = key(item)
		}
		return s.batchWrite(ctx, table, deletes(keys))
	}
	indexKey := func(item costmodel.Item) costmodel.Item {
		return costmodel.Item{schema.AttrSubjectKey: item[schema.AttrSubjectKey], schema.AttrUniqueKey: item[schema.AttrUniqueKey]}
	}
	var g errgroup.Group
	g.Go(func() error {
		return sweep(s.names.Relationships, byKey(s.names.Relationships, s.names.ReverseRelationships, schema.AttrObjectKey), entryKey)
	})
	g.Go(func() error {
		return sweep(s.names.Relationships, byKey(s.names.Relationships, "", schema.AttrSubjectKey), entryKey)
	})
	g.Go(func() error {
		return sweep(s.names.IndexEntries, byKey(s.names.IndexEntries, "", schema.AttrSubjectKey), indexKey)
	})
	if err := g.Wait(); err != nil {
		return err
	}
	_, err := s.api.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(s.names.Entities),
		Key:       costmodel.Item{schema.AttrID: str(k.ID), schema.AttrScopeTypeKey: str(schema.ScopeTypeKey(k.Scope, k.Type))},
	})
	return err
}

// SetIndexed: the entity's PutItem, unconditional, returning the item it replaced,
// whose record names the entries to delete; then one batch write of the entries
// that change.
func (s *rawStore) SetIndexed(ctx context.Context, k ryno.Key, attrs map[string]any, index string, values []string) error {
	encoded := make([]string, len(values))
	for i, v := range values {
		encoded[i] = indexing.String(v).Encoding()
	}
	item, err := s.rawEntity(k, attrs, map[string][]string{index: encoded})
	if err != nil {
		return err
	}
	out, err := s.api.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.names.Entities), Item: item, ReturnValues: types.ReturnValueAllOld,
	})
	if err != nil {
		return err
	}
	old := map[string]bool{}
	if record, ok := out.Attributes[schema.AttrIndexEntries].(*types.AttributeValueMemberM); ok {
		if l, ok := record.Value[index].(*types.AttributeValueMemberL); ok {
			for _, v := range l.Value {
				old[v.(*types.AttributeValueMemberS).Value] = true
			}
		}
	}
	var reqs []types.WriteRequest
	for i, v := range values {
		if !old[encoded[i]] {
			reqs = append(reqs, puts([]costmodel.Item{rawIndexEntry(k, index, v)})...)
		}
		delete(old, encoded[i])
	}
	for key := range old {
		reqs = append(reqs, deletes([]costmodel.Item{{
			schema.AttrSubjectKey: str(k.String()), schema.AttrUniqueKey: str(schema.UniqueKey(index, key)),
		}})...)
	}
	return s.batchWrite(ctx, s.names.IndexEntries, reqs)
}

// Put: the entity's PutItem, unconditional (a Set of an entity without lists).
func (s *rawStore) Put(ctx context.Context, k ryno.Key, attrs map[string]any) error {
	item, err := s.rawEntity(k, attrs, nil)
	if err != nil {
		return err
	}
	_, err = s.api.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.names.Entities), Item: item})
	return err
}

// duplicatePositions counts the positions of subject's list that more than one
// entry holds.
func (s *rawStore) duplicatePositions(ctx context.Context, subject ryno.Key, predicate string) (int, error) {
	entries, err := s.list(ctx, subject, predicate)
	if err != nil {
		return 0, err
	}
	held := map[int]int{}
	for _, e := range entries {
		held[entryIndex(e)]++
	}
	dups := 0
	for _, n := range held {
		if n > 1 {
			dups++
		}
	}
	return dups, nil
}
