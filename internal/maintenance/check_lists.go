package maintenance

import (
	"context"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/check"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/lists"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// listCheck is a list on which Check found a trace, with its head as read.
type listCheck struct {
	trace check.Trace
	head  relationships.Head
}

// findListTraces verifies the lists of a page of the relationship entries table
// whose subject exists: each head found against its list (entries, markers, intent
// parts), and that every list with entries, markers or intent parts on the page has
// a head.
func (m *Maintainer) findListTraces(ctx context.Context, batch *batching.Engine, items []map[string]types.AttributeValue, orphans []orphan) ([]listCheck, error) {
	missing := map[store.Key]bool{}
	for _, o := range orphans {
		if o.Role == "subject" {
			missing[o.Missing] = true
		}
	}
	subjectRef := m.relationshipsTable().refs[0]
	var heads []lists.ID
	headed := map[lists.ID]bool{}
	var others []lists.ID
	for _, item := range items {
		id := lists.ID{Subject: subjectRef.Key(item), Predicate: entitystate.OptionalString(item, schema.AttrPredicate)}
		if missing[id.Subject] || schema.ValidateEntityKey(id.Subject.Scope, id.Subject.Type, id.Subject.ID) != nil || id.Predicate == "" || store.InSet(item) {
			continue
		}
		if strings.HasPrefix(entitystate.OptionalString(item, schema.AttrPredicateKey), schema.ListHeadPrefix) {
			heads = append(heads, id)
			headed[id] = true
		} else {
			others = append(others, id)
		}
	}
	headless, err := m.headless(ctx, batch, others, headed)
	if err != nil {
		return nil, err
	}
	lists := append(heads, headless...)
	var mu sync.Mutex
	var found []listCheck
	err = batching.Parallel(ctx, len(lists), m.core.MaxConcurrency, func(ctx context.Context, i int) error {
		l, err := m.verifyList(ctx, lists[i])
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
func (m *Maintainer) headless(ctx context.Context, batch *batching.Engine, ids []lists.ID, headed map[lists.ID]bool) ([]lists.ID, error) {
	var toRead []lists.ID
	var ops []batching.GetOp
	for _, id := range ids {
		if headed[id] {
			continue
		}
		headed[id] = true
		toRead = append(toRead, id)
		ops = append(ops, batching.NewGetOp(m.core.Names.Relationships, relationships.HeadPrimaryKey(id.Subject, id.Predicate)))
	}
	found, err := batch.Get(ctx, ops, batching.ReadOptions{Consistent: true, Projection: schema.RelationshipKeyAttrs()})
	if err != nil {
		return nil, err
	}
	var none []lists.ID
	for i, id := range toRead {
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
func (m *Maintainer) verifyList(ctx context.Context, id lists.ID) (*listCheck, error) {
	h, s, err := m.readListWhole(ctx, id)
	if err != nil || m.disagreement(h, s) == "" {
		return nil, err
	}
	// Still changing when the attempts run out: a writer at work, which the next
	// check meets again.
	giveUp := func(_, _ error) error { return ctx.Err() }
	return batching.Attempts(ctx, m.core.ConflictPacer(), giveUp, func(ctx context.Context) (*listCheck, batching.Step, error) {
		before, err := m.lists.ReadHead(ctx, id.Subject, id.Predicate)
		if err != nil {
			return nil, batching.Done, err
		}
		s, err := m.lists.ReadUnderLease(ctx, id.Subject, id.Predicate)
		if err != nil {
			return nil, batching.Done, err
		}
		h, err := m.lists.ReadHead(ctx, id.Subject, id.Predicate)
		if err != nil {
			return nil, batching.Done, err
		}
		if before.Version != h.Version || before.Lease != h.Lease { // the list read may not be the one h describes
			return nil, batching.Retry, nil
		}
		if detail := m.disagreement(h, s); detail != "" {
			return &listCheck{head: h, trace: check.Trace{Kind: check.TraceList, Key: id.Subject, Predicate: id.Predicate, Detail: detail}}, batching.Done, nil
		}
		return nil, batching.Done, nil
	})
}

// disagreement says how head h fails to describe the list s read, "" when it does.
func (m *Maintainer) disagreement(h relationships.Head, s lists.LeasedState) string {
	return relationships.Disagreement(h, s.Entries, s.Markers, len(s.Intents), m.core.Now())
}

// readListWhole reads the head of a list, its entries, markers and intent parts, in
// parallel and consistently.
func (m *Maintainer) readListWhole(ctx context.Context, id lists.ID) (relationships.Head, lists.LeasedState, error) {
	var h relationships.Head
	var s lists.LeasedState
	err := batching.Parallel(ctx, 2, 2, func(ctx context.Context, i int) error {
		var err error
		if i == 0 {
			h, err = m.lists.ReadHead(ctx, id.Subject, id.Predicate)
		} else {
			s, err = m.lists.ReadUnderLease(ctx, id.Subject, id.Predicate)
		}
		return err
	})
	return h, s, err
}
