package ryno

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/tables"
)

// Delete removes the entity with key k with everything that refers to it: the
// relationship entries pointing at it, its own relationship entries and its index
// entries. These are read a page at a time, in parallel, and deleted in parallel
// batches, at most Options.MaxConcurrency requests at once; the entity item goes last, so a Delete cut off half-way leaves the entity
// in place and completes when called again. Deleting an entity that does not exist is
// not an error.
//
// Entries pointing at the entity are found through the reverse index, which DynamoDB
// keeps eventually consistent: an entry written a moment before the Delete can be
// missed.
func (c *Client) Delete(ctx context.Context, k Key) error {
	if err := k.Validate(); err != nil {
		return err
	}
	if err := c.deleteReferences(ctx, k); err != nil {
		return fmt.Errorf("ryno: delete %s: %w", k, err)
	}
	_, err := c.api.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(c.names.Entities),
		Key:       k.item(),
	})
	if err != nil {
		return fmt.Errorf("ryno: delete %s: %w", k, err)
	}
	return nil
}

// reference is a query for items to delete with the delete, and their table.
type reference struct {
	table string
	query *dynamodb.QueryInput
}

// deleteReferences deletes the entries that refer to k.
func (c *Client) deleteReferences(ctx context.Context, k Key) error {
	outgoing := c.outgoingQuery(k, "")
	outgoing.ConsistentRead = aws.Bool(true)
	refs := []reference{
		{c.names.Relationships, keysOnly(c.incomingQuery(k), tables.AttrSubjectKey, tables.AttrPredicateKey)},
		{c.names.Relationships, keysOnly(outgoing, tables.AttrSubjectKey, tables.AttrPredicateKey)},
		{c.names.IndexEntries, keysOnly(c.indexEntriesQuery(k), tables.AttrSubjectKey, tables.AttrUniqueKey)},
	}
	batch := c.batch.shared()
	return parallel(ctx, len(refs), len(refs), func(ctx context.Context, i int) error {
		return c.queryPages(ctx, refs[i].query, func(keys []map[string]types.AttributeValue) error {
			ops := make([]writeOp, len(keys))
			for j, key := range keys {
				ops[j] = deleteOp(refs[i].table, key)
			}
			return batch.write(ctx, ops)
		})
	})
}
