package changes

import (
	"context"
	"fmt"

	"github.com/aws/aws-lambda-go/events"
	streams "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/rynodb/rynodb/ryno"
)

// Complete finishes what the store left for a consumer of the stream to finish,
// for a change that says so, and does nothing for any other:
//   - an Expired EntityDeleted: DynamoDB's time to live removed the item alone, and
//     Complete deletes what referred to it (CompleteExpiry);
//   - an EntityDeleting: a Delete began, and Complete completes it if its
//     tombstone is still there (ryno's CompleteDelete), with what the entity owns.
//     That is one consistent GetItem when the Delete has finished, as a small one
//     has by the time its record comes; a Delete cut off (a Lambda function ended
//     at its timeout, a Delete InBackground whose process ended) is finished here.
//
// Both check what is stored before they change anything, so a change handled twice,
// late, or after the key was created anew changes nothing more. Any other change
// sends no request.
func Complete(ctx context.Context, db *ryno.Client, c Change) error {
	switch c.Kind {
	case EntityDeleting:
		return db.CompleteDelete(ctx, c.Key)
	case EntityDeleted:
		return CompleteExpiry(ctx, db, c)
	}
	return nil
}

// CompleteExpiry completes the deletion of an entity DynamoDB's time to live
// removed: for a change that is an Expired EntityDeleted, it deletes what referred
// to the entity (its relationship entries both ways, index entries and unique
// values) with db.Cleanup; for any other change it does nothing. Cleanup checks
// that the entity is still missing, so a change handled twice, late, or after the
// key was created anew changes nothing more. It sends what Cleanup sends: at least 3
// Queries in one round, then a consistent GetItem; any other change sends nothing.
func CompleteExpiry(ctx context.Context, db *ryno.Client, c Change) error {
	if c.Kind != EntityDeleted || !c.Expired {
		return nil
	}
	return db.Cleanup(ctx, c.Key)
}

// Completer is a consumer of the stream of the entities table that completes what
// the store leaves to one (Complete): every expiry, and every Delete cut off. It
// serves a Lambda function (Lambda) or a worker reading the DynamoDB Streams API
// (Stream). It handles records in order and stops at the first one that fails, so
// that none is skipped: a record it cannot decode fails too, never silently.
type Completer struct {
	db      *ryno.Client
	decoder *Decoder
}

// Expiries is the former name of Completer, which completes Deletes cut off too.
//
// Deprecated: use Completer.
type Expiries = Completer

// NewCompleter returns the consumer of the stream of db's entities table.
func NewCompleter(db *ryno.Client) (*Completer, error) {
	d, err := NewDecoder(db.Names().Prefix)
	if err != nil {
		return nil, err
	}
	return &Completer{db: db, decoder: d}, nil
}

// NewExpiries returns NewCompleter(db).
//
// Deprecated: use NewCompleter.
func NewExpiries(db *ryno.Client) (*Completer, error) { return NewCompleter(db) }

// Lambda handles a batch Lambda delivers. The first record that fails is reported
// as the batch's failure (the event source mapping's ReportBatchItemFailures), so
// that Lambda sends it and the records after it again. It handles the records one
// after the other, each sending what Complete sends for its changes.
func (x *Completer) Lambda(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
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
// worker reads again from that record's sequence number. It handles the records one
// after the other, each sending what Complete sends for its changes.
func (x *Completer) Stream(ctx context.Context, table string, records []streams.Record) (n int, err error) {
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

func (x *Completer) complete(ctx context.Context, cs []Change) error {
	for _, c := range cs {
		if err := Complete(ctx, x.db, c); err != nil {
			return err
		}
	}
	return nil
}
