package maintenance

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/check"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/relationships"
)

// unindexedEntry is a relationship entry without its _reverse_key, or with a wrong
// one, or under the partition key of another layout than its object's type's
// (sharded or not): the reverse index does not hold it where it belongs, so neither
// ReverseRelationships nor the sweep of a Delete of its object finds it. Writers of
// schema version 2 and earlier wrote entries without the key; the migration to
// version 3 gives them their key, and Check finds those written after it by a
// writer not yet upgraded, and the entries to move after the incoming entries of a
// type changed their shard count.
type unindexedEntry struct {
	entry relationships.Entry
	trace check.Trace
}

// findUnindexed returns the entries of a page of the relationship entries table that
// the reverse index does not hold where they belong. An orphan is left to its
// repair.
func (m *Maintainer) findUnindexed(items []map[string]types.AttributeValue, orphans []orphan) []unindexedEntry {
	orphaned := map[string]bool{}
	for _, o := range orphans {
		orphaned[o.Entry.String()] = true
	}
	var found []unindexedEntry
	for _, item := range items {
		e, ok := m.core.Incoming.Misplaced(item)
		if !ok || orphaned[batching.ItemKey{Table: m.core.Names.Relationships, Key: e.PrimaryKey()}.String()] {
			continue
		}
		found = append(found, unindexedEntry{entry: e, trace: check.Trace{Kind: check.TraceUnindexed, Key: e.Subject, Predicate: e.Predicate,
			Detail: fmt.Sprintf("the entry to %s at %d is missing from the reverse index", e.Object, e.Index)}})
	}
	return found
}

// repairUnindexed writes the _reverse_key and partition key of each entry, if the
// entry still exists, and returns how many it wrote.
func (m *Maintainer) repairUnindexed(ctx context.Context, entries []unindexedEntry) (int, error) {
	var mu sync.Mutex
	done := 0
	err := batching.Parallel(ctx, len(entries), m.core.MaxConcurrency, func(ctx context.Context, i int) error {
		e := entries[i].entry
		_, err := m.core.API.UpdateItem(ctx, m.core.Incoming.Place(e, m.core.Names.Relationships))
		var gone *types.ConditionalCheckFailedException
		if errors.As(err, &gone) {
			return nil // deleted meanwhile: nothing to index
		}
		if err != nil {
			return errs.Wrap(err, "repair %s", entries[i].trace)
		}
		mu.Lock()
		defer mu.Unlock()
		done++
		return nil
	})
	return done, err
}
