// The plan of an entity write's attempt: its item, index entries and claims, and
// the lists it replaces, from what the attempt read.

package writes

import (
	"fmt"
	"maps"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/indexes"
	"github.com/rynodb/rynodb/internal/lists"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// putPlan is what one attempt commits.
type putPlan struct {
	x        entitystate.Expectation
	item     map[string]types.AttributeValue // the entity item to put
	entries  []indexentries.Entry            // the index entries it emits
	entryOps []batching.WriteOp              // index entries to put and delete
	lists    []relationships.Change          // the lists it replaces
	claims   []indexentries.Claim            // values of unique indexes it claims
	releases []indexentries.Claim            // and those it gives up
}

// plan builds the item a write meeting x puts, and the changes to the index entries
// and lists read. It checks what DynamoDB would refuse.
func (w *write) plan(x entitystate.Expectation, storedEntries []map[string]types.AttributeValue, lists []lists.State) (*putPlan, error) {
	x.Now = w.now
	if w.Cond != nil {
		x.Cond = w.Cond.Expression
	}
	created, updated, version := w.now, w.now, x.Next()
	if !x.Absent && !x.Created.IsZero() {
		created = x.Created
	}
	if r := w.Restore; r != nil {
		created, updated, version = r.Created, r.Updated, max(r.Version, version)
		if r.Same {
			version = r.Version
		}
	}
	item := maps.Clone(w.Base)
	item[schema.AttrCreated] = store.AttrS(schema.FormatTime(created))
	byType, _ := w.c.core.ByTypeLayout(w.Key, schema.FormatTime(updated))
	maps.Copy(item, byType)
	item[schema.AttrVersion] = store.AttrN(version)
	item[schema.AttrToken] = store.AttrS(w.token)
	item[schema.AttrShape] = store.AttrS(store.ShapeOf(w.Base))
	if w.mine != "" {
		item[schema.AttrIndexes] = store.AttrS(w.mine)
	}
	p := &putPlan{x: x, item: item}
	if w.indexed() {
		if err := w.planEntries(p, created, updated, storedEntries); err != nil {
			return nil, err
		}
	}
	if err := checkItemSize(w.Key, item); err != nil {
		return nil, err
	}
	for i, s := range lists {
		p.lists = append(p.lists, relationships.ChangeReplace(s.Head, s.Entries, w.Lists[w.predicates[i]]))
	}
	return p, nil
}

// planEntries adds to p the index entries and inline values its item emits, the
// changes to the entries stored, and the unique values claimed and released.
func (w *write) planEntries(p *putPlan, created, updated time.Time, storedEntries []map[string]types.AttributeValue) error {
	emitted, err := w.c.core.Indexes.Emit(p.item, created, updated)
	if err != nil {
		return err
	}
	inline, entries, err := w.c.core.Indexes.InlineSplit(w.Key.Type, emitted)
	if err != nil {
		return err
	}
	indexes.PutInline(p.item, inline)
	p.item[schema.AttrIndexEntries] = indexes.Record(entries)
	if p.entryOps, err = indexes.Ops(w.c.core.Names.IndexEntries, storedEntries, entries); err != nil {
		return err
	}
	p.entries = entries
	held := store.ParseEntries(storedEntries)
	claimed := held
	if p.x.Pending {
		// The writer cut off put its record with its claims, releasing those of the
		// values it dropped, whose entries may still be stored: what it recorded is
		// what is claimed. Releasing more is harmless (a release another entity's
		// claim refuses is dropped); claiming less would leave a value unclaimed.
		claimed = p.x.Left
		held = append(held, p.x.Left...)
	}
	p.claims, _ = w.c.core.Indexes.ClaimChanges(claimed, entries)
	_, p.releases = w.c.core.Indexes.ClaimChanges(held, entries)
	if recordsNewExpiry(p.x, entitystate.ExpiresOf(p.item)) {
		p.claims = w.c.core.Indexes.UniqueClaims(entries) // each claim records the holder's expiry
	}
	if w.byRecord {
		p.entryOps = append(p.entryOps, projectedPuts(w.c.core.Names.IndexEntries, entries)...)
	}
	return nil
}

// checkItemSize rejects an item of the entity k that DynamoDB would refuse for its
// size.
func checkItemSize(k store.Key, item map[string]types.AttributeValue) error {
	if n := schema.ItemSize(item); n > schema.MaxItemBytes {
		return &schema.ValidationError{Field: "Entity", Value: k.String(),
			Reason: fmt.Sprintf("item is %d bytes; DynamoDB allows at most %d", n, schema.MaxItemBytes)}
	}
	return nil
}
