package relationships

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/schema"
)

func TestPlanOrderedSet(t *testing.T) {
	s := entity.Key{Scope: "s", Type: "board", ID: "1"}
	k := func(id string) entity.Key { return entity.Key{Scope: "s", Type: "card", ID: id} }
	held := func(pairs ...any) []Entry {
		var out []Entry
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, OrderedSetEntry(s, "cards", k(pairs[i].(string)), int64(pairs[i+1].(int))))
		}
		return out
	}
	ids := func(ks ...string) []entity.Key {
		out := make([]entity.Key, len(ks))
		for i, id := range ks {
			out[i] = k(id)
		}
		return out
	}
	tests := []struct {
		name    string
		current []Entry
		want    []entity.Key
		puts    map[string]int64 // object id -> position written
		deletes []string
	}{
		{"unchanged", held("a", 10, "b", 20), ids("a", "b"), map[string]int64{}, nil},
		{"append", held("a", 10, "b", 20), ids("a", "b", "c", "d"), map[string]int64{"c": 1000, "d": 1010}, nil},
		{"remove and append", held("a", 10, "b", 20, "c", 30), ids("a", "c", "x"), map[string]int64{"x": 1000}, []string{"b"}},
		{"insert in front", held("a", 10, "b", 20), ids("x", "a", "b"), map[string]int64{"x": 4}, nil},
		{"insert between", held("a", 10, "b", 40), ids("a", "x", "y", "b"), map[string]int64{"x": 20, "y": 30}, nil},
		{"move one back", held("a", 10, "b", 20, "c", 30), ids("b", "c", "a"), map[string]int64{"a": 1000}, nil},
		{"move one to front", held("a", 10, "b", 20, "c", 30), ids("c", "a", "b"), map[string]int64{"c": 4}, nil},
		{"no room", held("a", 1, "b", 2, "c", 3), ids("a", "x", "b", "c"), map[string]int64{"x": 1000, "b": 1010, "c": 1020}, nil},
		{"empty", held("a", 1), nil, map[string]int64{}, []string{"a"}},
		{"from nothing", nil, ids("a", "b"), map[string]int64{"a": 1000, "b": 1010}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := PlanOrderedSet(s, "cards", tt.current, tt.want, 1000, 10)
			puts := map[string]int64{}
			for _, e := range plan.Puts {
				if !e.Ordered || !e.InSet || e.Subject != s || e.Predicate != "cards" {
					t.Fatalf("put %+v is not an entry of the ordered set", e)
				}
				puts[e.Object.ID] = e.Position
			}
			if fmt.Sprint(puts) != fmt.Sprint(tt.puts) {
				t.Errorf("puts = %v, want %v", puts, tt.puts)
			}
			var dels []string
			for _, e := range plan.Deletes {
				dels = append(dels, e.Object.ID)
			}
			if !slices.Equal(dels, tt.deletes) {
				t.Errorf("deletes = %v, want %v", dels, tt.deletes)
			}
			checkOrdered(t, tt.current, tt.want, plan)
		})
	}
}

// checkOrdered checks that applying plan to current leaves exactly want, in order.
func checkOrdered(t *testing.T, current []Entry, want []entity.Key, plan OrderedPlan) {
	t.Helper()
	after := map[entity.Key]int64{}
	for _, e := range current {
		after[e.Object] = e.Position
	}
	for _, e := range plan.Deletes {
		delete(after, e.Object)
	}
	for _, e := range plan.Puts {
		if e.Position < 0 {
			t.Fatalf("negative position %d", e.Position)
		}
		after[e.Object] = e.Position
	}
	if len(after) != len(want) {
		t.Fatalf("the set holds %d objects after the plan, want %d", len(after), len(want))
	}
	for i := 1; i < len(want); i++ {
		if after[want[i-1]] >= after[want[i]] {
			t.Fatalf("%v at %d does not come before %v at %d", want[i-1], after[want[i-1]], want[i], after[want[i]])
		}
	}
}

// TestPlanOrderedSetRandom replaces random sets with random orders: the result is
// always exactly the order asked, and an object is written only when it is new or
// out of the longest run kept in order.
func TestPlanOrderedSetRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	s := entity.Key{Scope: "s", Type: "board", ID: "1"}
	for round := range 2000 {
		n := r.IntN(12)
		var current []Entry
		maxPos := int64(-1)
		for i := range n {
			pos := maxPos + 1 + int64(r.IntN(4)) // gaps of 0 to 3: both room and none occur
			maxPos = pos
			current = append(current, OrderedSetEntry(s, "p", entity.Key{Scope: "s", Type: "t", ID: fmt.Sprint(i)}, pos))
		}
		var want []entity.Key
		for _, i := range r.Perm(n + 3) {
			if r.IntN(3) > 0 {
				want = append(want, entity.Key{Scope: "s", Type: "t", ID: fmt.Sprint(i)})
			}
		}
		plan := PlanOrderedSet(s, "p", current, want, maxPos+1, int64(1+r.IntN(3)))
		t.Run(fmt.Sprint(round), func(t *testing.T) { checkOrdered(t, current, want, plan) })
		if t.Failed() {
			return
		}
	}
}

func TestOrderedSetEntryRoundTrip(t *testing.T) {
	s := entity.Key{Scope: "t:1", Type: "board", ID: "b%1"}
	o := entity.Key{Scope: "t:1", Type: "card", ID: "c:2"}
	e := OrderedSetEntry(s, "cards", o, 1_795_000_000_123_456)
	item := e.Item()
	got, err := FromItem(item)
	if err != nil || !got.InSet || !got.Ordered || got.Position != e.Position || got.Object != o || got.Index != 0 {
		t.Fatalf("FromItem = %+v, %v; want the ordered entry at %d", got, err, e.Position)
	}
	keys := map[string]types.AttributeValue{}
	for _, name := range []string{schema.AttrSubjectKey, schema.AttrPredicateKey, schema.AttrPredicateObjectKey} {
		keys[name] = item[name]
	}
	got, err = FromOrderedKeys(s, "cards", keys)
	if err != nil || got.Object != o || got.Position != e.Position || !got.Ordered {
		t.Fatalf("FromOrderedKeys = %+v, %v", got, err)
	}
	for name, bad := range map[string]string{
		schema.AttrSubjectKey:         "t%3A1:board:other",
		schema.AttrPredicateKey:       "cards:t%3A1:card",
		schema.AttrPredicateObjectKey: "cards:t%3A1:card:c%3A2",
	} {
		broken := maps.Clone(keys)
		broken[name] = &types.AttributeValueMemberS{Value: bad}
		if _, err := FromOrderedKeys(s, "cards", broken); err == nil {
			t.Errorf("FromOrderedKeys accepted %s = %q", name, bad)
		}
	}
	plain, err := FromItem(SetEntry(s, "cards", o).Item())
	if err != nil || !plain.InSet || plain.Ordered {
		t.Errorf("a set entry reads as %+v, %v", plain, err)
	}
}

func TestSortOrdered(t *testing.T) {
	s := entity.Key{Scope: "s", Type: "board", ID: "1"}
	o := func(id string) entity.Key { return entity.Key{Scope: "s", Type: "card", ID: id} }
	entries := []Entry{
		{Subject: s, Predicate: "a", Index: 0, Object: o("z")},
		{Subject: s, Predicate: "a", Index: 1, Object: o("y")},
		OrderedSetEntry(s, "b", o("x"), 30),
		OrderedSetEntry(s, "b", o("y"), 10),
		OrderedSetEntry(s, "b", o("z"), 20),
		OrderedSetEntry(s, "c", o("a"), 2),
		OrderedSetEntry(s, "c", o("b"), 1),
	}
	SortOrdered(entries)
	var got []string
	for _, e := range entries {
		got = append(got, e.Predicate+e.Object.ID)
	}
	if want := []string{"az", "ay", "by", "bz", "bx", "cb", "ca"}; !slices.Equal(got, want) {
		t.Errorf("SortOrdered = %v, want %v", got, want)
	}
}
