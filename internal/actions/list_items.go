package actions

import (
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

// NewListItems returns the puts that write ch, the first change of a list that has
// no head, no marker and no entry, as the plain items its transaction would leave:
// the head at version 1, the markers and the entries. It reports false for any
// other change, which only a transaction can write. Shards places the entries in
// the reverse index.
func NewListItems(table string, shards relationships.Shards, ch relationships.Change) ([]batching.WriteOp, bool) {
	if ch.Expect.Exists || len(ch.Deletes) > 0 {
		return nil, false
	}
	if ch.Empty() {
		return nil, true // nothing written: the list stays without a head
	}
	ops := make([]batching.WriteOp, 0, 1+len(ch.Markers)+len(ch.Puts))
	key := relationships.HeadPrimaryKey(ch.Subject, ch.Predicate)
	head := relationships.RawAttributes(ch.Subject, ch.Predicate)
	for name, v := range key {
		head[name] = v
	}
	head[schema.AttrVersion] = number(1)
	head[schema.AttrNext] = number(int64(ch.Next))
	head[schema.AttrCount] = number(int64(ch.Count))
	head[schema.AttrDigest] = Digest(ch.Digest)
	ops = append(ops, batching.PutOp(table, key, head))
	for _, mc := range ch.Markers {
		if mc.Keep || len(mc.Positions) == 0 || len(mc.Expect) > 0 {
			return nil, false
		}
		item := relationships.MarkerItem(ch.Subject, ch.Predicate, mc.Object, mc.Positions)
		ops = append(ops, batching.PutOp(table, relationships.MarkerPrimaryKey(ch.Subject, ch.Predicate, mc.Object), item))
	}
	return append(ops, RelationshipOps(table, shards, relationships.Plan{Puts: ch.Puts})...), true
}
