package ryno

import (
	"errors"
	"fmt"

	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// ShardedType spreads the entities of a type over several partition keys of the
// by-type listing. Every entity of one type in one scope is otherwise listed
// under one partition key of the entities_by_type index, sorted by update time:
// every write of such an entity writes that key twice (its old time out, its new
// in), and since the times only grow, DynamoDB cannot split it, so one type tops
// out near 500 updates a second. A sharded type's entities are listed instead in
// the entities_by_type_shard index, each under the shard its key hashes to;
// ListByType sends one Query per shard, in parallel, and merges them by update
// time: a page costs Shards queries in one round.
type ShardedType struct {
	// Type is the entity type, in every scope.
	Type string
	// Shards is how many partition keys the type's entities spread over: 2 to 64;
	// 0 or 1 lists them in entities_by_type, as an unsharded type. Every client
	// of the store must declare the same; changing it needs the type's entities
	// moved (see Resharding).
	Shards int
	// Resharding, while the type's entities move to Shards from another count, is
	// that count (1 for a type that was not sharded): ListByType then reads both
	// layouts, each entity once a page, and every write of an entity moves it.
	// Set it with the new Shards in every client, run Reindex for the type in
	// every scope, which moves the entities left, then remove it. 0, the default,
	// says no entity is moving.
	Resharding int
}

// sharded reports whether the client declares sharded types, whose entities
// hold their update time under another attribute.
func (c *Client) sharded() bool { return len(c.core.TypeShards) > 0 }

// typeShards validates sharded, the option named option, and returns it by type,
// as the store reads it.
func typeShards(option string, sharded []ShardedType) (map[string]store.TypeShards, error) {
	out := make(map[string]store.TypeShards, len(sharded))
	for i, st := range sharded {
		field := fmt.Sprintf("Options.%s[%d]", option, i)
		var v *ValidationError
		if err := schema.ValidateComponent("type", st.Type); errors.As(err, &v) {
			return nil, invalid(field+".Type", st.Type, v.Reason)
		}
		switch {
		case st.Shards < 0 || st.Shards > schema.MaxShards:
			return nil, invalid(field+".Shards", fmt.Sprint(st.Shards), fmt.Sprintf("must be 0 to %d", schema.MaxShards))
		case st.Resharding < 0 || st.Resharding > schema.MaxShards:
			return nil, invalid(field+".Resharding", fmt.Sprint(st.Resharding), fmt.Sprintf("must be 0 to %d", schema.MaxShards))
		}
		if _, dup := out[st.Type]; dup {
			return nil, invalid(field+".Type", st.Type, "is declared twice")
		}
		out[st.Type] = store.TypeShards{Shards: st.Shards, Before: st.Resharding}
	}
	return out, nil
}
