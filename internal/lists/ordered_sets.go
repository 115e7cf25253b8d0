// Ordered sets: the positions of their entries, drawn from a clock, and a Replace
// that keeps the place of the objects it keeps.

package lists

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/store"
)

// positionClock gives the positions of an ordered set's entries: increasing within
// the client, and the clock's microseconds times PositionStride across clients.
type positionClock struct {
	mu   sync.Mutex
	last int64
}

// PositionStride is how many positions a microsecond holds, and how far apart
// the positions of the objects of one call are: room for up to 1,023 objects put
// between two neighbours later, with no other object moved (a Replace spreads them
// evenly; one at a time at the same place, each halves the room). Positions last
// until the year 2255.
const PositionStride = 1024

// take reserves n positions PositionStride apart, the first no less than floor,
// and returns the first.
func (p *positionClock) take(now time.Time, n int, floor int64) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	first := max(now.UnixMicro()*PositionStride, p.last+PositionStride, floor)
	p.last = first + int64(max(n-1, 0))*PositionStride
	return first
}

// replaceOrderedSet reads the set, then writes, in BatchWriteItem requests, the
// deletes and puts of relationships.PlanOrderedSet: the objects no longer there go,
// new objects and those out of order are put at their positions. Then it confirms
// the subject as addToSet does.
func (c *Engine) replaceOrderedSet(ctx context.Context, op Op) error {
	current, err := c.readToReplace(ctx, op)
	if err != nil {
		return err
	}
	want := store.DistinctKeys(op.Objects)
	var ordered, unplaced []relationships.Entry
	floor := int64(0)
	for _, e := range current {
		switch {
		case e.Ordered:
			ordered = append(ordered, e)
			floor = max(floor, e.Position+1)
		case e.InSet:
			unplaced = append(unplaced, e) // written without a position
		}
	}
	plan := relationships.PlanOrderedSet(op.Subject, op.Predicate, ordered, want,
		c.clock.take(c.core.Now(), len(want), floor), PositionStride)
	// An entry without a position goes, unless the plan puts its object (over it).
	var ops []batching.WriteOp
	for _, e := range unplaced {
		if !slices.Contains(want, e.Object) {
			ops = append(ops, batching.DeleteOp(c.core.Names.Relationships, e.PrimaryKey()))
		}
	}
	token := commit.NewToken()
	held := make(map[store.Key]bool, len(ordered))
	for _, e := range ordered {
		held[e.Object] = true
	}
	add := op
	add.Objects = nil
	var items []map[string]types.AttributeValue
	var put []store.Key // every object whose entry goes in again, those moved included
	for _, e := range plan.Puts {
		put = append(put, e.Object)
		if held[e.Object] {
			ops = append(ops, batching.PutOp(c.core.Names.Relationships, e.PrimaryKey(), c.tokenItem(e, token)))
			continue
		}
		add.Objects = append(add.Objects, e.Object)
		items = append(items, c.tokenItem(e, token))
	}
	for _, e := range plan.Deletes {
		ops = append(ops, batching.DeleteOp(c.core.Names.Relationships, e.PrimaryKey()))
	}
	created, err := c.writeChanges(ctx, op, ops, add.Objects, items, token)
	if err != nil {
		return err
	}
	// A moved object's entry is written anew too: a subject found missing has it
	// taken back with the others.
	return c.confirmSet(ctx, add, put, created, token, true)
}
