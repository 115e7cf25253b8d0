// The by-type listing of entities: one partition key of entities_by_type per type
// and scope, or the shards of a sharded type in entities_by_type_shard.

package store

import (
	"fmt"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/paging"
	"github.com/rynodb/rynodb/internal/schema"
)

// TypeShards is how a type's entities are listed: over Shards partition keys (at
// most one: the unsharded by-type index), and, while they move from another
// count, that count (1: unsharded; 0: none moving).
type TypeShards struct {
	Shards int
	Before int
}

// moving reports whether entities of the type may stand in another layout than
// Shards: a write must then remove the attributes of the other.
func (t TypeShards) moving() bool { return t.Shards > 1 || t.Before > 0 }

// layouts returns which partition keys a listing of the type reads: the
// unsharded one, and shard keys 0 to shards-1, for the layout of Shards and, while
// entities move, of Before. Shard keys do not depend on the count, so that a
// listing reads each key once whatever the counts.
func (t TypeShards) layouts() (unsharded bool, shards int) {
	for _, n := range []int{max(t.Shards, 1), t.Before} {
		switch {
		case n == 1:
			unsharded = true
		case n > 1:
			shards = max(shards, n)
		}
	}
	return unsharded, shards
}

// ByTypeLayout returns the attributes that list the entity k, updated at updated
// (FormatTime), among its type's entities (schema.ByTypeAttrs), and the names of
// the other layout's, which a write updating the item in place removes: none for a
// type that is neither sharded nor being resharded, whose items only ever had
// _updated.
func (c *Core) ByTypeLayout(k Key, updated string) (map[string]types.AttributeValue, []string) {
	t := c.TypeShards[k.Type]
	attrs, other := schema.ByTypeAttrs(k.Scope, k.Type, k.String(), updated, t.Shards)
	set := make(map[string]types.AttributeValue, len(attrs))
	for name, v := range attrs {
		set[name] = AttrS(v)
	}
	if !t.moving() {
		other = nil
	}
	return set, other
}

// UpdateByType adds to u the update that lists the entity k, updated at updated,
// in its type's layout (ByTypeLayout).
func (c *Core) UpdateByType(u expression.UpdateBuilder, k Key, updated string) expression.UpdateBuilder {
	set, remove := c.ByTypeLayout(k, updated)
	for _, name := range slices.Sorted(maps.Keys(set)) {
		u = u.Set(expression.Name(name), expression.Value(set[name]))
	}
	for _, name := range remove {
		u = u.Remove(expression.Name(name))
	}
	return u
}

// UpdatedOf returns the attribute of an entity item holding its update time:
// _shard_updated for an entity of a sharded type, _updated otherwise.
func UpdatedOf(item map[string]types.AttributeValue) types.AttributeValue {
	if v, ok := item[schema.AttrShardUpdated]; ok {
		return v
	}
	return item[schema.AttrUpdated]
}

// InByTypeLayout reports whether the entity item of k is listed as its type's
// layout lists it now: a write or a Reindex moves it otherwise.
func (c *Core) InByTypeLayout(k Key, item map[string]types.AttributeValue) bool {
	updated, _ := UpdatedOf(item).(*types.AttributeValueMemberS)
	if updated == nil {
		return true // nothing to list it by: no layout to move it to
	}
	want, other := c.ByTypeLayout(k, updated.Value)
	for name, v := range want {
		if s, ok := item[name].(*types.AttributeValueMemberS); !ok || s.Value != v.(*types.AttributeValueMemberS).Value {
			return false
		}
	}
	for _, name := range other {
		if _, ok := item[name]; ok {
			return false
		}
	}
	return true
}

// ByTypePage is the query of the entities of type typ in scope, through the
// by-type index; of each shard of the sharded by-type index, gathered by update
// time, when the type is sharded, and of both layouts, each entity once a page,
// while its entities move.
func (c *Core) ByTypePage(scope, typ string) (PageQuery, error) {
	if err := schema.ValidateScopeType(scope, typ); err != nil {
		return PageQuery{}, err
	}
	t := c.TypeShards[typ]
	unsharded, shards := t.layouts()
	if shards == 0 {
		return c.unshardedByTypePage(scope, typ), nil
	}
	if err := schema.ValidateKeyLength("scope and type", schema.ShardedScopeTypeKey(scope, typ, shards-1), schema.MaxPartitionKeyBytes); err != nil {
		return PageQuery{}, err
	}
	q := PageQuery{SortKey: []string{schema.AttrShardUpdated, schema.AttrUpdated}}
	if unsharded {
		q.Shards = append(q.Shards, c.unshardedByTypePage(scope, typ))
		q.Distinct = []string{schema.AttrID, schema.AttrScopeTypeKey}
	}
	for shard := range shards {
		q.Shards = append(q.Shards, c.byTypeShardPage(scope, typ, shard))
	}
	q.In, q.Position = q.Shards[0].In, q.Shards[0].Position
	q.Identity = fmt.Sprintf("%s\x00%t\x00%d", q.Shards[0].Identity, unsharded, shards)
	return q, nil
}

// unshardedByTypePage is the query of the entities of typ in scope listed in the
// by-type index.
func (c *Core) unshardedByTypePage(scope, typ string) PageQuery {
	stk := schema.ScopeTypeKey(scope, typ)
	return PageQuery{
		In:       KeyCondition(c.Names.Entities, c.Names.EntitiesByType, schema.AttrScopeTypeKey, stk),
		Position: byTypePosition(scope, typ),
		Identity: c.Names.EntitiesByType + "\x00" + stk,
	}
}

// byTypeShardPage is the query of the entities of typ in scope listed in shard of
// the sharded by-type index.
func (c *Core) byTypeShardPage(scope, typ string, shard int) PageQuery {
	key := schema.ShardedScopeTypeKey(scope, typ, shard)
	return PageQuery{
		In:       KeyCondition(c.Names.Entities, c.Names.EntitiesByTypeShard, schema.AttrTypeShard, key),
		Position: byTypeShardPosition(scope, typ, key),
		Identity: c.Names.EntitiesByTypeShard + "\x00" + key,
	}
}

// byTypeShardPosition locates the entities of a type in a scope in the shard of the
// sharded by-type index keyed key.
func byTypeShardPosition(scope, typ, key string) paging.Position {
	p := byTypePosition(scope, typ)
	updated := p.Attrs[2]
	updated.Name = schema.AttrShardUpdated
	p.Attrs = append(p.Attrs[:2:2], paging.Attr{Name: schema.AttrTypeShard, Fixed: key}, updated)
	return p
}
