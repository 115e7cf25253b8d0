package ryno

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/tables"
)

// ReindexProgress counts what a Reindex has done so far.
type ReindexProgress struct {
	Entities int // entities whose entries were recomputed
	Puts     int // index entries written
	Deletes  int // index entries deleted
}

// reindexPage is how many entities Reindex handles at a time.
const reindexPage = 100

// Reindex recomputes the index entries of every entity of a type in scope, with the
// indexes registered now, and repairs the difference in the index entries table: run
// it after adding an index or changing a map function. Entries of indexes no longer
// registered for the type are deleted. It pages through the entities, holding one
// page at a time, and calls progress (when not nil) after each page.
//
// Entities are listed through the by-type index, which is eventually consistent, and
// each is handled as listed: an entity written while Reindex runs maintains its own
// entries, but one written just before may be handled in its former state. Run
// Reindex again, or when the type is not being written, to be sure.
func (c *Client) Reindex(ctx context.Context, scope, typ string, progress func(ReindexProgress)) (ReindexProgress, error) {
	var done ReindexProgress
	q, err := c.byTypeQuery(scope, typ)
	if err != nil {
		return done, err
	}
	in := *q.in
	in.Limit = aws.Int32(reindexPage)
	err = c.queryPages(ctx, &in, func(items []map[string]types.AttributeValue) error {
		puts, deletes, err := c.reindexPage(ctx, items)
		if err != nil {
			return err
		}
		done.Entities += len(items)
		done.Puts += puts
		done.Deletes += deletes
		if progress != nil {
			progress(done)
		}
		return nil
	})
	if err != nil {
		return done, fmt.Errorf("ryno: reindex %s: %w", tables.ScopeTypeKey(scope, typ), err)
	}
	return done, nil
}

// reindexPage repairs the entries of the entities stored as items: their stored
// entries are read in parallel, then every difference goes in one parallel batch.
func (c *Client) reindexPage(ctx context.Context, items []map[string]types.AttributeValue) (puts, deletes int, err error) {
	ops := make([][]writeOp, len(items))
	err = parallel(ctx, len(items), c.opts.MaxConcurrency, func(ctx context.Context, i int) error {
		var err error
		ops[i], err = c.reindexOps(ctx, items[i])
		return err
	})
	if err != nil {
		return 0, 0, err
	}
	var all []writeOp
	for _, o := range ops {
		for _, op := range o {
			if op.item != nil {
				puts++
			} else {
				deletes++
			}
		}
		all = append(all, o...)
	}
	return puts, deletes, c.batch.write(ctx, all)
}

// reindexOps returns the writes that bring the stored entries of the entity stored as
// item in line with what it emits now, and refreshes its _index_entries record.
func (c *Client) reindexOps(ctx context.Context, item map[string]types.AttributeValue) ([]writeOp, error) {
	e, err := decodeEntity(item)
	if err != nil {
		return nil, err
	}
	entries, err := c.indexes.emitEntries(item, e.Created, e.Updated)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e.Key, err)
	}
	stored, err := c.readIndexEntries(ctx, e.Key)
	if err != nil {
		return nil, err
	}
	if err := c.refreshIndexRecord(ctx, item, entries); err != nil {
		return nil, err
	}
	return indexOps(c.names.IndexEntries, stored, entries)
}

// refreshIndexRecord rewrites the _index_entries record of the entity stored as item
// when it differs from entries, unless the entity was written since it was read: that
// write recorded its own.
func (c *Client) refreshIndexRecord(ctx context.Context, item map[string]types.AttributeValue, entries []indexing.Entry) error {
	record := indexRecord(entries)
	if sameRecord(item[tables.AttrIndexEntries], record) {
		return nil
	}
	_, err := c.api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(c.names.Entities),
		Key:                       project(item, []string{tables.AttrID, tables.AttrScopeTypeKey}),
		UpdateExpression:          aws.String("SET #r = :r"),
		ConditionExpression:       aws.String("#u = :u"),
		ExpressionAttributeNames:  map[string]string{"#r": tables.AttrIndexEntries, "#u": tables.AttrUpdated},
		ExpressionAttributeValues: map[string]types.AttributeValue{":r": record, ":u": item[tables.AttrUpdated]},
	})
	var changed *types.ConditionalCheckFailedException
	if errors.As(err, &changed) {
		return nil
	}
	return err
}

// sameRecord reports whether two _index_entries records list the same keys.
func sameRecord(stored, record types.AttributeValue) bool {
	var a, b map[string][]string
	if stored != nil && attributevalue.Unmarshal(stored, &a) != nil {
		return false
	}
	if attributevalue.Unmarshal(record, &b) != nil {
		return false
	}
	return maps.EqualFunc(a, b, slices.Equal[[]string])
}
