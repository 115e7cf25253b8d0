// The relationship lists an entity write replaces, made ready: a list another
// writer left under its lease is finished before the write goes on.

package store

import (
	"context"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/relationships"
)

// readyLists inspects the lists read before a plan relies on them. It finishes a
// list another writer left unfinished (or whose bookkeeping contradicts its entries)
// and reports that the lists must be read again, as they must while another writer
// holds one (held then says which) or a read is doubtful.
func (w *write) readyLists(ctx context.Context, lists []ListState) (held *entity.LeaseError, again bool, err error) {
	if w.doubts == nil {
		w.doubts = make([]relationships.Doubt, len(lists))
	}
	now := w.c.Now()
	for i, s := range lists {
		switch relationships.Inspect(s.Head, nil, s.Entries, true, now, &w.doubts[i]) {
		case relationships.Held:
			held, again = &entity.LeaseError{Key: w.Key, Predicate: s.Head.Predicate, Until: s.Head.LeaseUntil}, true
		case relationships.Left:
			if _, err := w.c.WriteListLeased(ctx, nil, s.Head); err != nil {
				return nil, false, err
			}
			again = true
		case relationships.Doubtful:
			again = true
		}
	}
	return held, again, nil
}
