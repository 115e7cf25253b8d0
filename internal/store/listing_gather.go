// Pages gathered from the shards of a listing: one Query of each in one round,
// merged in order, with one cursor.

package store

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/paging"
)

// queryGathered runs one page of q's shards: a Query of every shard not done, in
// parallel, each for one item more than r.Limit from where the cursor left it, and
// their items merged in SortKey order (see mergeShards). Items that come before
// the last item listed are skipped: written meanwhile behind where the listing
// stands, they would break its order, as a single Query from its cursor never
// returns them.
func (c *Core) queryGathered(ctx context.Context, q PageQuery, r PageRequest, cursors paging.Codec) ([]map[string]types.AttributeValue, string, error) {
	positions := make([]paging.Position, len(q.Shards))
	for i, sh := range q.Shards {
		positions[i] = sh.Position
	}
	starts, last, err := cursors.DecodeGathered(r.Cursor, positions)
	if err != nil {
		return nil, "", err
	}
	pages := make([]shardPage, len(q.Shards))
	err = batching.Parallel(ctx, len(q.Shards), len(q.Shards), func(ctx context.Context, i int) error {
		if starts[i].Done {
			return nil
		}
		items, last, err := c.queryFrom(ctx, q.Shards[i], r, starts[i].Key)
		pages[i] = shardPage{items: items, more: len(last) > 0, last: last}
		return err
	})
	if err != nil {
		return nil, "", err
	}
	sortValue := sortValueOf(q.SortKey)
	before := orderBy(q.SortKey, r.Descending)
	behind := func(item map[string]types.AttributeValue) bool {
		return last != "" && before(item, map[string]types.AttributeValue{q.SortKey[0]: AttrS(last)})
	}
	items, next := mergeShards(pages, starts, r.Limit, before, behind, func(i int, item map[string]types.AttributeValue) map[string]types.AttributeValue {
		return batching.Project(item, positions[i].Names())
	})
	if len(items) > 0 {
		last = sortValue(items[len(items)-1])
	}
	if len(q.Distinct) > 0 {
		items = distinct(items, q.Distinct)
	}
	cursor, err := cursors.EncodeGathered(next, last)
	return items, cursor, err
}

// distinct returns items without those whose key attributes names equal an
// earlier item's.
func distinct(items []map[string]types.AttributeValue, names []string) []map[string]types.AttributeValue {
	seen := make(map[string]bool, len(items))
	out := items[:0:0]
	for _, item := range items {
		id := batching.ItemID("", batching.Project(item, names))
		if !seen[id] {
			seen[id] = true
			out = append(out, item)
		}
	}
	return out
}

// shardPage is what the Query of one shard returned: its items in its order, and
// whether items follow them, from after last (its LastEvaluatedKey).
type shardPage struct {
	items []map[string]types.AttributeValue
	more  bool
	last  map[string]types.AttributeValue
}

// mergeShards returns up to limit items of pages, taking each time the first
// item left of a page that no other page's first item left comes before, so that
// each page's items keep their order; ties go to the lower shard. The items of a
// page that behind reports are passed over, as if taken, and not returned. It
// stops early at a page used up while items follow it, which may come before any
// item left. It returns the starts of the next page: after the last item taken
// from a shard (its key, by keyOf), or where DynamoDB stopped when all were, where
// it started when none was taken, or done once a shard is used up with no item
// following.
func mergeShards(pages []shardPage, starts []paging.Start, limit int,
	before func(a, b map[string]types.AttributeValue) bool, behind func(map[string]types.AttributeValue) bool,
	keyOf func(shard int, item map[string]types.AttributeValue) map[string]types.AttributeValue,
) ([]map[string]types.AttributeValue, []paging.Start) {
	taken := make([]int, len(pages))
	for i, p := range pages {
		for taken[i] < len(p.items) && behind(p.items[taken[i]]) {
			taken[i]++ // in a shard's order, what is behind comes first
		}
	}
	var items []map[string]types.AttributeValue
	for len(items) < limit {
		pick := -1
		for i, p := range pages {
			if starts[i].Done || taken[i] == len(p.items) {
				if !starts[i].Done && p.more {
					return items, nextStarts(pages, starts, taken, keyOf)
				}
				continue
			}
			if pick < 0 || before(p.items[taken[i]], pages[pick].items[taken[pick]]) {
				pick = i
			}
		}
		if pick < 0 {
			break
		}
		items = append(items, pages[pick].items[taken[pick]])
		taken[pick]++
	}
	return items, nextStarts(pages, starts, taken, keyOf)
}

// nextStarts returns where each shard's next page starts once taken of its items
// are.
func nextStarts(pages []shardPage, starts []paging.Start, taken []int,
	keyOf func(shard int, item map[string]types.AttributeValue) map[string]types.AttributeValue,
) []paging.Start {
	next := make([]paging.Start, len(pages))
	for i, p := range pages {
		switch {
		case starts[i].Done:
			next[i] = paging.Start{Done: true}
		case taken[i] == len(p.items) && !p.more:
			next[i] = paging.Start{Done: true}
		case taken[i] == len(p.items): // DynamoDB said where it stopped, maybe past no item
			next[i] = paging.Start{Key: keyOf(i, p.last)}
		case taken[i] > 0:
			next[i] = paging.Start{Key: keyOf(i, p.items[taken[i]-1])}
		default:
			next[i] = starts[i]
		}
	}
	return next
}

// sortValueOf returns the sort value of an item of a listing ordered by a string
// attribute, the first of names an item has.
func sortValueOf(names []string) func(item map[string]types.AttributeValue) string {
	return func(item map[string]types.AttributeValue) string {
		for _, name := range names {
			if v, err := stringOf(name, item); err == nil {
				return v
			}
		}
		return ""
	}
}

// orderBy returns whether an item comes before another in a listing ordered by
// a string attribute, the first of names an item has, descending or not.
func orderBy(names []string, descending bool) func(a, b map[string]types.AttributeValue) bool {
	value := sortValueOf(names)
	return func(a, b map[string]types.AttributeValue) bool {
		x, y := value(a), value(b)
		if descending {
			return x > y
		}
		return x < y
	}
}
