package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/paging"
)

// shardItems is one shard of a listing in memory: items in sort key order (ties
// in id order, as a GSI may hold them), read from after a key as Query reads.
type shardItems []map[string]types.AttributeValue

func (s shardItems) query(start map[string]types.AttributeValue, limit int, maxPage int) shardPage {
	from := 0
	if start != nil {
		from = slices.IndexFunc(s, func(item map[string]types.AttributeValue) bool { return sv(item, "id") == sv(start, "id") }) + 1
	}
	n := min(limit, len(s)-from, maxPage) // maxPage: DynamoDB's 1 MB stops a page early
	p := shardPage{items: s[from : from+n], more: from+n < len(s)}
	if p.more {
		p.last = start // where it stopped: after the last item returned
		if n > 0 {
			p.last = p.items[n-1]
		}
	}
	return p
}

func sv(item map[string]types.AttributeValue, name string) string {
	return item[name].(*types.AttributeValueMemberS).Value
}

func item(sk, id string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"sk": &types.AttributeValueMemberS{Value: sk}, "id": &types.AttributeValueMemberS{Value: id}}
}

// TestMergeShardsPagesThroughEveryItemOnceInOrder pages through random shards
// with random limits, some pages stopped early, while items are written between
// pages: every item there from the start comes exactly once, each shard's in
// their own order, and everything listed (new items too) in sort key order: those
// written behind the last item listed are passed over.
func TestMergeShardsPagesThroughEveryItemOnceInOrder(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 1))
		shards := make([]shardItems, 1+rng.IntN(6))
		var all []string
		for i := range shards {
			for j := range rng.IntN(30) {
				sk := fmt.Sprintf("v%02d", rng.IntN(20)) // ties across and within shards
				shards[i] = append(shards[i], item(sk, fmt.Sprintf("%d-%02d", i, j)))
			}
			slices.SortStableFunc(shards[i], func(a, b map[string]types.AttributeValue) int {
				if c := compare(sv(a, "sk"), sv(b, "sk")); c != 0 {
					return c
				}
				return compare(sv(a, "id"), sv(b, "id"))
			})
			for _, it := range shards[i] {
				all = append(all, sv(it, "id"))
			}
		}
		descending := rng.IntN(2) == 0
		order := func(a, b map[string]types.AttributeValue) int {
			c := compare(sv(a, "sk"), sv(b, "sk"))
			if c == 0 {
				c = compare(sv(a, "id"), sv(b, "id"))
			}
			if descending {
				return -c
			}
			return c
		}
		for _, s := range shards {
			slices.SortFunc(s, order)
		}
		starts := make([]paging.Start, len(shards))
		var got []map[string]types.AttributeValue
		last := ""
		before := orderBy([]string{"sk"}, descending)
		behind := func(it map[string]types.AttributeValue) bool {
			return last != "" && before(it, item(last, ""))
		}
		for pages := 0; ; pages++ {
			require.Less(t, pages, 1000, "seed %d: the listing ends", seed)
			if len(shards) > 0 && rng.IntN(3) == 0 { // a write meanwhile, anywhere
				i := rng.IntN(len(shards))
				shards[i] = append(shards[i], item(fmt.Sprintf("v%02d", rng.IntN(20)), fmt.Sprintf("n%d", pages)))
				slices.SortFunc(shards[i], order)
			}
			limit := 1 + rng.IntN(7)
			pg := make([]shardPage, len(shards))
			for i, s := range shards {
				if !starts[i].Done {
					pg[i] = s.query(starts[i].Key, limit+1, rng.IntN(10)) // at times none
				}
			}
			items, next := mergeShards(pg, starts, limit, before, behind, func(_ int, it map[string]types.AttributeValue) map[string]types.AttributeValue {
				return it
			})
			require.LessOrEqual(t, len(items), limit)
			got = append(got, items...)
			if len(items) > 0 {
				last = sv(items[len(items)-1], "sk")
			}
			starts = next
			if !slices.ContainsFunc(starts, func(s paging.Start) bool { return !s.Done }) {
				break
			}
		}
		var ids []string
		for _, it := range got {
			if id := sv(it, "id"); id[0] != 'n' {
				ids = append(ids, id)
			}
		}
		require.ElementsMatch(t, all, ids, "seed %d: every item exactly once", seed)
		for i := 1; i < len(got); i++ {
			a, b := sv(got[i-1], "sk"), sv(got[i], "sk")
			require.True(t, a == b || (a < b) != descending, "seed %d: in order: %s then %s", seed, a, b)
		}
		for i := range shards { // each shard's items in the shard's order
			var mine []string
			for _, id := range ids {
				if id[:len(fmt.Sprint(i))+1] == fmt.Sprint(i)+"-" {
					mine = append(mine, id)
				}
			}
			var want []string
			for _, it := range shards[i] {
				if id := sv(it, "id"); id[0] != 'n' {
					want = append(want, id)
				}
			}
			require.Equal(t, want, mine, "seed %d shard %d", seed, i)
		}
	}
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
