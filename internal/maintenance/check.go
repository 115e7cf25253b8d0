package maintenance

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/check"
	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// orphan is an Orphan with what its repair needs to know.
type orphan struct {
	check.Orphan

	claim  indexentries.Claim              // the claim, for role "claim"
	item   bool                            // the entry is a claim item of the index entries table
	stored map[string]types.AttributeValue // the missing entity as Check read it: none, or being deleted
	// unindexed is the entry, when a writer of schema version 2 wrote it without its
	// _reverse_key: the sweep of its object, which reads the reverse index, cannot
	// find it until it is indexed.
	unindexed *relationships.Entry
}

// Check scans the store for what a write cut off left, and for orphans, and with
// Repair finishes and deletes them (see ryno.Client.Check).
func (m *Maintainer) Check(ctx context.Context, opts check.Options) (check.Progress, error) {
	segments := opts.Segments
	if segments == 0 {
		segments = 1
	}
	run := &checkRun{opts: opts, batch: m.core.Batch.Shared()}
	start := m.core.Now() // one instant for every segment's scan of expired entities
	scans := []struct {
		table string
		scan  func(segment int) *dynamodb.ScanInput
		page  func(ctx context.Context, items []map[string]types.AttributeValue) error
	}{
		{m.core.Names.Entities, func(i int) *dynamodb.ScanInput { return m.marksScan(i, segments, start) },
			func(ctx context.Context, items []map[string]types.AttributeValue) error {
				return m.checkMarks(ctx, run, items)
			}},
		{m.core.Names.Relationships, func(i int) *dynamodb.ScanInput { return m.relationshipsTable().scan(i, segments) },
			func(ctx context.Context, items []map[string]types.AttributeValue) error {
				return m.checkPage(ctx, run, m.relationshipsTable(), items)
			}},
		{m.core.Names.IndexEntries, func(i int) *dynamodb.ScanInput { return m.indexTable().scan(i, segments) },
			func(ctx context.Context, items []map[string]types.AttributeValue) error {
				return m.checkPage(ctx, run, m.indexTable(), items)
			}},
	}
	for _, s := range scans {
		err := batching.Parallel(ctx, segments, segments, func(ctx context.Context, segment int) error {
			return m.core.ScanPages(ctx, s.scan(segment), func(items []map[string]types.AttributeValue) error {
				return s.page(ctx, items)
			})
		})
		if err != nil {
			return run.done, errs.Wrap(err, "check %s", s.table)
		}
	}
	return run.done, nil
}

// checkRun is one Check in progress, shared by the segments of its scans.
type checkRun struct {
	opts  check.Options
	batch *batching.Engine // bounds the batch requests of all segments together

	mu   sync.Mutex // guards done and serializes the callbacks
	done check.Progress
}

// report counts and reports what one page found and repaired.
func (run *checkRun) report(orphans []orphan, traces []check.Trace, scanned *int, n int, counts check.Progress) {
	run.mu.Lock()
	defer run.mu.Unlock()
	if scanned != nil {
		*scanned += n
	}
	run.done.Orphans += len(orphans)
	run.done.Traces += len(traces)
	run.done.Repaired += counts.Repaired
	run.done.Kept += counts.Kept
	run.done.Finished += counts.Finished
	if run.opts.OnOrphan != nil {
		for _, o := range orphans {
			run.opts.OnOrphan(o.Orphan)
		}
	}
	if run.opts.OnTrace != nil {
		for _, t := range traces {
			run.opts.OnTrace(t)
		}
	}
	if run.opts.Progress != nil {
		run.opts.Progress(run.done)
	}
}

// checkPage finds the orphans and traces among the items of one page of the
// relationship or index entries table, repairs them when asked, and reports.
func (m *Maintainer) checkPage(ctx context.Context, run *checkRun, t checkedTable, items []map[string]types.AttributeValue) error {
	orphans, err := m.findOrphans(ctx, run.batch, t, items)
	if err != nil {
		return err
	}
	var lists []listCheck
	var unindexed []unindexedEntry
	if t.table == m.core.Names.Relationships {
		if lists, err = m.findListTraces(ctx, run.batch, items, orphans); err != nil {
			return err
		}
		unindexed = m.findUnindexed(items, orphans)
	}
	traces := make([]check.Trace, 0, len(lists)+len(unindexed))
	for _, l := range lists {
		traces = append(traces, l.trace)
	}
	for _, u := range unindexed {
		traces = append(traces, u.trace)
	}
	var counts check.Progress
	if run.opts.Repair {
		counts, err = m.repairPage(ctx, run, orphans, lists)
		if err == nil {
			var n int
			n, err = m.repairUnindexed(ctx, unindexed)
			counts.Finished += n
		}
	}
	entries := 0
	for _, item := range items {
		if !store.Bookkeeping(item) {
			entries++
		}
	}
	run.report(orphans, traces, t.scanned(&run.done), entries, counts)
	return err
}

// repairPage deletes the orphans of a page, then finishes its list traces.
func (m *Maintainer) repairPage(ctx context.Context, run *checkRun, orphans []orphan, lists []listCheck) (check.Progress, error) {
	var counts check.Progress
	var err error
	counts.Repaired, counts.Kept, err = m.repairOrphans(ctx, run, orphans)
	if err != nil {
		return counts, err
	}
	var mu sync.Mutex
	err = batching.Parallel(ctx, len(lists), m.core.MaxConcurrency, func(ctx context.Context, i int) error {
		l := lists[i]
		_, err := m.lists.WriteListLeased(ctx, nil, l.head)
		switch {
		case errors.Is(err, errs.ErrConflict):
			// A writer holds the list or keeps changing it: taking an expired lease
			// over, it finishes what was left; a later check finds the list either
			// way. The run goes on with the other lists and tables.
			return nil
		case err != nil && !errors.Is(err, errs.ErrNotFound):
			return errs.Wrap(err, "repair the list %s -%s->", l.trace.Key, l.trace.Predicate)
		}
		mu.Lock()
		defer mu.Unlock()
		counts.Finished++
		return nil
	})
	return counts, err
}

// checkedTable is a table whose items refer to entities.
type checkedTable struct {
	table   string
	key     []string                   // the primary key attributes
	extra   []string                   // other attributes Check reads
	refs    []store.EntityRef          // the entities an item refers to
	scanned func(*check.Progress) *int // the count of its items scanned
}

func (m *Maintainer) relationshipsTable() checkedTable {
	return checkedTable{
		table: m.core.Names.Relationships,
		key:   schema.RelationshipKeyAttrs(),
		extra: []string{schema.AttrPredicate, schema.AttrPredicateObjectKey, schema.AttrObjectKey, schema.AttrObjectShard, schema.AttrIndex, schema.AttrReverseKey},
		refs: []store.EntityRef{
			{Role: "subject", Scope: schema.AttrSubjectScope, Type: schema.AttrSubjectType, ID: schema.AttrSubjectID},
			{Role: "object", Scope: schema.AttrObjectScope, Type: schema.AttrObjectType, ID: schema.AttrObjectID},
		},
		scanned: func(p *check.Progress) *int { return &p.Relationships },
	}
}

func (m *Maintainer) indexTable() checkedTable {
	return checkedTable{
		table:   m.core.Names.IndexEntries,
		key:     schema.IndexEntryKeyAttrs(),
		extra:   []string{schema.AttrIndexName, schema.AttrIndexKey},
		refs:    []store.EntityRef{{Role: "entity", Scope: schema.AttrScope, Type: schema.AttrType, ID: schema.AttrID}},
		scanned: func(p *check.Progress) *int { return &p.IndexEntries },
	}
}

// refsOf returns the references of item to check: a list's bookkeeping refers to
// its subject only (a marker names its object, which need not exist).
func (t checkedTable) refsOf(item map[string]types.AttributeValue) []store.EntityRef {
	if store.Bookkeeping(item) {
		return t.refs[:1]
	}
	return t.refs
}

// scan returns a consistent scan of one of segments of the table, reading only the
// attributes Check uses.
func (t checkedTable) scan(segment, segments int) *dynamodb.ScanInput {
	names := append(slices.Clone(t.key), t.extra...)
	for _, r := range t.refs {
		names = append(names, r.Scope, r.Type, r.ID)
	}
	expr, attrs := batching.Projection(names)
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

// existenceAttrs are what Check reads of the entities entries refer to: enough to
// tell a live entity, and the record of what it claims.
var existenceAttrs = []string{schema.AttrID, schema.AttrScopeTypeKey, schema.AttrDeleting, schema.AttrIndexEntries}

// findOrphans returns the items that refer to an entity that does not exist (or is
// being deleted), and the claims whose entity holds the value no more.
func (m *Maintainer) findOrphans(ctx context.Context, batch *batching.Engine, t checkedTable, items []map[string]types.AttributeValue) ([]orphan, error) {
	var ops []batching.GetOp
	for _, item := range items {
		for _, r := range t.refsOf(item) {
			if k := r.Key(item); schema.ValidateEntityKey(k.Scope, k.Type, k.ID) == nil {
				ops = append(ops, batching.NewGetOp(m.core.Names.Entities, actions.EntityKey(k)))
			}
		}
	}
	existing, err := batch.Get(ctx, ops, batching.ReadOptions{Consistent: true, Projection: existenceAttrs})
	if err != nil {
		return nil, err
	}
	var orphans []orphan
	var claims []indexentries.Claim
	for _, item := range items {
		entry := batching.ItemKey{Table: t.table, Key: batching.Project(item, t.key)}
		claim := indexentries.IsClaim(item)
		isOrphan := false
		for _, r := range t.refsOf(item) {
			k := r.Key(item)
			if schema.ValidateEntityKey(k.Scope, k.Type, k.ID) != nil {
				orphans = append(orphans, orphan{Orphan: check.Orphan{Entry: entry, Role: r.Role}, item: claim})
				isOrphan = true
				break
			}
			if e, ok := existing[batching.ItemID(m.core.Names.Entities, actions.EntityKey(k))]; !ok || store.Deleted(e) {
				o := orphan{Orphan: check.Orphan{Entry: entry, Role: r.Role, Missing: k}, item: claim, stored: e}
				if u, ok := m.core.Incoming.Misplaced(item); ok && t.table == m.core.Names.Relationships {
					o.unindexed = &u
				}
				orphans = append(orphans, o)
				isOrphan = true
				break
			}
		}
		if cl, err := indexentries.ClaimFromItem(item); !isOrphan && err == nil && claim {
			claims = append(claims, cl)
		}
	}
	unheld, err := m.unheldClaims(ctx, batch, claims, existing)
	return append(orphans, unheld...), err
}

// unheldClaims returns the claims whose entity holds no entry of their value and
// does not record it (a write cut off records what it claimed before writing the
// entries: that is its trace, not an orphan).
func (m *Maintainer) unheldClaims(ctx context.Context, batch *batching.Engine, claims []indexentries.Claim, owners map[string]map[string]types.AttributeValue) ([]orphan, error) {
	if len(claims) == 0 {
		return nil, nil
	}
	ops := make([]batching.GetOp, len(claims))
	for i, cl := range claims {
		ops[i] = batching.NewGetOp(m.core.Names.IndexEntries, cl.Entry().PrimaryKey())
	}
	held, err := batch.Get(ctx, ops, batching.ReadOptions{Consistent: true, Projection: schema.IndexEntryKeyAttrs()})
	if err != nil {
		return nil, err
	}
	var orphans []orphan
	for i, cl := range claims {
		owner := store.Key{Scope: cl.Scope, Type: cl.Type, ID: cl.ID}
		recorded := slices.ContainsFunc(store.RecordEntries(owner, owners[batching.ItemID(m.core.Names.Entities, actions.EntityKey(owner))]),
			func(e indexentries.Entry) bool { return indexentries.ClaimOf(e) == cl })
		if _, ok := held[ops[i].ID]; !ok && !recorded {
			orphans = append(orphans, orphan{Orphan: check.Orphan{
				Entry: batching.ItemKey{Table: m.core.Names.IndexEntries, Key: cl.PrimaryKey()},
				Role:  check.RoleClaimed, Missing: owner,
			}, claim: cl, item: true})
		}
	}
	return orphans, nil
}
