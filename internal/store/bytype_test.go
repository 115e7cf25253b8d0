package store

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/schema"
)

func TestTypeShardsLayouts(t *testing.T) {
	tests := []struct {
		shards, before int
		unsharded      bool
		keys           int
	}{
		{0, 0, true, 0},
		{1, 0, true, 0},
		{1, 1, true, 0},
		{4, 0, false, 4},
		{4, 1, true, 4},
		{1, 4, true, 4},
		{3, 5, false, 5}, // the first three keys are those of both
		{5, 3, false, 5},
		{4, 4, false, 4},
	}
	for _, tt := range tests {
		unsharded, keys := TypeShards{Shards: tt.shards, Before: tt.before}.layouts()
		require.Equal(t, tt.unsharded, unsharded, "%d from %d", tt.shards, tt.before)
		require.Equal(t, tt.keys, keys, "%d from %d", tt.shards, tt.before)
	}
}

func TestByTypeLayout(t *testing.T) {
	names, err := schema.NewNames("p")
	require.NoError(t, err)
	c := NewCore(nil, names, nil, Config{TypeShards: map[string]TypeShards{
		"ticket": {Shards: 8}, "note": {Shards: 1, Before: 8},
	}})
	const at = "2026-12-06T10:00:00.000Z"
	tests := []struct {
		name   string
		k      Key
		set    []string
		remove []string
	}{
		{"an unsharded type", Key{Scope: "s", Type: "user", ID: "1"}, []string{schema.AttrUpdated}, nil},
		{"a sharded type", Key{Scope: "s", Type: "ticket", ID: "1"}, []string{schema.AttrShardUpdated, schema.AttrTypeShard}, []string{schema.AttrUpdated}},
		{"a type moving back to unsharded", Key{Scope: "s", Type: "note", ID: "1"}, []string{schema.AttrUpdated}, []string{schema.AttrTypeShard, schema.AttrShardUpdated}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, remove := c.ByTypeLayout(tt.k, at)
			require.ElementsMatch(t, tt.set, keysOf(set))
			require.Equal(t, tt.remove, remove)
			item := map[string]types.AttributeValue{}
			for name, v := range set {
				item[name] = v
			}
			require.True(t, c.InByTypeLayout(tt.k, item))
			require.Equal(t, at, UpdatedOf(item).(*types.AttributeValueMemberS).Value)
		})
	}

	k := Key{Scope: "s", Type: "ticket", ID: "1"}
	set, _ := c.ByTypeLayout(k, at)
	shard := set[schema.AttrTypeShard].(*types.AttributeValueMemberS).Value
	require.Equal(t, schema.ShardedScopeTypeKey("s", "ticket", schema.Shard(k.String(), 8)), shard)
	old := map[string]types.AttributeValue{schema.AttrUpdated: AttrS(at)}
	require.False(t, c.InByTypeLayout(k, old), "an item written unsharded moves")
	old[schema.AttrTypeShard], old[schema.AttrShardUpdated] = set[schema.AttrTypeShard], AttrS(at)
	require.False(t, c.InByTypeLayout(k, old), "an item in both layouts moves")
	delete(old, schema.AttrUpdated)
	old[schema.AttrTypeShard] = AttrS("s:ticket:99")
	require.False(t, c.InByTypeLayout(k, old), "an item in another shard moves")
}

func TestByTypePageGathersEveryShardOnce(t *testing.T) {
	names, err := schema.NewNames("p")
	require.NoError(t, err)
	tests := []struct {
		shards   TypeShards
		queries  []string // the partition keys queried, in order
		distinct bool
	}{
		{TypeShards{}, nil, false},
		{TypeShards{Shards: 3}, []string{"s:ticket:0", "s:ticket:1", "s:ticket:2"}, false},
		{TypeShards{Shards: 2, Before: 1}, []string{"s:ticket", "s:ticket:0", "s:ticket:1"}, true},
		{TypeShards{Shards: 2, Before: 3}, []string{"s:ticket:0", "s:ticket:1", "s:ticket:2"}, false},
	}
	identities := map[string]string{} // the partition keys read, by identity
	for _, tt := range tests {
		c := NewCore(nil, names, nil, Config{TypeShards: map[string]TypeShards{"ticket": tt.shards}})
		q, err := c.ByTypePage("s", "ticket")
		require.NoError(t, err)
		if read, ok := identities[q.Identity]; ok {
			require.Equal(t, read, fmt.Sprint(tt.queries), "a cursor goes on only where the same keys are read")
		}
		identities[q.Identity] = fmt.Sprint(tt.queries)
		if tt.queries == nil {
			require.Empty(t, q.Shards)
			require.Equal(t, names.EntitiesByType, aws.ToString(q.In.IndexName))
			continue
		}
		var keys []string
		for _, sh := range q.Shards {
			keys = append(keys, sh.In.ExpressionAttributeValues[":pk"].(*types.AttributeValueMemberS).Value)
		}
		require.Equal(t, tt.queries, keys)
		require.Equal(t, tt.distinct, q.Distinct != nil)
		require.Equal(t, []string{schema.AttrShardUpdated, schema.AttrUpdated}, q.SortKey)
	}
}

func keysOf(m map[string]types.AttributeValue) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
