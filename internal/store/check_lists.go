package store

import (
	"context"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

// listCheck is a list on which Check found a trace, with its head as read.
type listCheck struct {
	trace Trace
	head  relationships.Head
}

// listID names one subject's list for one predicate.
type listID struct {
	subject   Key
	predicate string
}

// findListTraces verifies the lists of a page of the relationship entries table
// whose subject exists: each head found against its list (entries, markers, intent
// parts), and that every list with entries, markers or intent parts on the page has
// a head.
func (c *Core) findListTraces(ctx context.Context, batch *batching.Engine, items []map[string]types.AttributeValue, orphans []Orphan) ([]listCheck, error) {
	missing := map[Key]bool{}
	for _, o := range orphans {
		if o.Role == "subject" {
			missing[o.Missing] = true
		}
	}
	subjectRef := c.relationshipsTable().refs[0]
	var heads []listID
	headed := map[listID]bool{}
	var others []listID
	for _, item := range items {
		id := listID{subject: subjectRef.key(item), predicate: entitystate.OptionalString(item, schema.AttrPredicate)}
		if missing[id.subject] || schema.ValidateEntityKey(id.subject.Scope, id.subject.Type, id.subject.ID) != nil || id.predicate == "" || InSet(item) {
			continue
		}
		if strings.HasPrefix(entitystate.OptionalString(item, schema.AttrPredicateKey), schema.ListHeadPrefix) {
			heads = append(heads, id)
			headed[id] = true
		} else {
			others = append(others, id)
		}
	}
	headless, err := c.headless(ctx, batch, others, headed)
	if err != nil {
		return nil, err
	}
	lists := append(heads, headless...)
	var mu sync.Mutex
	var found []listCheck
	err = batching.Parallel(ctx, len(lists), c.MaxConcurrency, func(ctx context.Context, i int) error {
		l, err := c.verifyList(ctx, lists[i])
		if l != nil {
			mu.Lock()
			found = append(found, *l)
			mu.Unlock()
		}
		return err
	})
	return found, err
}

// headless returns the lists of ids, but those in headed, that have no head.
func (c *Core) headless(ctx context.Context, batch *batching.Engine, ids []listID, headed map[listID]bool) ([]listID, error) {
	var lists []listID
	var ops []batching.GetOp
	for _, id := range ids {
		if headed[id] {
			continue
		}
		headed[id] = true
		lists = append(lists, id)
		ops = append(ops, batching.NewGetOp(c.Names.Relationships, relationships.HeadPrimaryKey(id.subject, id.predicate)))
	}
	found, err := batch.Get(ctx, ops, batching.ReadOptions{Consistent: true, Projection: schema.RelationshipKeyAttrs()})
	if err != nil {
		return nil, err
	}
	var none []listID
	for i, id := range lists {
		if _, ok := found[ops[i].ID]; !ok {
			none = append(none, id)
		}
	}
	return none, nil
}

// verifyList reads a list whole and returns its trace, or nil when its bookkeeping
// describes its entries. The first read takes the head and the list in parallel,
// which a writer committing between them can make disagree; a disagreement is a
// trace only when confirmed by a read of the list between two reads of its head
// that find the same version (every write of a list moves it). A list that writers
// keep changing past Options.Conflicts is a list at work, not a trace.
func (c *Core) verifyList(ctx context.Context, id listID) (*listCheck, error) {
	h, s, err := c.readListWhole(ctx, id)
	if err != nil || c.disagreement(h, s) == "" {
		return nil, err
	}
	// Still changing when the attempts run out: a writer at work, which the next
	// check meets again.
	giveUp := func(_, _ error) error { return ctx.Err() }
	return batching.Attempts(ctx, c.ConflictPacer(), giveUp, func(ctx context.Context) (*listCheck, batching.Step, error) {
		before, err := c.ReadHead(ctx, id.subject, id.predicate)
		if err != nil {
			return nil, batching.Done, err
		}
		s, err := c.ReadUnderLease(ctx, id.subject, id.predicate)
		if err != nil {
			return nil, batching.Done, err
		}
		h, err := c.ReadHead(ctx, id.subject, id.predicate)
		if err != nil {
			return nil, batching.Done, err
		}
		if before.Version != h.Version || before.Lease != h.Lease { // the list read may not be the one h describes
			return nil, batching.Retry, nil
		}
		if detail := c.disagreement(h, s); detail != "" {
			return &listCheck{head: h, trace: Trace{Kind: TraceList, Key: id.subject, Predicate: id.predicate, Detail: detail}}, batching.Done, nil
		}
		return nil, batching.Done, nil
	})
}

// disagreement says how head h fails to describe the list s read, "" when it does.
func (c *Core) disagreement(h relationships.Head, s LeasedState) string {
	return relationships.Disagreement(h, s.Entries, s.Markers, len(s.Intents), c.Now())
}

// readListWhole reads the head of a list, its entries, markers and intent parts, in
// parallel and consistently.
func (c *Core) readListWhole(ctx context.Context, id listID) (relationships.Head, LeasedState, error) {
	var h relationships.Head
	var s LeasedState
	err := batching.Parallel(ctx, 2, 2, func(ctx context.Context, i int) error {
		var err error
		if i == 0 {
			h, err = c.ReadHead(ctx, id.subject, id.predicate)
		} else {
			s, err = c.ReadUnderLease(ctx, id.subject, id.predicate)
		}
		return err
	})
	return h, s, err
}
