package store

import (
	"slices"

	"github.com/rynodb/rynodb/internal/schema"
)

// judged are the store's attributes of an entity item that a reader needs whatever
// it projects: the key and type it decodes the entity by, the timestamps and version
// it returns, and what tells it the entity is gone (a tombstone, an expiry).
var judged = []string{
	schema.AttrID, schema.AttrScopeTypeKey, schema.AttrScope, schema.AttrType,
	schema.AttrCreated, schema.AttrUpdated, schema.AttrVersion,
	schema.AttrExpires, schema.AttrDeleting,
}

// EntityProjection returns the attributes a read of entity items in part names: the
// user's attributes, _meta with meta, the record of index values (_index_entries)
// with records, for a read that checks what the entity emits, and what every reader
// judges an item by, with the update time of an entity of a sharded type when
// sharded. It returns nil for attrs nil and no meta: the whole item.
func EntityProjection(attrs []string, meta, records, sharded bool) []string {
	if attrs == nil && !meta {
		return nil
	}
	names := slices.Concat(attrs, judged)
	if sharded {
		names = append(names, schema.AttrShardUpdated)
	}
	if meta {
		names = append(names, schema.AttrMeta)
	}
	if records {
		names = append(names, schema.AttrIndexEntries)
	}
	slices.Sort(names)
	return slices.Compact(names)
}
