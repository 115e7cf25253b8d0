// What a sweep reads: the references to an entity, the parts of the sweep they
// make, and those parts read again when a list moved under them.

package store

import (
	"context"
	"errors"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/sweep"
)

// refreshPart reads the entries of another subject's list that point at the
// object whose entries p deletes (consistently, through the by-object index) and
// that object's marker, and makes p delete every one of them, within room actions.
// A list whose marker disagrees with its entries (written before markers, or left
// damaged) is rebuilt under a lease first. No entries means the list no longer holds
// the object. Of more entries than room allows, p deletes the first that fit and
// takes them out of the marker.
func (c *Core) refreshPart(ctx context.Context, p *sweep.Part, room int) error {
	for rebuilt := false; ; rebuilt = true {
		ch := p.List
		object := ch.Deletes[0].Object
		entries, marker, err := c.readEdges(ctx, ch.Subject, ch.Predicate, object)
		if err != nil {
			return err
		}
		positions := make([]int, len(entries))
		for i, e := range entries {
			positions[i] = e.Index
		}
		switch {
		case !slices.Equal(positions, marker.Positions) && !rebuilt:
			h, err := c.ReadHead(ctx, ch.Subject, ch.Predicate)
			if err != nil {
				return err
			}
			if err := c.finishList(ctx, p, h); err != nil || p.List == nil {
				return err
			}
			continue
		case len(entries) == 0:
			p.List, p.Deletes, p.Partial = nil, nil, false
		case len(entries)+2 > room:
			fresh := sweep.IncomingChange(entries[:max(room-2, 1)])
			p.List, p.Partial = &fresh, true
		default:
			fresh := sweep.IncomingChange(entries)
			p.List, p.Partial = &fresh, false
		}
		return nil
	}
}

// dropHeadless makes every list part of parts whose list has no head delete its
// entries alone, reading the heads in one BatchGetItem.
func (c *Core) dropHeadless(ctx context.Context, parts []sweep.Part) error {
	var ops []batching.GetOp
	var owners []int
	for i, p := range parts {
		if p.List != nil {
			ops = append(ops, batching.NewGetOp(c.Names.Relationships, relationships.HeadPrimaryKey(p.List.Subject, p.List.Predicate)))
			owners = append(owners, i)
		}
	}
	if len(ops) == 0 {
		return nil
	}
	found, err := c.Batch.Get(ctx, ops, batching.ReadOptions{Consistent: true})
	if err != nil {
		return err
	}
	for j, op := range ops {
		if _, ok := found[op.ID]; !ok {
			p := &parts[owners[j]]
			c.deleteAlone(p)
		}
	}
	return nil
}

// refreshParts refreshes every list part of parts in parallel, each within the
// actions it takes now, so that the transaction holding them stays within bounds.
func (c *Core) refreshParts(ctx context.Context, parts []sweep.Part) error {
	return batching.Parallel(ctx, len(parts), c.MaxConcurrency, func(ctx context.Context, i int) error {
		if parts[i].List == nil {
			return nil
		}
		return c.refreshPart(ctx, &parts[i], parts[i].Actions())
	})
}

// finishList finishes and rebuilds the other subject's list whose entries p deletes,
// whose head is h, under a lease. When that subject no longer exists either, its own
// Delete (or Check) sweeps its list: p deletes the entries it has alone.
func (c *Core) finishList(ctx context.Context, p *sweep.Part, h relationships.Head) error {
	_, err := c.WriteListLeased(ctx, nil, h)
	switch {
	case errors.Is(err, errs.ErrNotFound):
		c.deleteAlone(p)
		return nil
	case err != nil:
		return errs.Wrap(err, "finishing a list pointing at the entity")
	}
	return nil
}

// deleteAlone makes p delete its list's entries without the list's head or marker:
// the list has no head (written before heads existed), or its subject is gone.
func (c *Core) deleteAlone(p *sweep.Part) {
	p.Deletes, p.List = actions.RelationshipOps(c.Names.Relationships, relationships.Plan{Deletes: p.List.Deletes}), nil
}

// readEdges reads the entries of subject's list under predicate that point at
// object, in position order, and object's marker, consistently.
func (c *Core) readEdges(ctx context.Context, subject Key, predicate string, object Key) ([]relationships.Entry, relationships.Marker, error) {
	var keys []batching.GetOp
	var marker map[string]types.AttributeValue
	err := batching.Parallel(ctx, 2, 2, func(ctx context.Context, i int) error {
		if i == 1 {
			var err error
			marker, err = c.GetRelationshipItem(ctx, relationships.MarkerPrimaryKey(subject, predicate, object))
			return err
		}
		in := c.EdgeQuery(subject, predicate, object)
		in.ConsistentRead = aws.Bool(true)
		return c.QueryPages(ctx, in, func(items []map[string]types.AttributeValue) error {
			for _, item := range items {
				keys = append(keys, batching.NewGetOp(c.Names.Relationships, batching.Project(item, schema.RelationshipKeyAttrs())))
			}
			return nil
		})

	})
	if err != nil {
		return nil, relationships.Marker{}, err
	}
	m, err := relationships.MarkerFromItem(object, marker)
	if err != nil {
		return nil, m, err
	}
	items, err := c.Batch.Get(ctx, keys, batching.ReadOptions{Consistent: true})
	if err != nil {
		return nil, m, err
	}
	var entries []relationships.Entry
	for _, k := range keys {
		if item, ok := items[k.ID]; ok {
			e, err := relationships.FromItem(item)
			if err != nil {
				return nil, m, err
			}
			entries = append(entries, e)
		}
	}
	slices.SortFunc(entries, func(a, b relationships.Entry) int { return a.Index - b.Index })
	return entries, m, nil
}

// reference is a query for what to delete with an entity.
type reference struct {
	query *dynamodb.QueryInput
	parts func(items []map[string]types.AttributeValue) []sweep.Part
}

// references returns the queries for what refers to k: its index entries and its
// partition of the relationship entries table (consistent reads of the tables), and
// the entries pointing at it (through the reverse index, which projects them whole).
func (c *Core) references(k Key) []reference {
	relKey := schema.RelationshipKeyAttrs()
	partition := KeyCondition(c.Names.Relationships, "", schema.AttrSubjectKey, k.String())
	partition.ConsistentRead = aws.Bool(true)
	own := func(items []map[string]types.AttributeValue) []sweep.Part {
		var p sweep.Part
		for _, item := range items {
			switch {
			case InSet(item):
				p.Fenced = append(p.Fenced, sweep.FenceOf(item))
			case isHead(item):
				p.Heads = append(p.Heads, sweep.OwnHeadOf(item))
			default:
				p.Deletes = append(p.Deletes, batching.DeleteOp(c.Names.Relationships, batching.Project(item, relKey)))
			}
		}
		if p.Actions() == 0 {
			return nil
		}
		return []sweep.Part{p}
	}
	return []reference{
		{KeysOnly(c.IndexEntriesQuery(k), append(schema.IndexEntryKeyAttrs(), entryNames...)...), c.indexParts},
		{KeysOnly(partition, append(slices.Clone(relKey), schema.AttrToken, schema.AttrPredicateObjectKey, schema.AttrVersion)...), own},
		{c.IncomingQuery(k), func(items []map[string]types.AttributeValue) []sweep.Part { return c.incomingParts(k, items) }},
	}
}

// indexParts deletes the entity's index entries, and releases the claims of those of
// unique indexes.
func (c *Core) indexParts(items []map[string]types.AttributeValue) []sweep.Part {
	if len(items) == 0 {
		return nil
	}
	var p sweep.Part
	for _, item := range items {
		p.Deletes = append(p.Deletes, batching.DeleteOp(c.Names.IndexEntries, batching.Project(item, schema.IndexEntryKeyAttrs())))
		if e, err := indexentries.FromItem(item); err == nil && c.Indexes.Unique(e.Type, e.IndexName) {
			p.Releases = append(p.Releases, indexentries.ClaimOf(e))
		}
	}
	return []sweep.Part{p}
}

// incomingParts groups entries pointing at the entity k by the list holding them.
// Entries of sets, which keep no head or marker, and malformed entries are deleted
// alone. Entries of k's own lists (an entity pointing at itself) are left to the
// sweep of its partition: one transaction may not delete an item twice.
func (c *Core) incomingParts(k Key, items []map[string]types.AttributeValue) []sweep.Part {
	byList := map[string][]relationships.Entry{}
	var order []string
	var alone sweep.Part
	for _, item := range items {
		e, err := relationships.FromItem(item)
		switch {
		case err == nil && e.Subject == k:
			continue
		case err == nil && e.InSet:
			alone.Fenced = append(alone.Fenced, sweep.FenceOf(item))
			continue
		case err != nil:
			alone.Deletes = append(alone.Deletes, batching.DeleteOp(c.Names.Relationships, batching.Project(item, schema.RelationshipKeyAttrs())))
			continue
		}
		id := e.Subject.String() + "\x00" + e.Predicate
		if _, ok := byList[id]; !ok {
			order = append(order, id)
		}
		byList[id] = append(byList[id], e)
	}
	var parts []sweep.Part
	if alone.Actions() > 0 {
		parts = append(parts, alone)
	}
	for _, id := range order {
		ch := sweep.IncomingChange(byList[id])
		parts = append(parts, sweep.Part{List: &ch})
	}
	return parts
}

// firstPages reads the first page of each reference in parallel.
func (c *Core) firstPages(ctx context.Context, refs []reference) ([]*dynamodb.QueryOutput, error) {
	out := make([]*dynamodb.QueryOutput, len(refs))
	err := batching.Parallel(ctx, len(refs), len(refs), func(ctx context.Context, i int) error {
		var err error
		out[i], err = c.API.Query(ctx, refs[i].query)
		return err
	})
	return out, err
}
