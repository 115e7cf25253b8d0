package migrations

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

// reverseKeyWriters bounds the UpdateItem requests the step keeps in flight.
const reverseKeyWriters = 16

// addReverseKeys is the data step of schema version 3. Since that version the
// reverse index is keyed by _object_key and _reverse_key (predicate, subject,
// position), which every entry carries; the index of earlier versions was keyed by
// _index and left the order of entries at one position to chance. Up creates the
// new index before the step and deletes the old one after it. The step gives every
// entry written earlier its _reverse_key, so that the new index holds it.
//
// It scans the relationship entries table once, consistently, and updates each entry
// whose _reverse_key is missing or wrong, a few at a time. An update sets that one
// attribute on the condition that the entry still exists, so an entry deleted
// meanwhile is not brought back; entries are never changed in place otherwise (a
// new position is a new item). A run cut off is completed by the next, and a run
// after a complete one writes nothing.
func addReverseKeys(ctx context.Context, api API, names schema.Names) error {
	pages := dynamodb.NewScanPaginator(api, &dynamodb.ScanInput{
		TableName:      aws.String(names.Relationships),
		ConsistentRead: aws.Bool(true),
	})
	for pages.HasMorePages() {
		out, err := pages.NextPage(ctx)
		if err != nil {
			return errs.Wrap(err, "scan %s", names.Relationships)
		}
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(reverseKeyWriters)
		for _, item := range out.Items {
			if e, ok := relationships.Unindexed(item); ok {
				g.Go(func() error { return setReverseKey(gctx, api, names.Relationships, e) })
			}
		}
		if err := g.Wait(); err != nil {
			return err
		}
	}
	return nil
}

// setReverseKey writes the entry's key into its item, if the entry still exists.
func setReverseKey(ctx context.Context, api API, table string, e relationships.Entry) error {
	_, err := api.UpdateItem(ctx, e.SetReverseKey(table))
	var gone *types.ConditionalCheckFailedException
	if errors.As(err, &gone) {
		return nil
	}
	if err != nil {
		return errs.Wrap(err, "set the reverse key of %s -%s-> %s at %d", e.Subject, e.Predicate, e.Object, e.Index)
	}
	return nil
}
