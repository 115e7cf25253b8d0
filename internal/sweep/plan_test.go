package sweep

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/exprtest"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

func deletes(prefix string, n int) []batching.WriteOp {
	ops := make([]batching.WriteOp, n)
	for i := range ops {
		ops[i] = batching.DeleteOp("t", map[string]types.AttributeValue{"k": &types.AttributeValueMemberS{Value: fmt.Sprintf("%s%d", prefix, i)}})
	}
	return ops
}

func fenced(n int) []Fenced {
	out := make([]Fenced, n)
	for i := range out {
		out[i] = Fenced{Key: map[string]types.AttributeValue{"k": &types.AttributeValueMemberS{Value: fmt.Sprint(i)}}, Token: "t"}
	}
	return out
}

// listPart is the part deleting n entries of subject's list under predicate that
// point at the deleted entity.
func listPart(subject string, predicate string, n int) Part {
	s := entity.Key{Scope: "s", Type: "t", ID: subject}
	gone := entity.Key{Scope: "s", Type: "t", ID: "gone"}
	entries := make([]relationships.Entry, n)
	for i := range entries {
		entries[i] = relationships.Entry{Subject: s, Predicate: predicate, Index: i, Object: gone}
	}
	ch := IncomingChange(entries)
	return Part{List: &ch}
}

func TestPack(t *testing.T) {
	tests := []struct {
		name  string
		parts []Part
		sizes []int // the actions of each transaction
	}{
		{"all in one", []Part{{Deletes: deletes("a", 10)}, {Fenced: fenced(5)}, listPart("x", "p", 3)}, []int{20}},
		{"plain deletes beyond capacity", []Part{{Deletes: deletes("a", 250)}}, []int{99, 99, 52}},
		{"fenced deletes beyond capacity", []Part{{Fenced: fenced(120)}}, []int{99, 21}},
		{"one list twice goes in two", []Part{listPart("x", "p", 3), listPart("x", "p", 4)}, []int{5, 6}},
		{"two lists go together", []Part{listPart("x", "p", 3), listPart("y", "p", 4)}, []int{11}},
		{"a large list is split in parts of its own", []Part{listPart("x", "p", 150)}, []int{99, 55}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			txs := Pack(tt.parts, 99)
			var sizes []int
			for _, tx := range txs {
				n := 0
				for _, p := range tx {
					n += p.Actions()
				}
				sizes = append(sizes, n)
			}
			if fmt.Sprint(sizes) != fmt.Sprint(tt.sizes) {
				t.Errorf("transactions of %v actions, want %v", sizes, tt.sizes)
			}
		})
	}
}

// TestPackKeepsEveryAction packs random parts: every delete, fenced delete,
// release, own head and list entry is in exactly one transaction, no transaction passes the
// capacity or holds one list twice, and a list split in parts says so.
func TestPackKeepsEveryAction(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 9))
	for round := range 500 {
		var parts []Part
		want := map[string]int{}
		for i := range r.IntN(6) {
			switch r.IntN(3) {
			case 0:
				p := Part{Deletes: deletes(fmt.Sprintf("d%d-", i), r.IntN(120)), Fenced: fenced(r.IntN(120))}
				want["delete"] += len(p.Deletes)
				want["fenced"] += len(p.Fenced)
				parts = append(parts, p)
			case 1:
				p := Part{Releases: make([]indexentries.Claim, r.IntN(150)), Heads: make([]OwnHead, r.IntN(150))}
				want["release"] += len(p.Releases)
				want["head"] += len(p.Heads)
				parts = append(parts, p)
			default:
				n := 1 + r.IntN(200)
				want["entry"] += n
				parts = append(parts, listPart(fmt.Sprintf("s%d", r.IntN(3)), "p", n))
			}
		}
		capacity := 10 + r.IntN(90)
		got := map[string]int{}
		for _, tx := range Pack(parts, capacity) {
			size := 0
			lists := map[string]bool{}
			for _, p := range tx {
				size += p.Actions()
				got["delete"] += len(p.Deletes)
				got["fenced"] += len(p.Fenced)
				got["release"] += len(p.Releases)
				got["head"] += len(p.Heads)
				if p.List == nil {
					continue
				}
				got["entry"] += len(p.List.Deletes)
				id := p.List.Subject.String() + "/" + p.List.Predicate
				if lists[id] {
					t.Fatalf("round %d: list %s twice in one transaction", round, id)
				}
				lists[id] = true
				if len(p.List.Deletes) != -p.List.CountDelta {
					t.Fatalf("round %d: a part of %d entries takes %d from the count", round, len(p.List.Deletes), -p.List.CountDelta)
				}
			}
			if size > capacity {
				t.Fatalf("round %d: a transaction of %d actions, capacity %d", round, size, capacity)
			}
		}
		maps.DeleteFunc(got, func(_ string, n int) bool { return n == 0 })
		maps.DeleteFunc(want, func(_ string, n int) bool { return n == 0 })
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("round %d: packed %v, want %v", round, got, want)
		}
	}
}

func TestTakeFenced(t *testing.T) {
	list := listPart("x", "p", 2)
	parts := []Part{{Fenced: fenced(3)}, {Deletes: deletes("a", 2), Fenced: fenced(2)}, list}

	got, rest := TakeFenced(parts, 5)
	if len(got) != 5 {
		t.Fatalf("took %d fenced deletes, want 5", len(got))
	}
	if len(rest) != 2 || len(rest[0].Deletes) != 2 || len(rest[0].Fenced) != 0 || rest[1].List != list.List {
		t.Errorf("left %+v: want the part of plain deletes, without its fenced ones, and the list", rest)
	}
	if len(parts[1].Fenced) != 2 {
		t.Error("the caller's parts changed")
	}

	got, rest = TakeFenced(parts, 4)
	if got != nil || len(rest) != len(parts) {
		t.Errorf("over the limit: took %d, left %d parts; want none taken", len(got), len(rest))
	}
}

func TestClaimsBeside(t *testing.T) {
	claim := func(v string) indexentries.Claim {
		return indexentries.Claim{Scope: "s", IndexName: "email", Value: indexing.String(v), Type: "person", ID: "1"}
	}
	parts := []Part{{Releases: []indexentries.Claim{claim("a")}}}
	got := ClaimsBeside([]indexentries.Claim{claim("a"), claim("b"), claim("b"), claim("c")}, parts)
	if fmt.Sprint(got) != fmt.Sprint([]indexentries.Claim{claim("b"), claim("c")}) {
		t.Errorf("ClaimsBeside = %v, want b and c once each", got)
	}
}

func TestHoldsPositions(t *testing.T) {
	expr, err := expression.NewBuilder().WithCondition(HoldsPositions([]int{3, 7, 9})).Build()
	if err != nil {
		t.Fatal(err)
	}
	text := *expr.Condition()
	if n := strings.Count(text, "contains ("); n != 3 {
		t.Errorf("condition %q checks %d positions, want 3", text, n)
	}
	for _, v := range expr.Values() {
		if _, ok := v.(*types.AttributeValueMemberN); !ok {
			t.Errorf("position %v is not a number", v)
		}
	}
	for _, name := range expr.Names() {
		if name != schema.AttrPositions {
			t.Errorf("condition on %s, want %s", name, schema.AttrPositions)
		}
	}
}

func TestFenceOf(t *testing.T) {
	item := map[string]types.AttributeValue{
		schema.AttrSubjectKey:   &types.AttributeValueMemberS{Value: "s:t:1"},
		schema.AttrPredicateKey: &types.AttributeValueMemberS{Value: "likes:s:t:2"},
		schema.AttrToken:        &types.AttributeValueMemberS{Value: "tok"},
		schema.AttrObjectKey:    &types.AttributeValueMemberS{Value: "s:t:2"},
	}
	f := FenceOf(item)
	if len(f.Key) != 2 || f.Token != "tok" {
		t.Errorf("FenceOf = %+v: want the primary key and the token", f)
	}
	delete(item, schema.AttrToken)
	if FenceOf(item).Token != "" {
		t.Error("an entry without a token fences on its absence")
	}
}

func TestOwnHead(t *testing.T) {
	key := map[string]types.AttributeValue{
		schema.AttrSubjectKey:   &types.AttributeValueMemberS{Value: "s:t:1"},
		schema.AttrPredicateKey: &types.AttributeValueMemberS{Value: schema.ListHeadKey("follows")},
	}
	tests := []struct {
		name    string
		version types.AttributeValue
		want    string
	}{
		{"a head", &types.AttributeValueMemberN{Value: "42"}, "_version=42"},
		{"a head without a version", nil, "attribute_not_exists(_version)"},
		{"a head whose version is damaged", &types.AttributeValueMemberS{Value: "x"}, `_version="x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			item := maps.Clone(key)
			item[schema.AttrCount] = &types.AttributeValueMemberN{Value: "3"}
			if tt.version != nil {
				item[schema.AttrVersion] = tt.version
			}
			h := OwnHeadOf(item)
			if fmt.Sprint(h.Key) != fmt.Sprint(key) {
				t.Errorf("OwnHeadOf key = %v, want the primary key %v", h.Key, key)
			}
			if got := exprtest.Condition(t, h.Condition()); got != tt.want {
				t.Errorf("condition %q, want %q", got, tt.want)
			}
		})
	}
}
