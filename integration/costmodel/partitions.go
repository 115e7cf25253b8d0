package costmodel

import (
	"cmp"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// PartitionWrite is the write capacity a request consumed on one partition key of
// a table or of one of its indexes, and the sort key it wrote there: DynamoDB
// serves at most 1,000 WCU a second on one partition key, and splits a hot key's
// partition by sort key only while its writes do not all land past the last one.
type PartitionWrite struct {
	Table string
	Index string // empty for the table itself
	Key   string // the partition key's value, as Ref writes a key part
	Sort  string // the sort key's value written; empty when there is none
	// Removes says the write took an item or index entry away from Sort; otherwise
	// it left one there (put or changed).
	Removes bool
	Write   float64
}

// Partitions returns what r writes on each partition key of each table and index
// it touches, by the rules of Bill: the units Bill reports, shared out by key (an
// index entry that moves is billed on the key it leaves and the key it joins).
func Partitions(s Schema, r Request) ([]PartitionWrite, error) {
	b := bill{parts: map[partRef]*PartitionWrite{}}
	if err := b.of(s, r); err != nil {
		return nil, err
	}
	out := make([]PartitionWrite, 0, len(b.parts))
	for _, p := range b.parts {
		out = append(out, *p)
	}
	slices.SortFunc(out, func(x, y PartitionWrite) int {
		return cmp.Or(strings.Compare(x.Table, y.Table), strings.Compare(x.Index, y.Index), strings.Compare(x.Key, y.Key),
			strings.Compare(x.Sort, y.Sort), cmp.Compare(b2i(x.Removes), b2i(y.Removes)))
	})
	return out, nil
}

// partRef names one partition key and sort key written.
type partRef struct {
	table, index, key, sort string
	removes                 bool
}

// part adds n units written on the partition of item (its key attributes named
// partition and sort) in table and index.
func (b *bill) part(table, index string, item Item, partition, sort string, removes bool, n float64) {
	if b.parts == nil || n == 0 || item == nil {
		return
	}
	ref := partRef{table: table, index: index, key: keyPart(item[partition]), removes: removes}
	if sort != "" {
		ref.sort = keyPart(item[sort])
	}
	p, ok := b.parts[ref]
	if !ok {
		p = &PartitionWrite{Table: table, Index: index, Key: ref.key, Sort: ref.sort, Removes: removes}
		b.parts[ref] = p
	}
	p.Write += n
}

// tablePart adds n units written on the item's partition of table t; removes says
// the write deleted it.
func (b *bill) tablePart(t Table, item Item, removes bool, n float64) {
	b.part(t.Name, "", item, t.PartitionKey, t.SortKey, removes, n)
}

// indexParts adds what index ix of t writes when an item goes from before to after,
// on the keys of the entries it leaves and joins.
func (b *bill) indexParts(t Table, ix Index, before, after Item) {
	if b.parts == nil {
		return
	}
	old, oldKey := t.entry(ix, before)
	cur, curKey := t.entry(ix, after)
	switch {
	case old == nil && cur == nil:
	case old == nil:
		b.part(t.Name, ix.Name, cur, ix.PartitionKey, ix.SortKey, false, WCU(Size(cur)))
	case cur == nil:
		b.part(t.Name, ix.Name, old, ix.PartitionKey, ix.SortKey, true, WCU(Size(old)))
	case oldKey != curKey:
		b.part(t.Name, ix.Name, old, ix.PartitionKey, ix.SortKey, true, WCU(Size(old)))
		b.part(t.Name, ix.Name, cur, ix.PartitionKey, ix.SortKey, false, WCU(Size(cur)))
	case !sameItem(old, cur):
		b.part(t.Name, ix.Name, cur, ix.PartitionKey, ix.SortKey, false, max(WCU(Size(old)), WCU(Size(cur))))
	}
}

func keyPart(v types.AttributeValue) string {
	var s strings.Builder
	writeKeyPart(&s, v)
	return s.String()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
