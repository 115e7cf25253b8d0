package ryno

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/schema"
)

var (
	stateKey = Key{Scope: "s", Type: "t", ID: "i"}
	created1 = time.Date(2024, 1, 2, 3, 4, 5, 6e6, time.UTC)
	created2 = created1.Add(time.Millisecond)
)

var placeholder = regexp.MustCompile(`[#:][0-9A-Za-z_]+`)

// renderExpr returns expr with its placeholders replaced by the names and values
// they stand for (strings quoted) and without spaces, so that tests read
// `_version=3` whatever numbering the builder chose.
func renderExpr(t *testing.T, expr *string, names map[string]string, values map[string]types.AttributeValue) string {
	t.Helper()
	require.NotNil(t, expr)
	out := placeholder.ReplaceAllStringFunc(*expr, func(p string) string {
		if p[0] == '#' {
			if name, ok := names[p]; ok {
				return name
			}
		} else if av, ok := values[p]; ok {
			return renderValue(av)
		}
		t.Errorf("placeholder %s of %q is not defined", p, *expr)
		return p
	})
	return strings.ReplaceAll(out, " ", "")
}

func renderValue(av types.AttributeValue) string {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return strconv.Quote(v.Value)
	case *types.AttributeValueMemberN:
		return v.Value
	}
	return fmt.Sprintf("%T", av)
}

// renderCondition builds c as the store does and renders it.
func renderCondition(t *testing.T, c expression.ConditionBuilder) string {
	t.Helper()
	expr, err := expression.NewBuilder().WithCondition(c).Build()
	require.NoError(t, err)
	return renderExpr(t, expr.Condition(), expr.Names(), expr.Values())
}

// storedItem returns an entity item with the given store attributes (S unless
// given as an AttributeValue) on top of the key.
func storedItem(attrs map[string]any) map[string]types.AttributeValue {
	item := stateKey.item()
	for name, v := range attrs {
		switch v := v.(type) {
		case string:
			item[name] = str(v)
		case types.AttributeValue:
			item[name] = v
		default:
			panic(fmt.Sprintf("storedItem: %T", v))
		}
	}
	return item
}

func TestReadStored(t *testing.T) {
	full := storedItem(map[string]any{
		schema.AttrVersion:  number(7),
		schema.AttrCreated:  schema.FormatTime(created1),
		schema.AttrIndexes:  "a:b",
		schema.AttrToken:    "tok",
		schema.AttrPending:  "pend",
		schema.AttrDeleting: "del",
	})
	tests := []struct {
		name string
		item map[string]types.AttributeValue
		want stored
	}{
		{"no item", nil, stored{}},
		{"every mark", full, stored{item: full, version: 7, created: created1, indexes: "a:b", token: "tok", pending: "pend", deleting: "del"}},
		{"legacy item without version or marks", stateKey.item(), stored{item: stateKey.item()}},
		{"marks that are not strings are absent", storedItem(map[string]any{schema.AttrVersion: number(1), schema.AttrToken: number(3), schema.AttrPending: &types.AttributeValueMemberBOOL{Value: true}}),
			stored{version: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeStored(stateKey, tt.item, time.Now())
			require.NoError(t, err)
			tt.want.item = tt.item
			require.Equal(t, tt.want, got)
		})
	}
}

func TestReadStoredRejectsMalformedMarks(t *testing.T) {
	tests := []struct {
		name  string
		attrs map[string]any
		attr  string // named in the error
	}{
		{"version as a string", map[string]any{schema.AttrVersion: "3"}, schema.AttrVersion},
		{"negative version", map[string]any{schema.AttrVersion: number(-1)}, schema.AttrVersion},
		{"fractional version", map[string]any{schema.AttrVersion: &types.AttributeValueMemberN{Value: "1.5"}}, schema.AttrVersion},
		{"version beyond int64", map[string]any{schema.AttrVersion: &types.AttributeValueMemberN{Value: "9223372036854775808"}}, schema.AttrVersion},
		{"created as a number", map[string]any{schema.AttrVersion: number(1), schema.AttrCreated: number(1)}, schema.AttrCreated},
		{"created not a time", map[string]any{schema.AttrVersion: number(1), schema.AttrCreated: "yesterday"}, "yesterday"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeStored(stateKey, storedItem(tt.attrs), time.Now())
			require.Error(t, err)
			require.ErrorContains(t, err, stateKey.String())
			require.ErrorContains(t, err, tt.attr)
		})
	}
}

func TestStoredExistsAndLive(t *testing.T) {
	tests := []struct {
		name         string
		s            stored
		exists, live bool
	}{
		{"no item", stored{}, false, false},
		{"an entity", stored{item: stateKey.item(), version: 2}, true, true},
		{"an entity being written", stored{item: stateKey.item(), version: 2, pending: "p"}, true, true},
		{"a tombstone", stored{item: stateKey.item(), version: 3, deleting: "d"}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.exists, tt.s.exists())
			require.Equal(t, tt.live, tt.s.live())
		})
	}
}

func TestIndexSet(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		want  string
	}{
		{"none", nil, ""},
		{"empty", []string{}, ""},
		{"one", []string{"byName"}, "byName"},
		{"sorted", []string{"c", "a", "b"}, "a:b:c"},
		{"de-duplicated", []string{"b", "a", "b", "a"}, "a:b"},
		{"escaped", []string{"x:y", "p%q"}, "p%25q:x%3Ay"},
		{"sorted by escaped name", []string{"a0", "a:"}, "a%3A:a0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, indexSet(tt.names))
		})
	}
}

func TestUnknownIndexes(t *testing.T) {
	tests := []struct {
		name         string
		stored, mine string
		want         []string
	}{
		{"none stored", "", "a:b", nil},
		{"none stored or mine", "", "", nil},
		{"equal", "a:b", "a:b", nil},
		{"a subset of mine", "b", "a:b:c", nil},
		{"all unknown to a client without indexes", "a:b", "", []string{"a", "b"}},
		{"some unknown", "a:b:c", "b", []string{"a", "c"}},
		{"names are unescaped", "p%25q:x%3Ay:z", "z", []string{"p%q", "x:y"}},
		{"escaped names are compared escaped", "x%3Ay", indexSet([]string{"x:y"}), nil},
		{"a name mine only contains", "ab", "abc", []string{"ab"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, unknownIndexes(tt.stored, tt.mine))
		})
	}
}

func TestIndexSetRoundTripsThroughUnknownIndexes(t *testing.T) {
	names := []string{"z", "a:b", "100%", "a:b", "m"}
	require.ElementsMatch(t, []string{"100%", "a:b", "m", "z"}, unknownIndexes(indexSet(names), ""))
}

func TestExpectationHolds(t *testing.T) {
	item := stateKey.item()
	entity := func(version int64, mod func(*stored)) stored {
		s := stored{item: item, version: version, created: created1, indexes: "a:b", token: "tok"}
		if mod != nil {
			mod(&s)
		}
		return s
	}
	versioned := expectation{version: 3}
	carried := expectation{version: 3, carried: true, indexes: "a:b"}
	tests := []struct {
		name string
		x    expectation
		s    stored
		want bool
	}{
		{"absent: no item", expectation{absent: true}, stored{}, true},
		{"absent: an entity", expectation{absent: true}, entity(1, nil), false},
		{"absent: a tombstone", expectation{absent: true}, entity(2, func(s *stored) { s.deleting = "d" }), false},

		{"version: no item", versioned, stored{}, false},
		{"version: equal", versioned, entity(3, nil), true},
		{"version: older", versioned, entity(2, nil), false},
		{"version: newer", versioned, entity(4, nil), false},
		{"version: pending and indexes not checked", versioned, entity(3, func(s *stored) { s.pending, s.indexes = "p", "zz" }), true},

		{"legacy: item without version", expectation{}, stored{item: item}, true},
		{"legacy: versioned item", expectation{}, entity(1, nil), false},
		{"legacy: no item", expectation{}, stored{}, false},

		{"created: equal", expectation{version: 3, created: created1}, entity(3, nil), true},
		{"created: same instant elsewhere", expectation{version: 3, created: created1.In(time.FixedZone("x", 3600))}, entity(3, nil), true},
		{"created: another life", expectation{version: 3, created: created2}, entity(3, nil), false},
		{"created: none stored", expectation{version: 3, created: created1}, entity(3, func(s *stored) { s.created = time.Time{} }), false},
		{"created: not checked when zero", versioned, entity(3, func(s *stored) { s.created = created2 }), true},
		{"created: but version differs", expectation{version: 3, created: created1}, entity(4, nil), false},

		{"carried: as expected", carried, entity(3, nil), true},
		{"carried: pending", carried, entity(3, func(s *stored) { s.pending = "p" }), false},
		{"carried: other indexes", carried, entity(3, func(s *stored) { s.indexes = "a" }), false},
		{"carried: indexes where none expected", expectation{version: 3, carried: true}, entity(3, nil), false},
		{"carried: none expected, none stored", expectation{version: 3, carried: true}, entity(3, func(s *stored) { s.indexes = "" }), true},
		{"carried: but version differs", carried, entity(2, nil), false},

		{"pending mark is not part of the condition", expectation{version: 3, pending: true}, entity(3, nil), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, tt.x.holds(tt.s))
		})
	}
}

func TestExpectationNext(t *testing.T) {
	tests := []struct {
		name string
		x    expectation
		want int64
	}{
		{"absent", expectation{absent: true}, 1},
		{"absent ignores a stale version", expectation{absent: true, version: 9}, 1},
		{"legacy", expectation{}, 1},
		{"versioned", expectation{version: 5}, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, tt.x.next())
		})
	}
}

func TestExpectationCondition(t *testing.T) {
	created := `_created="` + schema.FormatTime(created1) + `"`
	tests := []struct {
		name      string
		x         expectation
		want, not []string
	}{
		{"absent", expectation{absent: true},
			[]string{"attribute_not_exists(_id)"}, []string{"_version", "_created", "_pending", "_indexes"}},
		{"absent ignores the rest", expectation{absent: true, version: 4, created: created1, carried: true},
			[]string{"attribute_not_exists(_id)"}, []string{"_version", "_created", "_pending", "_indexes"}},
		{"versioned", expectation{version: 3},
			[]string{"_version=3"}, []string{"attribute_exists", "_created", "_pending", "_indexes"}},
		{"legacy", expectation{},
			[]string{"attribute_exists(_id)", "attribute_not_exists(_version)"}, []string{"_version=", "_created"}},
		{"created", expectation{version: 3, created: created1},
			[]string{"_version=3", created}, []string{"_pending", "_indexes"}},
		{"created in another zone is stored in UTC", expectation{version: 3, created: created1.In(time.FixedZone("x", -7200))},
			[]string{created}, nil},
		{"carried", expectation{version: 3, carried: true, indexes: "a:b"},
			[]string{"_version=3", "attribute_not_exists(_pending)", `_indexes="a:b"`}, []string{"_created", "attribute_not_exists(_indexes)"}},
		{"carried without indexes", expectation{version: 3, carried: true},
			[]string{"_version=3", "attribute_not_exists(_pending)", "attribute_not_exists(_indexes)"}, []string{"_indexes="}},
		{"carried legacy with created", expectation{created: created1, carried: true, indexes: "a"},
			[]string{"attribute_not_exists(_version)", created, "attribute_not_exists(_pending)", `_indexes="a"`}, nil},
		{"pending is pinned by the version", expectation{version: 3, pending: true},
			[]string{"_version=3"}, []string{"_pending"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := renderCondition(t, tt.x.condition())
			require.NotContains(t, got, "OR")
			for _, w := range tt.want {
				require.Contains(t, got, w)
			}
			for _, n := range tt.not {
				require.NotContains(t, got, n)
			}
		})
	}
}

func randomStored(r *rand.Rand) stored {
	if r.IntN(5) == 0 {
		return stored{}
	}
	pick := func(options ...string) string { return options[r.IntN(len(options))] }
	s := stored{
		item:     stateKey.item(),
		version:  r.Int64N(4),
		indexes:  pick("", "a", "a:b"),
		token:    pick("t1", "t2"),
		pending:  pick("", "p"),
		deleting: pick("", "", "d"),
	}
	if r.IntN(2) == 0 {
		s.created = created1.Add(time.Duration(r.IntN(3)) * time.Millisecond)
	}
	return s
}

func TestExpectedStateHoldsOnlyForItself(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		s, s2 := randomStored(r), randomStored(r)
		x := expect(s)
		require.True(t, x.holds(s), "expect(%+v) must hold for itself", s)
		require.Equal(t, !s.exists(), x.absent)
		changed := s.exists() != s2.exists() || s.exists() && s2.version != s.version
		if changed {
			require.False(t, x.holds(s2), "expect(%+v) must not hold for %+v", s, s2)
		}
		if !s.exists() && !s2.exists() {
			require.True(t, x.holds(s2))
		}
	}
}
