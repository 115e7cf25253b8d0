// What a sweep reads: the references to an entity, the parts of the sweep they
// make, and those parts read again when a list moved under them.

package deletes

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
	"github.com/rynodb/rynodb/internal/store"
)

// refreshPart reads the entries of another subject's list that point at the
// object whose entries p deletes (consistently, through the by-object index) and
// that object's marker, and makes p delete every one of them, within room actions.
// A list whose marker disagrees with its entries (written before markers, or left
// damaged) is rebuilt under a lease first. No entries means the list no longer holds
// the object. Of more entries than room allows, p deletes the first that fit and
// takes them out of the marker.
func (d *Deleter) refreshPart(ctx context.Context, p *Part, room int) error {
	for rebuilt := false; ; rebuilt = true {
		ch := p.List
		object := ch.Deletes[0].Object
		entries, marker, err := d.readEdges(ctx, ch.Subject, ch.Predicate, object)
		if err != nil {
			return err
		}
		positions := make([]int, len(entries))
		for i, e := range entries {
			positions[i] = e.Index
		}
		switch {
		case !slices.Equal(positions, marker.Positions) && !rebuilt:
			h, err := d.lists.ReadHead(ctx, ch.Subject, ch.Predicate)
			if err != nil {
				return err
			}
			if err := d.finishList(ctx, p, h); err != nil || p.List == nil {
				return err
			}
			continue
		case len(entries) == 0:
			p.List, p.Deletes, p.Partial = nil, nil, false
		case len(entries)+2 > room:
			fresh := incomingChange(entries[:max(room-2, 1)])
			p.List, p.Partial = &fresh, true
		default:
			fresh := incomingChange(entries)
			p.List, p.Partial = &fresh, false
		}
		return nil
	}
}

// dropHeadless makes every list part of parts whose list has no head delete its
// entries alone, reading the heads in one BatchGetItem.
func (d *Deleter) dropHeadless(ctx context.Context, parts []Part) error {
	var ops []batching.GetOp
	var owners []int
	for i, p := range parts {
		if p.List != nil {
			ops = append(ops, batching.NewGetOp(d.core.Names.Relationships, relationships.HeadPrimaryKey(p.List.Subject, p.List.Predicate)))
			owners = append(owners, i)
		}
	}
	if len(ops) == 0 {
		return nil
	}
	found, err := d.core.Batch.Get(ctx, ops, batching.ReadOptions{Consistent: true})
	if err != nil {
		return err
	}
	for j, op := range ops {
		if _, ok := found[op.ID]; !ok {
			p := &parts[owners[j]]
			d.deleteAlone(p)
		}
	}
	return nil
}

// refreshParts refreshes every list part of parts in parallel, each within the
// actions it takes now, so that the transaction holding them stays within bounds.
func (d *Deleter) refreshParts(ctx context.Context, parts []Part) error {
	return batching.Parallel(ctx, len(parts), d.core.MaxConcurrency, func(ctx context.Context, i int) error {
		if parts[i].List == nil {
			return nil
		}
		return d.refreshPart(ctx, &parts[i], parts[i].Actions())
	})
}

// finishList finishes and rebuilds the other subject's list whose entries p deletes,
// whose head is h, under a lease. When that subject no longer exists either, its own
// Delete (or Check) sweeps its list: p deletes the entries it has alone.
func (d *Deleter) finishList(ctx context.Context, p *Part, h relationships.Head) error {
	_, err := d.lists.WriteListLeased(ctx, nil, h)
	switch {
	case errors.Is(err, errs.ErrNotFound):
		d.deleteAlone(p)
		return nil
	case err != nil:
		return errs.Wrap(err, "finishing a list pointing at the entity")
	}
	return nil
}

// deleteAlone makes p delete its list's entries without the list's head or marker:
// the list has no head (written before heads existed), or its subject is gone.
func (d *Deleter) deleteAlone(p *Part) {
	p.Deletes, p.List = actions.RelationshipOps(d.core.Names.Relationships, nil, relationships.Plan{Deletes: p.List.Deletes}), nil
}

// readEdges reads the entries of subject's list under predicate that point at
// object, in position order, and object's marker, consistently.
func (d *Deleter) readEdges(ctx context.Context, subject store.Key, predicate string, object store.Key) ([]relationships.Entry, relationships.Marker, error) {
	var keys []batching.GetOp
	var marker map[string]types.AttributeValue
	err := batching.Parallel(ctx, 2, 2, func(ctx context.Context, i int) error {
		if i == 1 {
			var err error
			marker, err = d.core.GetRelationshipItem(ctx, relationships.MarkerPrimaryKey(subject, predicate, object))
			return err
		}
		in := d.core.EdgeQuery(subject, predicate, object)
		in.ConsistentRead = aws.Bool(true)
		return d.core.QueryPages(ctx, in, func(items []map[string]types.AttributeValue) error {
			for _, item := range items {
				keys = append(keys, batching.NewGetOp(d.core.Names.Relationships, batching.Project(item, schema.RelationshipKeyAttrs())))
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
	items, err := d.core.Batch.Get(ctx, keys, batching.ReadOptions{Consistent: true})
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
	parts func(items []map[string]types.AttributeValue) []Part
}

// references returns the queries for what refers to k: its index entries and its
// partition of the relationship entries table (consistent reads of the tables), and
// the entries pointing at it (through the reverse index, or each of its shards,
// which project them whole).
func (d *Deleter) references(k store.Key) ([]reference, error) {
	relKey := schema.RelationshipKeyAttrs()
	partition := store.KeyCondition(d.core.Names.Relationships, "", schema.AttrSubjectKey, k.String())
	partition.ConsistentRead = aws.Bool(true)
	own := func(items []map[string]types.AttributeValue) []Part {
		var p Part
		for _, item := range items {
			switch {
			case store.InSet(item):
				p.Fenced = append(p.Fenced, fenceOf(item))
			case store.IsHead(item):
				p.Heads = append(p.Heads, store.OwnHeadOf(item))
			default:
				p.Deletes = append(p.Deletes, batching.DeleteOp(d.core.Names.Relationships, batching.Project(item, relKey)))
			}
		}
		if p.Actions() == 0 {
			return nil
		}
		return []Part{p}
	}
	refs := []reference{
		{store.KeysOnly(d.core.IndexEntriesQuery(k), append(schema.IndexEntryKeyAttrs(), entryNames...)...), d.indexParts},
		{store.KeysOnly(partition, append(slices.Clone(relKey), schema.AttrToken, schema.AttrPredicateObjectKey, schema.AttrVersion)...), own},
	}
	incoming, err := d.core.IncomingQueries(k)
	for _, in := range incoming {
		refs = append(refs, reference{in, func(items []map[string]types.AttributeValue) []Part { return d.incomingParts(k, items) }})
	}
	return refs, err
}

// indexParts deletes the entity's index entries, and releases the claims of those of
// unique indexes.
func (d *Deleter) indexParts(items []map[string]types.AttributeValue) []Part {
	if len(items) == 0 {
		return nil
	}
	var p Part
	for _, item := range items {
		p.Deletes = append(p.Deletes, batching.DeleteOp(d.core.Names.IndexEntries, batching.Project(item, schema.IndexEntryKeyAttrs())))
		if e, err := indexentries.FromItem(item); err == nil && d.core.Indexes.Unique(e.Type, e.IndexName) {
			p.Releases = append(p.Releases, indexentries.ClaimOf(e))
		}
	}
	return []Part{p}
}

// incomingParts groups entries pointing at the entity k by the list holding them.
// Entries of sets, which keep no head or marker, and malformed entries are deleted
// alone. Entries of k's own lists (an entity pointing at itself) are left to the
// sweep of its partition: one transaction may not delete an item twice.
func (d *Deleter) incomingParts(k store.Key, items []map[string]types.AttributeValue) []Part {
	byList := map[string][]relationships.Entry{}
	var order []string
	var alone Part
	for _, item := range items {
		e, err := relationships.FromItem(item)
		switch {
		case err == nil && e.Subject == k:
			continue
		case err == nil && e.InSet:
			alone.Fenced = append(alone.Fenced, fenceOf(item))
			continue
		case err != nil:
			alone.Deletes = append(alone.Deletes, batching.DeleteOp(d.core.Names.Relationships, batching.Project(item, schema.RelationshipKeyAttrs())))
			continue
		}
		id := e.Subject.String() + "\x00" + e.Predicate
		if _, ok := byList[id]; !ok {
			order = append(order, id)
		}
		byList[id] = append(byList[id], e)
	}
	var parts []Part
	if alone.Actions() > 0 {
		parts = append(parts, alone)
	}
	for _, id := range order {
		ch := incomingChange(byList[id])
		parts = append(parts, Part{List: &ch})
	}
	return parts
}

// firstPages reads the first page of each reference in parallel.
func (d *Deleter) firstPages(ctx context.Context, refs []reference) ([]*dynamodb.QueryOutput, error) {
	out := make([]*dynamodb.QueryOutput, len(refs))
	err := batching.Parallel(ctx, len(refs), len(refs), func(ctx context.Context, i int) error {
		var err error
		out[i], err = d.core.API.Query(ctx, refs[i].query)
		return err
	})
	return out, err
}
