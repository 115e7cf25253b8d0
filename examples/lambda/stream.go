package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/rynodb/rynodb/changes"
	"github.com/rynodb/rynodb/examples/internal/catalog"
	"github.com/rynodb/rynodb/ryno"
)

// articleCount is the attribute of an author counting the articles that list them.
const articleCount = "articles"

// appliedType is the type of the entities that record a stream record applied.
const appliedType = "applied-record"

// appliedFor is how long a record stays marked as applied: longer than a stream
// keeps its records (24 hours), so that none is applied twice.
const appliedFor = 48 * time.Hour

// StreamHandler keeps each author's article count from the stream of the
// relationship entries table (`ryno migrate up --streams`): each entry added to or
// removed from an article's authors changes its author's count by one. Given the
// stream of the entities table too, it completes the deletion of each entity that
// DynamoDB's time to live removed (Client.Cleanup).
//
// Each record is applied exactly once. A record's count change commits in one
// transaction with an entity named after the record's event ID, whose creation
// fails when the record was applied already: a batch Lambda sends again, or a
// record delivered twice, changes nothing. The marker expires two days later, once
// the stream no longer holds the record.
type StreamHandler struct {
	db      *ryno.Client
	decoder *changes.Decoder
	log     *slog.Logger
}

// NewStreamHandler returns the handler of the stream of db's tables.
func NewStreamHandler(db *ryno.Client, log *slog.Logger) (*StreamHandler, error) {
	d, err := changes.NewDecoder(db.Names().Prefix)
	if err != nil {
		return nil, err
	}
	return &StreamHandler{db: db, decoder: d, log: log}, nil
}

// Handle applies the records of ev in order. The first record that fails ends the
// batch: it is reported as the batch's failure (ReportBatchItemFailures), so that
// Lambda sends it and every record after it again, and none is skipped. A record
// that keeps failing goes to the event source mapping's on-failure destination once
// its retries are spent.
func (h *StreamHandler) Handle(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	for _, r := range ev.Records {
		if err := h.apply(ctx, r); err != nil {
			h.log.ErrorContext(ctx, "stream record", "event", r.EventID, "sequence", r.Change.SequenceNumber, "error", err)
			return events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{
				{ItemIdentifier: r.Change.SequenceNumber},
			}}, nil
		}
	}
	return events.DynamoDBEventResponse{}, nil
}

// apply applies the changes of one record.
func (h *StreamHandler) apply(ctx context.Context, r events.DynamoDBEventRecord) error {
	cs, err := h.decoder.Lambda(r)
	if err != nil {
		return err
	}
	for _, c := range cs {
		switch {
		case c.Kind == changes.EntityDeleting || c.Kind == changes.EntityDeleted:
			// A Delete cut off is completed; when DynamoDB's time to live removed
			// the entity alone, what referred to it goes too. Its bylines go with
			// it (each a RelationshipRemoved record of its own, counted when it
			// comes).
			err = changes.Complete(ctx, h.db, c)
		case c.Relationship.Predicate != catalog.PredicateAuthors:
		case c.Kind == changes.RelationshipAdded:
			err = h.count(ctx, c, 1)
		case c.Kind == changes.RelationshipRemoved:
			err = h.count(ctx, c, -1)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// count adds delta to the article count of the author of c, once.
func (h *StreamHandler) count(ctx context.Context, c changes.Change, delta int) error {
	applied := &ryno.Entity{Key: ryno.Key{Scope: catalog.Scope, Type: appliedType, ID: c.EventID}, Expires: time.Now().Add(appliedFor)}
	author := c.Relationship.Object
	_, err := h.db.Transact(ctx,
		ryno.TxCreate(applied),
		ryno.TxPatch(author, ryno.Patch{Add: map[string]any{articleCount: delta}}))
	switch {
	case errors.Is(err, ryno.ErrExists):
		return nil // applied before
	case errors.Is(err, ryno.ErrNotFound):
		return nil // the author is gone: there is nothing to count
	case err != nil:
		return fmt.Errorf("count %s: %w", author, err)
	}
	return nil
}
