// The plan of an entity write's attempt: its item, index entries and claims, and
// the lists it replaces, from what the attempt read.

package store

import (
	"fmt"
	"maps"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/indexes"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
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
func (w *write) plan(x entitystate.Expectation, storedEntries []map[string]types.AttributeValue, lists []ListState) (*putPlan, error) {
	x.Now = w.now
	if w.Cond != nil {
		x.Cond = w.Cond.Build
	}
	created := w.now
	if !x.Absent && !x.Created.IsZero() {
		created = x.Created
	}
	item := maps.Clone(w.Base)
	item[schema.AttrCreated] = attrS(schema.FormatTime(created))
	item[schema.AttrUpdated] = attrS(schema.FormatTime(w.now))
	item[schema.AttrVersion] = attrN(x.Next())
	item[schema.AttrToken] = attrS(w.token)
	item[schema.AttrShape] = attrS(ShapeOf(w.Base))
	if w.mine != "" {
		item[schema.AttrIndexes] = attrS(w.mine)
	}
	p := &putPlan{x: x, item: item}
	if w.indexed() {
		if err := w.planEntries(p, created, storedEntries); err != nil {
			return nil, err
		}
	}
	if err := CheckItemSize(w.Key, item); err != nil {
		return nil, err
	}
	for i, s := range lists {
		p.lists = append(p.lists, relationships.ChangeReplace(s.Head, s.Entries, w.Lists[w.predicates[i]]))
	}
	return p, nil
}

// planEntries adds to p the index entries and inline values its item emits, the
// changes to the entries stored, and the unique values claimed and released.
func (w *write) planEntries(p *putPlan, created time.Time, storedEntries []map[string]types.AttributeValue) error {
	emitted, err := w.c.Indexes.Emit(p.item, created, w.now)
	if err != nil {
		return err
	}
	inline, entries, err := w.c.Indexes.InlineSplit(w.Key.Type, emitted)
	if err != nil {
		return err
	}
	indexes.PutInline(p.item, inline)
	p.item[schema.AttrIndexEntries] = indexes.Record(entries)
	if p.entryOps, err = indexes.Ops(w.c.Names.IndexEntries, storedEntries, entries); err != nil {
		return err
	}
	p.entries = entries
	held := ParseEntries(storedEntries)
	claimed := held
	if p.x.Pending {
		// The writer cut off put its record with its claims, releasing those of the
		// values it dropped, whose entries may still be stored: what it recorded is
		// what is claimed. Releasing more is harmless (a release another entity's
		// claim refuses is dropped); claiming less would leave a value unclaimed.
		claimed = p.x.Left
		held = append(held, p.x.Left...)
	}
	p.claims, _ = w.c.Indexes.ClaimChanges(claimed, entries)
	_, p.releases = w.c.Indexes.ClaimChanges(held, entries)
	if RecordsNewExpiry(p.x, entitystate.ExpiresOf(p.item)) {
		p.claims = w.c.Indexes.UniqueClaims(entries) // each claim records the holder's expiry
	}
	if w.byRecord {
		p.entryOps = append(p.entryOps, ProjectedPuts(w.c.Names.IndexEntries, entries)...)
	}
	return nil
}

// CheckItemSize rejects an item of the entity k that DynamoDB would refuse for its
// size.
func CheckItemSize(k Key, item map[string]types.AttributeValue) error {
	if n := schema.ItemSize(item); n > schema.MaxItemBytes {
		return &schema.ValidationError{Field: "Entity", Value: k.String(),
			Reason: fmt.Sprintf("item is %d bytes; DynamoDB allows at most %d", n, schema.MaxItemBytes)}
	}
	return nil
}
