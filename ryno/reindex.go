package ryno

import (
	"context"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/store"
)

// ReindexProgress counts what a Reindex has done so far.
type ReindexProgress struct {
	Entities int // entities whose entries were recomputed
	Puts     int // index entries written
	Deletes  int // index entries deleted
	// Moved counts the entities moved to the by-type layout of their type's
	// ShardedType, from the one they were written in.
	Moved int
	// Duplicates are the values of unique indexes that an entity emits and another
	// entity holds: Reindex reports them instead of writing them.
	Duplicates []Duplicate
}

// Duplicate is a value of a unique index that Entity emits and Owner holds. It is
// package indexing's type.
type Duplicate = indexing.Duplicate

// Reindex recomputes the index entries of every entity of a type in scope, with the
// indexes registered now, and repairs the difference in the index entries table: run
// it after adding an index or changing a map function. It also moves the entities
// standing in another by-type layout than their type's ShardedType: run it after
// changing Shards, with Resharding set. Entries of indexes no longer
// registered for the type are deleted. It pages through the entities, holding one
// page at a time, and calls progress (when not nil) after each page.
//
// Entities are listed through the by-type index, which is eventually consistent, and
// each is handled as listed: an entity written while Reindex runs maintains its own
// entries, but one written just before may be handled in its former state. Run
// Reindex again, or when the type is not being written, to be sure.
//
// It sends one Query of the by-type index per page of 100 entities, then, for each
// entity of the page, up to Options.MaxConcurrency at once, a Query of its entries
// (and a read of the claims of its unique values) and, when anything differs, one
// TransactWriteItems; an entity changed meanwhile is read again (a GetItem) and
// redone.
func (c *Client) Reindex(ctx context.Context, t Type, progress func(ReindexProgress)) (_ ReindexProgress, err error) {
	ctx, call, err := c.begin(ctx, "Reindex")
	defer call.end(&err)
	if err != nil {
		return ReindexProgress{}, err
	}
	var done ReindexProgress
	err = c.maint.Reindex(ctx, t.Scope, t.Name, func(n store.ReindexCount) {
		done.Entities += n.Entities
		done.Puts += n.Puts
		done.Deletes += n.Deletes
		done.Moved += n.Moved
		done.Duplicates = append(done.Duplicates, n.Duplicates...)
		if progress != nil {
			progress(done)
		}
	})
	return done, err
}
