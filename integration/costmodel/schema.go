package costmodel

import (
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Item is a DynamoDB item.
type Item = map[string]types.AttributeValue

// Schema holds the tables requests may name, by table name.
type Schema map[string]Table

// Table is what the model needs of a table: its key and its secondary indexes.
type Table struct {
	Name         string
	PartitionKey string
	SortKey      string // empty when the table has none
	Indexes      []Index
}

// Index is a secondary index of a table.
type Index struct {
	Name         string
	Local        bool // a local secondary index; global otherwise
	PartitionKey string
	SortKey      string // empty when the index has none
	// Projection is ALL, KEYS_ONLY or INCLUDE; NonKey lists INCLUDE's attributes.
	Projection types.ProjectionType
	NonKey     []string
}

// TableFromDescription returns the Table DescribeTable describes.
func TableFromDescription(d *types.TableDescription) Table {
	t := Table{Name: aws.ToString(d.TableName)}
	t.PartitionKey, t.SortKey = keyNames(d.KeySchema)
	for _, g := range d.GlobalSecondaryIndexes {
		t.Indexes = append(t.Indexes, indexOf(aws.ToString(g.IndexName), false, g.KeySchema, g.Projection))
	}
	for _, l := range d.LocalSecondaryIndexes {
		t.Indexes = append(t.Indexes, indexOf(aws.ToString(l.IndexName), true, l.KeySchema, l.Projection))
	}
	sort.Slice(t.Indexes, func(i, j int) bool { return t.Indexes[i].Name < t.Indexes[j].Name })
	return t
}

func indexOf(name string, local bool, ks []types.KeySchemaElement, p *types.Projection) Index {
	ix := Index{Name: name, Local: local, Projection: types.ProjectionTypeAll}
	ix.PartitionKey, ix.SortKey = keyNames(ks)
	if p != nil {
		ix.Projection, ix.NonKey = p.ProjectionType, p.NonKeyAttributes
	}
	return ix
}

func keyNames(ks []types.KeySchemaElement) (partition, sort string) {
	for _, k := range ks {
		if k.KeyType == types.KeyTypeHash {
			partition = aws.ToString(k.AttributeName)
		} else {
			sort = aws.ToString(k.AttributeName)
		}
	}
	return partition, sort
}

// Ref names one item: its table and its primary key, encoded.
type Ref struct {
	Table string
	Key   string
}

func (r Ref) String() string { return r.Table + "/" + r.Key }

// Ref returns the Ref of the item holding key's attributes: a full item or just its
// key.
func (t Table) Ref(key Item) Ref {
	var b strings.Builder
	writeKeyPart(&b, key[t.PartitionKey])
	if t.SortKey != "" {
		b.WriteByte('|')
		writeKeyPart(&b, key[t.SortKey])
	}
	return Ref{Table: t.Name, Key: b.String()}
}

// Key returns the primary key attributes of item.
func (t Table) Key(item Item) Item {
	k := Item{t.PartitionKey: item[t.PartitionKey]}
	if t.SortKey != "" {
		k[t.SortKey] = item[t.SortKey]
	}
	return k
}

func writeKeyPart(b *strings.Builder, v types.AttributeValue) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		fmt.Fprintf(b, "S%q", v.Value)
	case *types.AttributeValueMemberN:
		fmt.Fprintf(b, "N%q", v.Value)
	case *types.AttributeValueMemberB:
		fmt.Fprintf(b, "B%x", v.Value)
	default:
		b.WriteString("?")
	}
}

// entry returns the entry index ix stores for item, and its index key; nil when the
// item lacks the index's key attributes (a sparse index holds no entry for it).
func (t Table) entry(ix Index, item Item) (Item, string) {
	if item == nil {
		return nil, ""
	}
	pk, ok := item[ix.PartitionKey]
	if !ok {
		return nil, ""
	}
	var b strings.Builder
	writeKeyPart(&b, pk)
	if ix.SortKey != "" {
		sk, ok := item[ix.SortKey]
		if !ok {
			return nil, ""
		}
		b.WriteByte('|')
		writeKeyPart(&b, sk)
	}
	if ix.Projection == types.ProjectionTypeAll || ix.Projection == "" {
		return item, b.String()
	}
	e := t.Key(item)
	e[ix.PartitionKey] = pk
	if ix.SortKey != "" {
		e[ix.SortKey] = item[ix.SortKey]
	}
	if ix.Projection == types.ProjectionTypeInclude {
		for _, name := range ix.NonKey {
			if v, ok := item[name]; ok {
				e[name] = v
			}
		}
	}
	return e, b.String()
}
