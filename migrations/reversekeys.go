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
			if key, ok := missingReverseKey(item); ok {
				g.Go(func() error { return setReverseKey(gctx, api, names.Relationships, item, key) })
			}
		}
		if err := g.Wait(); err != nil {
			return err
		}
	}
	return nil
}

// missingReverseKey returns the _reverse_key item should hold, and whether it lacks
// it. Items that do not read as entries (heads, markers, intents, sequences) have
// none, nor have items whose keys are not those of the entry they hold: the store
// did not write them, and they are left as they are.
func missingReverseKey(item map[string]types.AttributeValue) (string, bool) {
	if _, ok := item[schema.AttrObjectKey]; !ok {
		return "", false
	}
	e, err := relationships.FromItem(item)
	if err != nil || !sameStrings(e.PrimaryKey(), item, schema.AttrSubjectKey, schema.AttrPredicateKey) {
		return "", false
	}
	want := e.ReverseKey()
	return want, stringAttr(item, schema.AttrReverseKey) != want
}

// setReverseKey writes key into the entry item, if the entry still exists.
func setReverseKey(ctx context.Context, api API, table string, item map[string]types.AttributeValue, key string) error {
	_, err := api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(table),
		Key: map[string]types.AttributeValue{
			schema.AttrSubjectKey:   item[schema.AttrSubjectKey],
			schema.AttrPredicateKey: item[schema.AttrPredicateKey],
		},
		UpdateExpression:          aws.String("SET #rk = :rk"),
		ConditionExpression:       aws.String("attribute_exists(#pk)"),
		ExpressionAttributeNames:  map[string]string{"#rk": schema.AttrReverseKey, "#pk": schema.AttrSubjectKey},
		ExpressionAttributeValues: map[string]types.AttributeValue{":rk": &types.AttributeValueMemberS{Value: key}},
	})
	var gone *types.ConditionalCheckFailedException
	if errors.As(err, &gone) {
		return nil
	}
	if err != nil {
		return errs.Wrap(err, "set the reverse key of %s %s", stringAttr(item, schema.AttrSubjectKey), stringAttr(item, schema.AttrPredicateKey))
	}
	return nil
}

// sameStrings reports whether the string attributes names of a and b are equal.
func sameStrings(a, b map[string]types.AttributeValue, names ...string) bool {
	for _, n := range names {
		if stringAttr(a, n) != stringAttr(b, n) {
			return false
		}
	}
	return true
}
