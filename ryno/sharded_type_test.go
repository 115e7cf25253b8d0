package ryno

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/store"
)

func TestNewRefusesInvalidShardedTypes(t *testing.T) {
	tests := []struct {
		name    string
		sharded []ShardedType
		field   string
	}{
		{"no type", []ShardedType{{Shards: 4}}, "Options.ShardedTypes[0].Type"},
		{"a type with a control character", []ShardedType{{Type: "tic\x00ket", Shards: 4}}, "Options.ShardedTypes[0].Type"},
		{"too many shards", []ShardedType{{Type: "ticket", Shards: 65}}, "Options.ShardedTypes[0].Shards"},
		{"negative shards", []ShardedType{{Type: "ticket", Shards: -1}}, "Options.ShardedTypes[0].Shards"},
		{"resharding from too many", []ShardedType{{Type: "ticket", Shards: 4, Resharding: 65}}, "Options.ShardedTypes[0].Resharding"},
		{"a type twice", []ShardedType{{Type: "ticket", Shards: 4}, {Type: "ticket", Shards: 8}}, "Options.ShardedTypes[1].Type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := New(&nilAPI{}, Options{TablePrefix: "app", ShardedTypes: tt.sharded})
			require.Nil(t, db)
			requireInvalidField(t, err, tt.field)
		})
		t.Run(tt.name+" incoming", func(t *testing.T) {
			db, err := New(&nilAPI{}, Options{TablePrefix: "app", ShardedIncoming: tt.sharded})
			require.Nil(t, db)
			requireInvalidField(t, err, strings.Replace(tt.field, "ShardedTypes", "ShardedIncoming", 1))
		})
	}
	db, err := New(&nilAPI{}, Options{TablePrefix: "app", ShardedTypes: []ShardedType{{Type: "ticket", Shards: 8, Resharding: 1}, {Type: "note", Shards: 64}}})
	require.NoError(t, err)
	require.Equal(t, map[string]store.TypeShards{"ticket": {Shards: 8, Before: 1}, "note": {Shards: 64}}, db.core.TypeShards)
	require.True(t, db.sharded())

	db, err = New(&nilAPI{}, Options{TablePrefix: "app", ShardedIncoming: []ShardedType{{Type: "tag", Shards: 16}, {Type: "person", Shards: 1, Resharding: 8}}})
	require.NoError(t, err)
	require.Equal(t, map[string]store.TypeShards{"tag": {Shards: 16}, "person": {Shards: 1, Before: 8}}, db.core.IncomingShards)
	require.Equal(t, relationships.Shards{"tag": 16}, db.core.Incoming, "entries are written sharded for tag only")
	require.False(t, db.sharded(), "entities keep _updated")
}

// An entity of a sharded type holds its update time in _shard_updated: it reads
// as Updated, as _updated does, for readers and stream consumers alike.
func TestEntityFromItemReadsTheUpdateTimeOfEitherLayout(t *testing.T) {
	const at = "2026-12-06T10:11:12.345Z"
	want, err := time.Parse(time.RFC3339Nano, at)
	require.NoError(t, err)
	for _, attr := range []string{"_updated", "_shard_updated"} {
		item := map[string]types.AttributeValue{
			"_id": &types.AttributeValueMemberS{Value: "t1"}, "_scope": &types.AttributeValueMemberS{Value: "acme"},
			"_type": &types.AttributeValueMemberS{Value: "ticket"}, "_scope_type_key": &types.AttributeValueMemberS{Value: "acme:ticket"},
			"_created": &types.AttributeValueMemberS{Value: at}, attr: &types.AttributeValueMemberS{Value: at},
			"_type_shard": &types.AttributeValueMemberS{Value: "acme:ticket:3"},
			"_version":    &types.AttributeValueMemberN{Value: "1"}, "title": &types.AttributeValueMemberS{Value: "x"},
		}
		e, err := EntityFromItem(item)
		require.NoError(t, err, attr)
		require.True(t, want.Equal(e.Updated), "%s: %v", attr, e.Updated)
		require.Equal(t, map[string]any{"title": "x"}, e.Attributes, "%s: the store's attributes stay out", attr)
	}
}
