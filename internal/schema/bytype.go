package schema

// ByTypeAttrs returns the attributes that list an entity of typ in scope whose
// _subject_key is subjectKey, updated at updated (FormatTime), among the entities
// of its type: _updated, keying the by-type index, when its type has at most one
// shard; otherwise _type_shard and _shard_updated, keying the sharded by-type index
// in the shard the entity hashes to. Other names the attributes of the other
// layout, which a write that updates the item in place removes.
func ByTypeAttrs(scope, typ, subjectKey, updated string, shards int) (set map[string]string, other []string) {
	if shards <= 1 {
		return map[string]string{AttrUpdated: updated}, []string{AttrTypeShard, AttrShardUpdated}
	}
	return map[string]string{
		AttrTypeShard:    ShardedScopeTypeKey(scope, typ, Shard(subjectKey, shards)),
		AttrShardUpdated: updated,
	}, []string{AttrUpdated}
}
