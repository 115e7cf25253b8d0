package changes

import (
	"context"
	"fmt"

	"github.com/aws/aws-lambda-go/events"
	streams "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

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

// Expiries is a consumer of the stream of the entities table that completes every
// expiry (CompleteExpiry), for a Lambda function (Lambda) or for a worker reading
// the DynamoDB Streams API (Stream). It handles records in order and stops at the
// first one that fails, so that none is skipped: a record it cannot decode fails
// too, never silently.
type Expiries struct {
	db      *ryno.Client
	decoder *Decoder
}

// NewExpiries returns the consumer of the stream of db's entities table.
func NewExpiries(db *ryno.Client) (*Expiries, error) {
	d, err := NewDecoder(db.Names().Prefix)
	if err != nil {
		return nil, err
	}
	return &Expiries{db: db, decoder: d}, nil
}

// Lambda handles a batch Lambda delivers. The first record that fails is reported
// as the batch's failure (the event source mapping's ReportBatchItemFailures), so
// that Lambda sends it and the records after it again.
func (x *Expiries) Lambda(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	for _, r := range ev.Records {
		cs, err := x.decoder.Lambda(r)
		if err == nil {
			err = x.complete(ctx, cs)
		}
		if err != nil {
			return events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{
				{ItemIdentifier: r.Change.SequenceNumber},
			}}, nil
		}
	}
	return events.DynamoDBEventResponse{}, nil
}

// Stream handles records of table, as GetRecords returns them, and returns how many
// it handled: when it fails, records[n] failed and none after it was handled, so a
// worker reads again from that record's sequence number.
func (x *Expiries) Stream(ctx context.Context, table string, records []streams.Record) (n int, err error) {
	for i, r := range records {
		cs, err := x.decoder.Stream(table, r)
		if err == nil {
			err = x.complete(ctx, cs)
		}
		if err != nil {
			return i, fmt.Errorf("changes: record %d of %d: %w", i, len(records), err)
		}
	}
	return len(records), nil
}

func (x *Expiries) complete(ctx context.Context, cs []Change) error {
	for _, c := range cs {
		if err := CompleteExpiry(ctx, x.db, c); err != nil {
			return err
		}
	}
	return nil
}
