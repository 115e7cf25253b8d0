package maintenance

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/check"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// marksScan returns a consistent scan of one of segments of the entities table that
// returns only entities a write left marked (being deleted, or being written) and
// entities expired by now, or whose expiry is a string, which DynamoDB cannot
// compare with the clock (checkMarks reads it). It returns them whole, as repairs
// need them: a scan is billed for whole items anyway.
func (m *Maintainer) marksScan(segment, segments int, now time.Time) *dynamodb.ScanInput {
	in := &dynamodb.ScanInput{
		TableName:                 aws.String(m.core.Names.Entities),
		FilterExpression:          aws.String("attribute_exists(#d) OR attribute_exists(#p) OR #e <= :now OR attribute_type(#e, :s)"),
		ExpressionAttributeNames:  map[string]string{"#d": schema.AttrDeleting, "#p": schema.AttrPending, "#e": schema.AttrExpires},
		ExpressionAttributeValues: map[string]types.AttributeValue{":now": store.AttrN(now.Unix()), ":s": store.AttrS(string(types.ScalarAttributeTypeS))},
		ConsistentRead:            aws.Bool(true),
	}
	if segments > 1 {
		in.Segment, in.TotalSegments = aws.Int32(int32(segment)), aws.Int32(int32(segments))
	}
	return in
}

// checkMarks reports the marks of a page of marked entities that are traces: every
// tombstone, and pending marks whose writer's lease has expired (the others belong
// to writers at work; see PendingLeft). With Repair it finishes them.
func (m *Maintainer) checkMarks(ctx context.Context, run *checkRun, items []map[string]types.AttributeValue) error {
	var traces []check.Trace
	var marked []entitystate.State
	for _, item := range items {
		k, err := store.EntityKeyOf(item)
		if err != nil {
			continue // not an entity: the store's own items carry no marks
		}
		s, err := m.core.ReadStored(k, item)
		if err != nil {
			return err
		}
		switch {
		case s.Deleting != "":
			traces = append(traces, check.Trace{Kind: check.TraceDelete, Key: k,
				Detail: fmt.Sprintf("being deleted (version %d); what refers to it may be left", s.Version)})
		case s.Expired:
			traces = append(traces, check.Trace{Kind: check.TraceExpired, Key: k,
				Detail: fmt.Sprintf("expired at %s (version %d) and not yet deleted; what refers to it is left until it is",
					store.ExpiryTime(s.Expires).Format(time.RFC3339), s.Version)})
		case m.core.PendingLeft(s):
			traces = append(traces, check.Trace{Kind: check.TraceWrite, Key: k,
				Detail: fmt.Sprintf("written at %s (version %d) by a writer that did not finish its index entries",
					schema.FormatTime(store.PendingSince(item)), s.Version)})
		default:
			continue
		}
		marked = append(marked, s)
	}
	if len(traces) == 0 {
		return nil
	}
	var counts check.Progress
	var err error
	if run.opts.Repair {
		counts.Finished, err = m.finishMarks(ctx, traces, marked)
	}
	run.report(nil, traces, nil, 0, counts)
	return err
}

// finishMarks finishes the writes cut off that traces name, with the entities as
// scanned (marked), in parallel, and returns how many it finished: a Delete is
// completed; a write has the index entries its entity's record calls for written,
// when this client registers the indexes the entity was written with (otherwise it
// is left for a client that does). Both are conditional on the entity as scanned:
// one another writer changed meanwhile is read again, or its mark is gone.
func (m *Maintainer) finishMarks(ctx context.Context, traces []check.Trace, marked []entitystate.State) (int, error) {
	var mu sync.Mutex
	finished := 0
	err := batching.Parallel(ctx, len(traces), m.core.MaxConcurrency, func(ctx context.Context, i int) error {
		k, s := traces[i].Key, marked[i]
		var err error
		switch {
		case s.Ending():
			err = m.deletes.CompleteDelete(ctx, k, s)
		case s.Indexes != m.core.Indexes.Set(k.Type):
			return nil
		default:
			err = m.core.ReindexEntity(ctx, s.Item)
		}
		if err != nil {
			return errs.Wrap(err, "finish the %s of %s", traces[i].Kind, k)
		}
		mu.Lock()
		finished++
		mu.Unlock()
		return nil
	})
	return finished, err
}
