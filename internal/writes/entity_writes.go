package writes

import (
	"context"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/indexes"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// freeHeld makes the value of claim cl, which a write found held (item is the claim
// as stored), free when its holder has ended: expired, being deleted, or gone
// without its claims (removed by DynamoDB's time to live before a consumer ran). It
// completes the holder's deletion, or releases the claim while the holder is still
// missing, and reports whether the write should try again. A live holder keeps it,
// unless its index record lacks the value: then the claim is one an earlier life
// left (the entity removed alone, and created again before anything swept what it
// left), released while the holder keeps the version read.
func (c *Writer) freeHeld(ctx context.Context, cl indexentries.Claim, item map[string]types.AttributeValue) (bool, error) {
	held, err := indexentries.ClaimFromItem(item)
	if err != nil {
		return false, nil // not a claim the store wrote: the refusal stands
	}
	holder := store.Key{Scope: held.Scope, Type: held.Type, ID: held.ID}
	if holder == (store.Key{Scope: cl.Scope, Type: cl.Type, ID: cl.ID}) {
		return false, nil
	}
	stored, err := c.core.GetItem(ctx, holder, true)
	if err != nil {
		return false, err
	}
	s, err := c.core.ReadStored(holder, stored)
	// The claim goes while the holder stays as read: missing, or at the version whose
	// record lacks the value.
	holds := expression.AttributeNotExists(expression.Name(schema.AttrID))
	switch {
	case err != nil:
		return false, err
	case s.Live() && recordHolds(holder, stored, held):
		return false, nil
	case s.Live():
		holds = expression.Name(schema.AttrVersion).Equal(expression.Value(store.AttrN(s.Version)))
	case s.Ending():
		if err := c.core.Deletes.CompleteDelete(ctx, holder, s); err != nil {
			return false, errs.Wrap(err, "completing the deletion of %s, which held %v in %s", holder, cl.Value.Interface(), cl.IndexName)
		}
		return true, nil
	}
	a := c.core.Transact(ctx, []types.TransactWriteItem{
		actions.EntityCheck(c.core.Names.Entities, holder, holds),
		actions.Release(c.core.Names.IndexEntries, held),
	}, commit.NewToken())
	switch a.Outcome {
	case commit.Committed, commit.ConditionFailed: // released, or the holder or the claim moved: read anew
		return true, nil
	}
	return false, a.Err
}

// recordHolds reports whether the index record of item, the live entity k, holds
// the value of cl; an item with no record (written before records) is taken to.
// Every unique value is in the record: an inline index cannot be unique.
func recordHolds(k store.Key, item map[string]types.AttributeValue, cl indexentries.Claim) bool {
	if _, ok := item[schema.AttrIndexEntries]; !ok {
		return true
	}
	return slices.ContainsFunc(store.RecordEntries(k, item), func(e indexentries.Entry) bool {
		return e.IndexName == cl.IndexName && e.Value.Encoding() == cl.Value.Encoding()
	})
}

// recordsNewExpiry reports whether a write meeting x that stores the expiry
// expires must put the claims its entity keeps again, so that they record it: the
// stored expiry differs, or is unknown and the write sets one. A claim recording
// an earlier expiry than its holder's only costs LookupUnique a read of the holder.
func recordsNewExpiry(x entitystate.Expectation, expires int64) bool {
	switch {
	case x.Absent:
		return false // every claim is new
	case x.ExpiresKnown:
		return x.Expires != expires
	}
	return expires > 0
}

// UnknownIndexes returns the names in the encoded set stored that are not in mine.
func UnknownIndexes(stored, mine string) []string {
	if stored == "" || stored == mine {
		return nil
	}
	known := strings.Split(mine, string(schema.Delimiter))
	var unknown []string
	for _, escaped := range strings.Split(stored, string(schema.Delimiter)) {
		if slices.Contains(known, escaped) {
			continue
		}
		name, err := schema.Unescape(escaped)
		if err != nil {
			name = escaped
		}
		unknown = append(unknown, indexes.Display(name))
	}
	return unknown
}

// recordMatches reports whether the index entries read are those the entity item
// records (_index_entries), with no large write under way: then they are the entries
// of the version read, whatever the order of the two reads, since every write
// changes both together. Projected attributes are not in the record; a write that
// relies on it puts every projected entry again.
func recordMatches(item map[string]types.AttributeValue, entries []map[string]types.AttributeValue) bool {
	if item == nil || item[schema.AttrPending] != nil || item[schema.AttrVersion] == nil {
		return false
	}
	var record map[string][]string
	if attributevalue.Unmarshal(item[schema.AttrIndexEntries], &record) != nil {
		return false
	}
	n := 0
	for _, keys := range record {
		n += len(slices.Compact(slices.Sorted(slices.Values(keys))))
	}
	if n != len(entries) {
		return false
	}
	for _, e := range store.ParseEntries(entries) {
		if !slices.Contains(record[e.IndexName], e.Value.Encoding()) {
			return false
		}
	}
	return true
}

// projectedPuts returns the puts of the entries that project attributes.
func projectedPuts(table string, entries []indexentries.Entry) []batching.WriteOp {
	var ops []batching.WriteOp
	for _, e := range entries {
		if len(e.Attributes) == 0 {
			continue
		}
		if item, err := e.Item(); err == nil {
			ops = append(ops, batching.PutOp(table, e.PrimaryKey(), item))
		}
	}
	return ops
}
