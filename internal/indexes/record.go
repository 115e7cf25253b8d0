package indexes

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/schema"
)

// Record is the _index_entries attribute of an entity item: the index keys each
// of its indexes emitted at the last write. A record for people; the index entries
// table is the truth.
func Record(entries []indexentries.Entry) types.AttributeValue {
	byIndex := make(map[string][]types.AttributeValue)
	for _, e := range entries {
		byIndex[e.IndexName] = append(byIndex[e.IndexName], attrS(e.Value.Encoding()))
	}
	record := make(map[string]types.AttributeValue, len(byIndex))
	for name, keys := range byIndex {
		record[name] = &types.AttributeValueMemberL{Value: keys}
	}
	return &types.AttributeValueMemberM{Value: record}
}

// Ops returns the writes that turn the stored entries into the emitted ones.
// A stored item this store did not write is deleted.
func Ops(table string, stored []map[string]types.AttributeValue, emitted []indexentries.Entry) ([]batching.WriteOp, error) {
	var ops []batching.WriteOp
	existing := make([]indexentries.Entry, 0, len(stored))
	partitions := make(map[string]string, len(stored)) // the _scope_index_name of each stored entry, by ItemID
	for _, item := range stored {
		e, err := indexentries.FromItem(item)
		if err != nil {
			ops = append(ops, batching.DeleteOp(table, batching.Project(item, schema.IndexEntryKeyAttrs())))
			continue
		}
		existing = append(existing, e)
		if p, ok := item[schema.AttrScopeIndexName].(*types.AttributeValueMemberS); ok {
			partitions[batching.ItemID(table, e.PrimaryKey())] = p.Value
		}
	}
	puts, deletes := indexentries.Diff(existing, emitted)
	puts = append(puts, moved(table, partitions, emitted, puts)...)
	for _, e := range deletes {
		ops = append(ops, batching.DeleteOp(table, e.PrimaryKey()))
	}
	for _, e := range puts {
		item, err := e.Item()
		if err != nil {
			return nil, err
		}
		ops = append(ops, batching.PutOp(table, e.PrimaryKey(), item))
	}
	return ops, nil
}

// moved returns the entries of emitted, not among puts already, whose stored item
// is under another partition of the lookup index than theirs: the index's Shards
// changed since they were written.
func moved(table string, partitions map[string]string, emitted, puts []indexentries.Entry) []indexentries.Entry {
	putting := make(map[string]bool, len(puts))
	for _, e := range puts {
		putting[batching.ItemID(table, e.PrimaryKey())] = true
	}
	var out []indexentries.Entry
	for _, e := range emitted {
		id := batching.ItemID(table, e.PrimaryKey())
		if stored, ok := partitions[id]; ok && !putting[id] && stored != e.Partition() {
			putting[id] = true
			out = append(out, e)
		}
	}
	return out
}
