package dynamotest

import (
	"cmp"
	"slices"
	"strings"

	"github.com/rynodb/rynodb/integration/costmodel"
)

// KeyLoad is the write capacity one partition key of a table or index took over
// the requests recorded.
type KeyLoad struct {
	Table, Index, Key string
	Write             float64 // WCU, by costmodel.Partitions
	Writes            int     // writes that landed on the key
	// Rising says every write that left an item or entry on the key put it at a sort
	// key above all the earlier ones (the by-type index's _updated, a time-ordered index value): a
	// partition DynamoDB cannot split for heat, as every new write lands at its end.
	Rising bool
}

// PartitionLoad returns the load of every partition key written by the requests
// recorded (which need RecorderOptions.Images), the heaviest first: the model of
// hot keys. Requests are taken in the order they returned.
func (r *Recorder) PartitionLoad() ([]KeyLoad, error) {
	if err := r.Err(); err != nil {
		return nil, err
	}
	s := r.Schema()
	type loadKey struct{ table, index, key string }
	loads := map[loadKey]*KeyLoad{}
	last := map[loadKey]string{}
	for _, req := range r.Requests() {
		parts, err := costmodel.Partitions(s, req)
		if err != nil {
			return nil, err
		}
		for _, p := range parts {
			k := loadKey{p.Table, p.Index, p.Key}
			l, ok := loads[k]
			if !ok {
				l = &KeyLoad{Table: p.Table, Index: p.Index, Key: p.Key, Rising: p.Sort != ""}
				loads[k] = l
			}
			l.Write += p.Write
			l.Writes++
			if p.Removes {
				continue
			}
			if prev, seen := last[k]; seen && p.Sort != "" && p.Sort <= prev {
				l.Rising = false
			}
			last[k] = max(last[k], p.Sort)
		}
	}
	out := make([]KeyLoad, 0, len(loads))
	for _, l := range loads {
		if l.Writes < 2 {
			l.Rising = false // one write rises over nothing
		}
		out = append(out, *l)
	}
	slices.SortFunc(out, func(a, b KeyLoad) int {
		return cmp.Or(cmp.Compare(b.Write, a.Write), strings.Compare(a.Table, b.Table), strings.Compare(a.Index, b.Index), strings.Compare(a.Key, b.Key))
	})
	return out, nil
}
