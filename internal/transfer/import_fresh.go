// An exclusive import's new entities, written with BatchWriteItem.

package transfer

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// writeFresh writes the lines of ls, of distinct entities that no other chunk
// writes meanwhile (see heldKeys), whose entities are not stored as the plain
// items of writes.Fresh through eng: every line's other items first, then its
// sequences, then the entities, so that an entity stored is a whole one. A line
// whose entity is missing but whose subject has relationship items (what an import
// cut off left, in part: the import is exclusive) has them deleted first. It sets
// the fresh items of each line written and returns the other lines, to be written
// one at a time.
func (m *Mover) writeFresh(ctx context.Context, eng *batching.Engine, ls []*parsedLine) ([]*parsedLine, error) {
	var slow, cands []*parsedLine
	for _, pl := range ls {
		f, ok, err := m.writes.Fresh(pl.put)
		if !ok || err != nil { // the write one at a time says why
			slow = append(slow, pl)
			continue
		}
		pl.fresh = &f
		cands = append(cands, pl)
	}
	states, err := m.unwritten(ctx, eng, cands)
	if err != nil {
		return nil, err
	}
	var fast []*parsedLine
	var left []store.Key
	var items, entities []batching.WriteOp
	for i, pl := range cands {
		switch states[i] {
		case stored:
			pl.fresh = nil
			slow = append(slow, pl)
			continue
		case leftOver:
			left = append(left, pl.put.Key)
		}
		fast = append(fast, pl)
		items = append(items, pl.fresh.Items...)
		entities = append(entities, pl.fresh.Entity)
	}
	if err := m.deleteRelated(ctx, eng, left); err != nil {
		return nil, err
	}
	if err := eng.Write(ctx, items); err != nil {
		return nil, err
	}
	err = batching.Parallel(ctx, len(fast), m.concurrency, func(ctx context.Context, i int) error {
		return m.restoreSequences(ctx, &fast[i].line)
	})
	if err != nil {
		return nil, err
	}
	if err := eng.Write(ctx, entities); err != nil {
		return nil, err
	}
	for _, pl := range fast {
		m.writes.Learn(pl.put)
	}
	return slow, nil
}

// lineState is what is stored of a line's entity.
type lineState int

const (
	missing  lineState = iota // nothing
	leftOver                  // no entity, but items of its lists, sets or sequences
	stored                    // the entity
)

// unwritten reports what is stored of the entity of each line of ls: one
// BatchGetItem for every 100 entities, and a Query of one item for each entity
// missing that has lists, in parallel.
func (m *Mover) unwritten(ctx context.Context, eng *batching.Engine, ls []*parsedLine) ([]lineState, error) {
	if len(ls) == 0 {
		return nil, nil
	}
	gets := make([]batching.GetOp, len(ls))
	for i, pl := range ls {
		gets[i] = batching.NewGetOp(pl.fresh.Entity.Table, pl.fresh.Entity.Key)
	}
	found, err := eng.Get(ctx, gets, batching.ReadOptions{Consistent: true, Projection: []string{schema.AttrVersion}})
	if err != nil {
		return nil, err
	}
	states := make([]lineState, len(ls))
	err = batching.Parallel(ctx, len(ls), m.concurrency, func(ctx context.Context, i int) error {
		if found[gets[i].ID] != nil {
			states[i] = stored
			return nil
		}
		if !ls[i].fresh.Related {
			return nil
		}
		release, err := eng.Acquire(ctx)
		if err != nil {
			return err
		}
		defer release()
		related, err := m.hasRelated(ctx, ls[i].put.Key)
		if related {
			states[i] = leftOver
		}
		return err
	})
	return states, err
}

// deleteRelated deletes every item of the relationships partitions of subjects,
// whose entities are missing: what an exclusive import cut off left of them.
func (m *Mover) deleteRelated(ctx context.Context, eng *batching.Engine, subjects []store.Key) error {
	var ops []batching.WriteOp
	var mu sync.Mutex
	err := batching.Parallel(ctx, len(subjects), m.concurrency, func(ctx context.Context, i int) error {
		in := store.KeyCondition(m.core.Names.Relationships, "", schema.AttrSubjectKey, subjects[i].String())
		in.ConsistentRead = aws.Bool(true)
		store.KeysOnly(in, schema.RelationshipKeyAttrs()...)
		return m.core.QueryPages(ctx, in, func(items []map[string]types.AttributeValue) error {
			mu.Lock()
			defer mu.Unlock()
			for _, item := range items {
				ops = append(ops, batching.DeleteOp(m.core.Names.Relationships, item))
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	return eng.Write(ctx, ops)
}

// hasRelated reports whether k's partition of the relationships table holds any
// item: a list, a set, a sequence, or what a write of them left.
func (m *Mover) hasRelated(ctx context.Context, k store.Key) (bool, error) {
	in := store.KeyCondition(m.core.Names.Relationships, "", schema.AttrSubjectKey, k.String())
	in.Limit, in.ConsistentRead = aws.Int32(1), aws.Bool(true)
	in.ProjectionExpression = aws.String("#pk")
	out, err := m.core.API.Query(ctx, in)
	if err != nil {
		return false, err
	}
	return len(out.Items) > 0, nil
}
