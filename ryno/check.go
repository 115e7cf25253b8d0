package ryno

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/schema"
)

// Orphan is an entry that refers to an entity that does not exist.
type Orphan struct {
	Entry ItemKey // the entry's table and primary key
	// Role says what is missing: the "subject", "object" or "entity" the entry names;
	// or for a "claim" on a unique value, the entity holds no entry of that value.
	Role    string
	Missing Key // the missing entity, or the claim's owner; zero when the entry names none

	claim indexentries.Claim // the claim, for role "claim"
}

func (o Orphan) String() string {
	if o.Missing == (Key{}) {
		return fmt.Sprintf("%s: malformed entry", o.Entry)
	}
	if o.Role == roleClaimed {
		return fmt.Sprintf("%s: entity %s no longer holds the value it claims", o.Entry, o.Missing)
	}
	return fmt.Sprintf("%s: %s %s does not exist", o.Entry, o.Role, o.Missing)
}

// CheckOptions configures Check.
type CheckOptions struct {
	// Repair deletes every orphan found.
	Repair bool
	// Segments splits the scan of each table into that many segments read in
	// parallel (DynamoDB's parallel scan), for large tables. Default 1; at most
	// MaxCheckSegments. Batch requests stay within Options.MaxConcurrency in all.
	Segments int
	// OnOrphan, when set, is called for each orphan found.
	OnOrphan func(Orphan)
	// Progress, when set, is called after each page of entries.
	Progress func(CheckProgress)
}

// MaxCheckSegments bounds CheckOptions.Segments.
const MaxCheckSegments = 1000

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
// not exist. Each segment of the scan holds one page of entries at a time, whatever
// the size of the tables, and checks the entities of a page with parallel
// BatchGetItem requests. With Repair, it deletes the orphans of each page as it goes,
// in transactions that check that the entity each misses is still missing: an entity
// created since it was read keeps its entries, which are counted as Kept. Malformed
// entries, which name no entity, are deleted as they are. OnOrphan and Progress are
// called from one goroutine at a time.
//
// An entry written just before its entity (a relationship added before its object is
// created, say) is an orphan until then: run Check when such writes are quiet.
func (c *Client) Check(ctx context.Context, opts CheckOptions) (_ CheckProgress, err error) {
	ctx, call, err := c.begin(ctx, "Check")
	defer call.end(&err)
	if err != nil {
		return CheckProgress{}, err
	}
	segments := opts.Segments
	if segments == 0 {
		segments = 1
	}
	if segments < 0 || segments > MaxCheckSegments {
		return CheckProgress{}, invalid("CheckOptions.Segments", fmt.Sprint(opts.Segments), fmt.Sprintf("must be between 1 and %d", MaxCheckSegments))
	}
	run := &checkRun{opts: opts, batch: c.batch.shared()}
	for _, t := range c.checkedTables() {
		err := parallel(ctx, segments, segments, func(ctx context.Context, segment int) error {
			return c.scanPages(ctx, t.scan(segment, segments), func(items []map[string]types.AttributeValue) error {
				return c.checkPage(ctx, run, t, items)
			})
		})
		if err != nil {
			return run.done, wrap(err, "check %s", t.table)
		}
	}
	return run.done, nil
}

// checkRun is one Check in progress, shared by the segments of its scans.
type checkRun struct {
	opts  CheckOptions
	batch *batcher // bounds the batch requests of all segments together

	mu   sync.Mutex // guards done and serializes the callbacks
	done CheckProgress
}

// checkPage finds the orphans among the items of one page, repairs them when asked,
// and reports.
func (c *Client) checkPage(ctx context.Context, run *checkRun, t checkedTable, items []map[string]types.AttributeValue) error {
	items = slices.DeleteFunc(items, bookkeeping)
	orphans, err := c.findOrphans(ctx, run.batch, t, items)
	if err != nil {
		return err
	}
	var deleted, kept int
	if run.opts.Repair {
		deleted, kept, err = c.repairOrphans(ctx, run.batch, orphans)
	}
	run.mu.Lock()
	defer run.mu.Unlock()
	*t.scanned(&run.done) += len(items)
	run.done.Orphans += len(orphans)
	run.done.Repaired += deleted
	run.done.Kept += kept
	if run.opts.OnOrphan != nil {
		for _, o := range orphans {
			run.opts.OnOrphan(o)
		}
	}
	if err != nil {
		return err
	}
	if run.opts.Progress != nil {
		run.opts.Progress(run.done)
	}
	return nil
}

// bookkeeping reports whether item is a list's head or marker rather than an entry:
// the store's own, kept in step with the entries, and not Check's business.
func bookkeeping(item map[string]types.AttributeValue) bool {
	k, ok := item[schema.AttrPredicateKey].(*types.AttributeValueMemberS)
	return ok && k.Value <= schema.EntriesStart
}

// checkedTable is a table whose items refer to entities.
type checkedTable struct {
	table   string
	key     []string                  // the primary key attributes
	extra   []string                  // other attributes Check reads
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
			key:   []string{schema.AttrSubjectKey, schema.AttrPredicateKey},
			refs: []entityRef{
				{"subject", schema.AttrSubjectScope, schema.AttrSubjectType, schema.AttrSubjectID},
				{"object", schema.AttrObjectScope, schema.AttrObjectType, schema.AttrObjectID},
			},
			scanned: func(p *CheckProgress) *int { return &p.Relationships },
		},
		{
			table:   c.names.IndexEntries,
			key:     []string{schema.AttrSubjectKey, schema.AttrUniqueKey},
			extra:   []string{schema.AttrIndexName, schema.AttrIndexKey},
			refs:    []entityRef{{"entity", schema.AttrScope, schema.AttrType, schema.AttrID}},
			scanned: func(p *CheckProgress) *int { return &p.IndexEntries },
		},
	}
}

// scan returns a consistent scan of one of segments of the table, reading only the
// attributes Check uses.
func (t checkedTable) scan(segment, segments int) *dynamodb.ScanInput {
	names := append(slices.Clone(t.key), t.extra...)
	for _, r := range t.refs {
		names = append(names, r.scope, r.typ, r.id)
	}
	expr, attrs := projection(names)
	in := &dynamodb.ScanInput{
		TableName:                aws.String(t.table),
		ProjectionExpression:     expr,
		ExpressionAttributeNames: attrs,
		ConsistentRead:           aws.Bool(true),
	}
	if segments > 1 {
		in.Segment, in.TotalSegments = aws.Int32(int32(segment)), aws.Int32(int32(segments))
	}
	return in
}

// roleClaimed is the Role of an orphan claim whose entity exists but holds no entry
// of the claimed value.
const roleClaimed = "claim"

// findOrphans returns the items that refer to an entity that does not exist, and the
// claims whose entity holds the value no more.
func (c *Client) findOrphans(ctx context.Context, batch *batcher, t checkedTable, items []map[string]types.AttributeValue) ([]Orphan, error) {
	var ops []getOp
	for _, item := range items {
		for _, r := range t.refs {
			if k := r.key(item); k.Validate() == nil {
				ops = append(ops, newGetOp(c.names.Entities, k.item()))
			}
		}
	}
	existing, err := batch.get(ctx, ops, readOptions{consistent: true, projection: []string{schema.AttrID, schema.AttrScopeTypeKey}})
	if err != nil {
		return nil, err
	}
	var orphans []Orphan
	var claims []indexentries.Claim
	for _, item := range items {
		entry := ItemKey{Table: t.table, Key: project(item, t.key)}
		orphan := false
		for _, r := range t.refs {
			k := r.key(item)
			if k.Validate() != nil {
				orphans = append(orphans, Orphan{Entry: entry, Role: r.role})
				orphan = true
				break
			}
			if _, ok := existing[itemID(c.names.Entities, k.item())]; !ok {
				orphans = append(orphans, Orphan{Entry: entry, Role: r.role, Missing: k})
				orphan = true
				break
			}
		}
		if cl, err := indexentries.ClaimFromItem(item); !orphan && err == nil && indexentries.IsClaim(item) {
			claims = append(claims, cl)
		}
	}
	unheld, err := c.unheldClaims(ctx, batch, claims)
	return append(orphans, unheld...), err
}

// unheldClaims returns the claims whose entity holds no entry of their value.
func (c *Client) unheldClaims(ctx context.Context, batch *batcher, claims []indexentries.Claim) ([]Orphan, error) {
	if len(claims) == 0 {
		return nil, nil
	}
	ops := make([]getOp, len(claims))
	for i, cl := range claims {
		ops[i] = newGetOp(c.names.IndexEntries, cl.Entry().PrimaryKey())
	}
	held, err := batch.get(ctx, ops, readOptions{consistent: true, projection: indexKey})
	if err != nil {
		return nil, err
	}
	var orphans []Orphan
	for i, cl := range claims {
		if _, ok := held[ops[i].id]; !ok {
			orphans = append(orphans, Orphan{
				Entry: ItemKey{Table: c.names.IndexEntries, Key: cl.PrimaryKey()},
				Role:  roleClaimed, Missing: Key{Scope: cl.Scope, Type: cl.Type, ID: cl.ID},
				claim: cl,
			})
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
