package changes

import (
	"context"

	"github.com/aws/aws-lambda-go/events"

	"github.com/rynodb/rynodb/ryno"
)

// CompleteExpiry completes the deletion of an entity DynamoDB's time to live
// removed: for a change that is an Expired EntityDeleted, it deletes what referred
// to the entity (its relationship entries both ways, index entries and unique
// values) with db.Cleanup; for any other change it does nothing. Cleanup checks
// that the entity is still missing, so a change handled twice, late, or after the
// key was created anew changes nothing more.
func CompleteExpiry(ctx context.Context, db *ryno.Client, c Change) error {
	if c.Kind != EntityDeleted || !c.Expired {
		return nil
	}
	return db.Cleanup(ctx, c.Key)
}

// LambdaHandler is the handler of a Lambda function reading DynamoDB streams.
type LambdaHandler func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error)

// ExpiryHandler returns a Lambda handler for the stream of db's entities table
// that completes every expiry (CompleteExpiry). It handles records in order; the
// first one that fails is reported as the batch's failure (the event source
// mapping's ReportBatchItemFailures), so that Lambda sends it and the records
// after it again and none is skipped. A record it cannot decode fails the same
// way, never silently.
func ExpiryHandler(db *ryno.Client) (LambdaHandler, error) {
	d, err := NewDecoder(db.Names().Prefix)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		for _, r := range ev.Records {
			if err := completeExpiries(ctx, db, d, r); err != nil {
				return events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{
					{ItemIdentifier: r.Change.SequenceNumber},
				}}, nil
			}
		}
		return events.DynamoDBEventResponse{}, nil
	}, nil
}

func completeExpiries(ctx context.Context, db *ryno.Client, d *Decoder, r events.DynamoDBEventRecord) error {
	cs, err := d.Lambda(r)
	if err != nil {
		return err
	}
	for _, c := range cs {
		if err := CompleteExpiry(ctx, db, c); err != nil {
			return err
		}
	}
	return nil
}
