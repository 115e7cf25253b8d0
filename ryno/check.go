package ryno

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/tables"
)

// Orphan is an entry that refers to an entity that does not exist.
type Orphan struct {
	Entry   ItemKey // the entry's table and primary key
	Role    string  // which entity is missing: "subject", "object" or "entity"
	Missing Key     // the missing entity; zero when the entry cannot name it
}

func (o Orphan) String() string {
	if o.Missing == (Key{}) {
		return fmt.Sprintf("%s: malformed entry", o.Entry)
	}
	return fmt.Sprintf("%s: %s %s does not exist", o.Entry, o.Role, o.Missing)
}

// CheckOptions configures Check.
type CheckOptions struct {
	// Repair deletes every orphan found.
	Repair bool
	// OnOrphan, when set, is called for each orphan found.
	OnOrphan func(Orphan)
	// Progress, when set, is called after each page of entries.
	Progress func(CheckProgress)
}

// CheckProgress counts what a Check has done so far.
type CheckProgress struct {
	Relationships int // relationship entries scanned
	IndexEntries  int // index entries scanned
	Orphans       int // orphans found
	Repaired      int // orphans deleted
	Kept          int // orphans not deleted, as their entity was created meanwhile
}

// Check scans the relationship and index entries tables for orphans: relationship
// entries whose subject or object does not exist, and index entries whose entity does
// not exist. It holds one page of entries at a time, whatever the size of the tables,
// and checks the entities of a page with parallel BatchGetItem requests. With
// Repair, it deletes the orphans of each page as it goes, in transactions that check
// that the entity each misses is still missing: an entity created since it was read
// keeps its entries, which are counted as Kept. Malformed entries, which name no
// entity, are deleted as they are.
//
// An entry written just before its entity (a relationship added before its object is
// created, say) is an orphan until then: run Check when such writes are quiet.
func (c *Client) Check(ctx context.Context, opts CheckOptions) (CheckProgress, error) {
	var done CheckProgress
	for _, t := range c.checkedTables() {
		err := c.scanPages(ctx, t.scan(), func(items []map[string]types.AttributeValue) error {
			orphans, err := c.findOrphans(ctx, t, items)
			if err != nil {
				return err
			}
			*t.scanned(&done) += len(items)
			done.Orphans += len(orphans)
			for _, o := range orphans {
				if opts.OnOrphan != nil {
					opts.OnOrphan(o)
				}
			}
			if opts.Repair {
				deleted, kept, err := c.repairOrphans(ctx, orphans)
				done.Repaired += deleted
				done.Kept += kept
				if err != nil {
					return err
				}
			}
			if opts.Progress != nil {
				opts.Progress(done)
			}
			return nil
		})
		if err != nil {
			return done, fmt.Errorf("ryno: check %s: %w", t.table, err)
		}
	}
	return done, nil
}

// checkedTable is a table whose items refer to entities.
type checkedTable struct {
	table   string
	key     []string                  // the primary key attributes
	refs    []entityRef               // the entities an item refers to
	scanned func(*CheckProgress) *int // the count of its items scanned
}

// entityRef names the raw attributes holding one entity key of an entry.
type entityRef struct {
	role           string
	scope, typ, id string
}

func (r entityRef) key(item map[string]types.AttributeValue) Key {
	s := func(name string) string {
		v, _ := item[name].(*types.AttributeValueMemberS)
		if v == nil {
			return ""
		}
		return v.Value
	}
	return Key{Scope: s(r.scope), Type: s(r.typ), ID: s(r.id)}
}

func (c *Client) checkedTables() []checkedTable {
	return []checkedTable{
		{
			table: c.names.Relationships,
			key:   []string{tables.AttrSubjectKey, tables.AttrPredicateKey},
			refs: []entityRef{
				{"subject", tables.AttrSubjectScope, tables.AttrSubjectType, tables.AttrSubjectID},
				{"object", tables.AttrObjectScope, tables.AttrObjectType, tables.AttrObjectID},
			},
			scanned: func(p *CheckProgress) *int { return &p.Relationships },
		},
		{
			table:   c.names.IndexEntries,
			key:     []string{tables.AttrSubjectKey, tables.AttrUniqueKey},
			refs:    []entityRef{{"entity", tables.AttrScope, tables.AttrType, tables.AttrID}},
			scanned: func(p *CheckProgress) *int { return &p.IndexEntries },
		},
	}
}

// scan returns a consistent scan of the table reading only the attributes Check uses.
func (t checkedTable) scan() *dynamodb.ScanInput {
	names := append([]string{}, t.key...)
	for _, r := range t.refs {
		names = append(names, r.scope, r.typ, r.id)
	}
	expr, attrs := projection(names)
	return &dynamodb.ScanInput{
		TableName:                aws.String(t.table),
		ProjectionExpression:     expr,
		ExpressionAttributeNames: attrs,
		ConsistentRead:           aws.Bool(true),
	}
}

// findOrphans returns the items that refer to an entity that does not exist.
func (c *Client) findOrphans(ctx context.Context, t checkedTable, items []map[string]types.AttributeValue) ([]Orphan, error) {
	var ops []getOp
	for _, item := range items {
		for _, r := range t.refs {
			if k := r.key(item); k.Validate() == nil {
				ops = append(ops, newGetOp(c.names.Entities, k.item()))
			}
		}
	}
	existing, err := c.batch.get(ctx, ops, readOptions{consistent: true, projection: []string{tables.AttrID, tables.AttrScopeTypeKey}})
	if err != nil {
		return nil, err
	}
	var orphans []Orphan
	for _, item := range items {
		entry := ItemKey{Table: t.table, Key: project(item, t.key)}
		for _, r := range t.refs {
			k := r.key(item)
			if k.Validate() != nil {
				orphans = append(orphans, Orphan{Entry: entry, Role: r.role})
				break
			}
			if _, ok := existing[itemID(c.names.Entities, k.item())]; !ok {
				orphans = append(orphans, Orphan{Entry: entry, Role: r.role, Missing: k})
				break
			}
		}
	}
	return orphans, nil
}

// scanPages runs in page after page, handing each page's items to fn, until no page
// follows or fn fails.
func (c *Client) scanPages(ctx context.Context, in *dynamodb.ScanInput, fn func([]map[string]types.AttributeValue) error) error {
	return eachPage(func(start map[string]types.AttributeValue) ([]map[string]types.AttributeValue, map[string]types.AttributeValue, error) {
		page := *in
		page.ExclusiveStartKey = start
		out, err := c.api.Scan(ctx, &page)
		if err != nil {
			return nil, nil, err
		}
		return out.Items, out.LastEvaluatedKey, nil
	}, fn)
}
