package store

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/relationships"
)

// unindexedEntry is a relationship entry without its _reverse_key, or with a wrong
// one: the reverse index does not hold it where it belongs, so neither
// ReverseRelationships nor the sweep of a Delete of its object finds it. Writers of
// schema version 2 and earlier wrote such entries; the migration to version 3 gives
// them their key, and Check finds those written after it by a writer not yet
// upgraded.
type unindexedEntry struct {
	entry relationships.Entry
	trace Trace
}

// findUnindexed returns the entries of a page of the relationship entries table whose
// _reverse_key is missing or wrong. An orphan is left to its repair.
func (c *Core) findUnindexed(items []map[string]types.AttributeValue, orphans []Orphan) []unindexedEntry {
	orphaned := map[string]bool{}
	for _, o := range orphans {
		orphaned[o.Entry.String()] = true
	}
	var found []unindexedEntry
	for _, item := range items {
		e, ok := relationships.Unindexed(item)
		if !ok || orphaned[batching.ItemKey{Table: c.Names.Relationships, Key: e.PrimaryKey()}.String()] {
			continue
		}
		found = append(found, unindexedEntry{entry: e, trace: Trace{Kind: TraceUnindexed, Key: e.Subject, Predicate: e.Predicate,
			Detail: fmt.Sprintf("the entry to %s at %d is missing from the reverse index", e.Object, e.Index)}})
	}
	return found
}

// repairUnindexed writes the _reverse_key of each entry, if the entry still exists,
// and returns how many it wrote.
func (c *Core) repairUnindexed(ctx context.Context, entries []unindexedEntry) (int, error) {
	var mu sync.Mutex
	done := 0
	err := batching.Parallel(ctx, len(entries), c.MaxConcurrency, func(ctx context.Context, i int) error {
		e := entries[i].entry
		_, err := c.API.UpdateItem(ctx, e.SetReverseKey(c.Names.Relationships))
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
