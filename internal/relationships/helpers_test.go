package relationships_test

import (
	"math"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

type (
	Key   = entity.Key
	Entry = relationships.Entry
	Plan  = relationships.Plan
)

const predicate = "likes"

// maxIndex is the highest index an Entry can hold: schema.MaxIndex, or less where
// int has 32 bits.
const maxIndex = min(schema.MaxIndex, math.MaxInt)

// beyondMaxIndex returns schema.MaxIndex+1, or skips t where int cannot hold it.
func beyondMaxIndex(t *testing.T) int {
	t.Helper()
	if strconv.IntSize < 64 {
		t.Skip("int cannot hold an index above schema.MaxIndex")
	}
	var top int64 = schema.MaxIndex // a variable: the conversion below must compile everywhere
	return int(top + 1)
}

var subject = Key{Scope: "acme", Type: "person", ID: "ada"}

// Objects of the plan tests; B2 differs from B in scope only.
var (
	A  = obj("a")
	B  = obj("b")
	C  = obj("c")
	D  = obj("d")
	E  = obj("e")
	X  = obj("x")
	Y  = obj("y")
	B2 = Key{Scope: "other", Type: B.Type, ID: B.ID}
)

func obj(id string) Key { return Key{Scope: "acme", Type: "book", ID: id} }

// at returns the entry of subject's list for predicate holding o at index i.
func at(i int, o Key) Entry {
	return Entry{Subject: subject, Predicate: predicate, Index: i, Object: o}
}

// list returns the entries of a list numbered 0..n-1.
func list(objects ...Key) []Entry {
	entries := make([]Entry, len(objects))
	for i, o := range objects {
		entries[i] = at(i, o)
	}
	return entries
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

// primaryKey returns e's primary key as one comparable string.
func primaryKey(e Entry) string {
	k := e.PrimaryKey()
	return k[schema.AttrSubjectKey].(*types.AttributeValueMemberS).Value + "\x00" +
		k[schema.AttrPredicateKey].(*types.AttributeValueMemberS).Value
}

// requirePlan asserts that got has exactly the given puts and deletes, in order,
// and holds the invariants of every plan.
func requirePlan(t *testing.T, existing []Entry, got Plan, puts, deletes []Entry) {
	t.Helper()
	require.Equal(t, puts, nonEmpty(got.Puts), "puts")
	require.Equal(t, deletes, nonEmpty(got.Deletes), "deletes")
	requireSound(t, existing, got)
}

func nonEmpty(entries []Entry) []Entry {
	if len(entries) == 0 {
		return nil
	}
	return entries
}

// requireSound asserts the invariants of every plan: no primary key written twice,
// only existing entries deleted, every index valid.
func requireSound(t testing.TB, existing []Entry, p Plan) {
	t.Helper()
	present := make(map[string]bool, len(existing))
	for _, e := range existing {
		present[primaryKey(e)] = true
	}
	written := make(map[string]string)
	for _, w := range []struct {
		op      string
		entries []Entry
	}{{"put", p.Puts}, {"delete", p.Deletes}} {
		for _, e := range w.entries {
			k := primaryKey(e)
			if prev, dup := written[k]; dup {
				require.Failf(t, "key written twice", "%s of %+v: the key already has a %s", w.op, e, prev)
			}
			written[k] = w.op
			if err := schema.ValidateIndex(e.Index); err != nil {
				require.NoError(t, err, "%s of %+v", w.op, e)
			}
			if w.op == "delete" && !present[k] {
				require.Failf(t, "delete of a missing entry", "%+v", e)
			}
		}
	}
}

// apply returns the list after p is applied to existing, in key order.
func apply(t testing.TB, existing []Entry, p Plan) []Entry {
	t.Helper()
	items := make(map[string]Entry, len(existing)+len(p.Puts))
	for _, e := range existing {
		items[primaryKey(e)] = e
	}
	for _, e := range p.Deletes {
		delete(items, primaryKey(e))
	}
	for _, e := range p.Puts {
		items[primaryKey(e)] = e
	}
	result := make([]Entry, 0, len(items))
	for _, e := range items {
		result = append(result, e)
	}
	relationships.Sort(result)
	return result
}
