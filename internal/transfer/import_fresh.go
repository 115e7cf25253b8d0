// An exclusive import's new entities, written with BatchWriteItem.

package transfer

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// writeFresh writes the lines of ls whose entities are new, none of whose lists,
// sets or sequences are stored either, as the plain items of writes.Fresh through
// eng: every line's other items first, then its sequences, then the entities. An
// entity stored is so a whole one; an import cut off before leaves items that
// finding the entity missing and its partition of relationships not empty, the
// line's write again (one at a time) completes or replaces. It sets the fresh
// items of each line written and returns the other lines, to be written one at a
// time.
func (m *Mover) writeFresh(ctx context.Context, eng *batching.Engine, ls []*parsedLine) ([]*parsedLine, error) {
	var slow, cands []*parsedLine
	seen := make(map[store.Key]bool, len(ls))
	for _, pl := range ls {
		f, ok, err := m.writes.Fresh(pl.put)
		if !ok || err != nil || seen[pl.put.Key] { // the write one at a time says why
			slow = append(slow, pl)
			continue
		}
		seen[pl.put.Key] = true
		pl.fresh = &f
		cands = append(cands, pl)
	}
	free, err := m.unwritten(ctx, eng, cands)
	if err != nil {
		return nil, err
	}
	var fast []*parsedLine
	var items, entities []batching.WriteOp
	for i, pl := range cands {
		if !free[i] {
			pl.fresh = nil
			slow = append(slow, pl)
			continue
		}
		fast = append(fast, pl)
		items = append(items, pl.fresh.Items...)
		entities = append(entities, pl.fresh.Entity)
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

// unwritten reports, for each line of ls, whether nothing of its entity is
// stored: no entity item, and no relationships item in its subject's partition
// when it has lists or sets. One BatchGetItem for every 100 entities, and a Query
// of one item for each entity missing that has lists, in parallel.
func (m *Mover) unwritten(ctx context.Context, eng *batching.Engine, ls []*parsedLine) ([]bool, error) {
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
	free := make([]bool, len(ls))
	err = batching.Parallel(ctx, len(ls), m.concurrency, func(ctx context.Context, i int) error {
		if found[gets[i].ID] != nil {
			return nil
		}
		if !ls[i].fresh.Related {
			free[i] = true
			return nil
		}
		release, err := eng.Acquire(ctx)
		if err != nil {
			return err
		}
		defer release()
		related, err := m.hasRelated(ctx, ls[i].put.Key)
		free[i] = !related
		return err
	})
	return free, err
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
