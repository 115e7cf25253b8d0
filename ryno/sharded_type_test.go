package ryno

import (
	"strings"
	"testing"

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
