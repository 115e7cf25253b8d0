package ryno

import (
	"context"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/relationships"
	"github.com/rynodb/rynodb/tables"
)

// AddRelationships appends to the subject's list under predicate the objects it does
// not hold yet, in order; objects already present, or repeated in objects, are added
// once. Up to 2*MaxConcurrency distinct objects are looked up one by one on the
// by-object index, in parallel with the query for the end of the list; for more, the
// list is read whole. Then the new entries are written in parallel batches.
func (c *Client) AddRelationships(ctx context.Context, subject Key, predicate string, objects ...Key) error {
	if err := validateList(subject, predicate, objects); err != nil || len(objects) == 0 {
		return err
	}
	highest, present, err := c.listState(ctx, subject, predicate, objects)
	if err != nil {
		return fmt.Errorf("ryno: add relationships %s -%s->: %w", subject, predicate, err)
	}
	plan, err := relationships.PlanAdd(relationships.Key(subject), predicate, highest, present, relKeys(objects))
	if err != nil {
		return err
	}
	return c.applyPlans(ctx, plan)
}

// RemoveRelationships deletes every entry of the subject's list under predicate that
// points at one of objects. Objects not in the list are ignored.
func (c *Client) RemoveRelationships(ctx context.Context, subject Key, predicate string, objects ...Key) error {
	if err := validateList(subject, predicate, objects); err != nil || len(objects) == 0 {
		return err
	}
	unique := distinctKeys(objects)
	if len(unique) > c.probeLimit() {
		list, err := c.readList(ctx, subject, predicate, true)
		if err != nil {
			return fmt.Errorf("ryno: remove relationships %s -%s->: %w", subject, predicate, err)
		}
		return c.applyPlans(ctx, relationships.PlanRemove(list, relKeys(objects)))
	}
	keys, err := c.edgesTo(ctx, subject, predicate, unique)
	if err != nil {
		return fmt.Errorf("ryno: remove relationships %s -%s->: %w", subject, predicate, err)
	}
	return c.writeEntries(ctx, nil, keys)
}

// ReplaceRelationships makes the subject's list under predicate exactly objects, in
// order; an object may appear more than once. It reads the list, then writes only
// the entries that change, in parallel batches. With no objects it clears the list.
func (c *Client) ReplaceRelationships(ctx context.Context, subject Key, predicate string, objects ...Key) error {
	if err := validateList(subject, predicate, objects); err != nil {
		return err
	}
	list, err := c.readList(ctx, subject, predicate, true)
	if err != nil {
		return fmt.Errorf("ryno: replace relationships %s -%s->: %w", subject, predicate, err)
	}
	return c.applyPlans(ctx, relationships.PlanReplace(relationships.Key(subject), predicate, list, relKeys(objects)))
}

// probeLimit is the most distinct objects looked up one by one on the by-object
// index: beyond it, reading the list costs fewer rounds.
func (c *Client) probeLimit() int { return 2 * c.opts.MaxConcurrency }

// readList returns the entries of subject under predicate (every predicate when
// empty), in key order. Plans are computed from consistent reads.
func (c *Client) readList(ctx context.Context, subject Key, predicate string, consistent bool) ([]relationships.Entry, error) {
	in := c.outgoingQuery(subject, predicate)
	in.ConsistentRead = aws.Bool(consistent)
	var entries []relationships.Entry
	err := c.queryPages(ctx, in, func(items []map[string]types.AttributeValue) error {
		for _, item := range items {
			e, err := relationships.FromItem(item)
			if err != nil {
				return fmt.Errorf("decode relationship entry: %w", err)
			}
			entries = append(entries, e)
		}
		return nil
	})
	return entries, err
}

// listState returns the highest position in the subject's list under predicate (-1
// when empty) and which of objects the list holds.
func (c *Client) listState(ctx context.Context, subject Key, predicate string, objects []Key) (int, []relationships.Key, error) {
	unique := distinctKeys(objects)
	if len(unique) > c.probeLimit() {
		list, err := c.readList(ctx, subject, predicate, true)
		if err != nil {
			return 0, nil, err
		}
		highest := -1
		for _, e := range list {
			highest = max(highest, e.Index)
		}
		return highest, relationships.Objects(list), nil
	}
	// One round: the end of the list, and one probe per object.
	highest, found := -1, make([]bool, len(unique))
	err := parallel(ctx, len(unique)+1, c.opts.MaxConcurrency, func(ctx context.Context, i int) error {
		var err error
		if i == 0 {
			highest, err = c.highestIndex(ctx, subject, predicate)
		} else {
			found[i-1], err = c.hasEdge(ctx, subject, predicate, unique[i-1])
		}
		return err
	})
	if err != nil {
		return 0, nil, err
	}
	var present []relationships.Key
	for i, ok := range found {
		if ok {
			present = append(present, relationships.Key(unique[i]))
		}
	}
	return highest, present, nil
}

// highestIndex returns the position of the last entry of the subject's list under
// predicate, or -1 when the list is empty.
func (c *Client) highestIndex(ctx context.Context, subject Key, predicate string) (int, error) {
	in := keysOnly(c.outgoingQuery(subject, predicate), tables.AttrIndex)
	in.ScanIndexForward = aws.Bool(false)
	in.ConsistentRead = aws.Bool(true)
	in.Limit = aws.Int32(1)
	out, err := c.api.Query(ctx, in)
	if err != nil || len(out.Items) == 0 {
		return -1, err
	}
	n, ok := out.Items[0][tables.AttrIndex].(*types.AttributeValueMemberN)
	if !ok {
		return -1, fmt.Errorf("relationship entry of %s has no %s number", subject, tables.AttrIndex)
	}
	index, err := strconv.Atoi(n.Value)
	if err != nil {
		return -1, fmt.Errorf("relationship entry of %s: %s is %q", subject, tables.AttrIndex, n.Value)
	}
	return index, nil
}

// hasEdge reports whether the subject's list under predicate holds object.
func (c *Client) hasEdge(ctx context.Context, subject Key, predicate string, object Key) (bool, error) {
	in := c.edgeQuery(subject, predicate, object)
	in.ConsistentRead = aws.Bool(true)
	in.Limit = aws.Int32(1)
	out, err := c.api.Query(ctx, in)
	if err != nil {
		return false, err
	}
	return len(out.Items) > 0, nil
}

// edgesTo returns the primary keys of the entries of the subject's list under
// predicate that point at one of objects, read through the by-object index in
// parallel.
func (c *Client) edgesTo(ctx context.Context, subject Key, predicate string, objects []Key) ([]map[string]types.AttributeValue, error) {
	found := make([][]map[string]types.AttributeValue, len(objects))
	err := parallel(ctx, len(objects), c.opts.MaxConcurrency, func(ctx context.Context, i int) error {
		in := c.edgeQuery(subject, predicate, objects[i])
		in.ConsistentRead = aws.Bool(true)
		return c.queryPages(ctx, in, func(items []map[string]types.AttributeValue) error {
			for _, item := range items {
				k, err := relationships.PrimaryKeyFromItem(item)
				if err != nil {
					return err
				}
				found[i] = append(found[i], k)
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	var keys []map[string]types.AttributeValue
	for _, ks := range found {
		keys = append(keys, ks...)
	}
	return keys, nil
}

// applyPlans writes the puts and deletes of plans in one parallel batch.
func (c *Client) applyPlans(ctx context.Context, plans ...relationships.Plan) error {
	return c.batch.write(ctx, relationshipOps(c.names.Relationships, plans...))
}

// writeEntries puts entries and deletes the entries with keys, in one parallel batch.
func (c *Client) writeEntries(ctx context.Context, puts []relationships.Entry, deletes []map[string]types.AttributeValue) error {
	return c.batch.write(ctx, entryOps(c.names.Relationships, puts, deletes))
}

// relationshipOps returns the writes of plans to table.
func relationshipOps(table string, plans ...relationships.Plan) []writeOp {
	var puts []relationships.Entry
	var deletes []map[string]types.AttributeValue
	for _, p := range plans {
		puts = append(puts, p.Puts...)
		for _, e := range p.Deletes {
			deletes = append(deletes, e.PrimaryKey())
		}
	}
	return entryOps(table, puts, deletes)
}

// entryOps returns the puts of entries and the deletes of keys in table. Deletes come
// first: should a key be in both, the put wins.
func entryOps(table string, puts []relationships.Entry, deletes []map[string]types.AttributeValue) []writeOp {
	ops := make([]writeOp, 0, len(puts)+len(deletes))
	for _, k := range deletes {
		ops = append(ops, deleteOp(table, k))
	}
	for _, e := range puts {
		ops = append(ops, putOp(table, e.PrimaryKey(), e.Item()))
	}
	return ops
}

func validateList(subject Key, predicate string, objects []Key) error {
	return relationships.Validate(relationships.Key(subject), predicate, relKeys(objects))
}

func relKeys(keys []Key) []relationships.Key {
	rk := make([]relationships.Key, len(keys))
	for i, k := range keys {
		rk[i] = relationships.Key(k)
	}
	return rk
}

func fromRelKeys(keys []relationships.Key) []Key {
	k := make([]Key, len(keys))
	for i, rk := range keys {
		k[i] = Key(rk)
	}
	return k
}

// distinctKeys returns keys without repetitions, in order of first appearance.
func distinctKeys(keys []Key) []Key {
	seen := make(map[Key]bool, len(keys))
	unique := make([]Key, 0, len(keys))
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			unique = append(unique, k)
		}
	}
	return unique
}
