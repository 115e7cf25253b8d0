package indexentries_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/indexentries"
)

type attrs = map[string]types.AttributeValue

func TestDiff(t *testing.T) {
	one := entry("ada", indexing.Int(1), nil)
	two := entry("ada", indexing.Int(2), nil)
	three := entry("ada", indexing.Int(3), nil)
	named := func(e indexentries.Entry, name string) indexentries.Entry {
		e.Attributes = attrs{"name": s(name)}
		return e
	}
	otherIndex := one
	otherIndex.IndexName = "by_height"

	tests := []struct {
		name              string
		existing, emitted []indexentries.Entry
		puts, deletes     []indexentries.Entry
	}{
		{"nothing", nil, nil, nil, nil},
		{"all new", nil, []indexentries.Entry{one, two}, []indexentries.Entry{one, two}, nil},
		{"all dropped", []indexentries.Entry{one, two}, nil, nil, []indexentries.Entry{one, two}},
		{"unchanged", []indexentries.Entry{one, two}, []indexentries.Entry{two, one}, nil, nil},
		{"add and drop", []indexentries.Entry{one, two}, []indexentries.Entry{two, three}, []indexentries.Entry{three}, []indexentries.Entry{one}},
		{"same value in another index", []indexentries.Entry{one}, []indexentries.Entry{otherIndex},
			[]indexentries.Entry{otherIndex}, []indexentries.Entry{one}},
		{"changed projection is a put, not a delete", []indexentries.Entry{named(one, "Ada")}, []indexentries.Entry{named(one, "Ada L.")},
			[]indexentries.Entry{named(one, "Ada L.")}, nil},
		{"projection added", []indexentries.Entry{one}, []indexentries.Entry{named(one, "Ada")}, []indexentries.Entry{named(one, "Ada")}, nil},
		{"projection removed", []indexentries.Entry{named(one, "Ada")}, []indexentries.Entry{one}, []indexentries.Entry{one}, nil},
		{"nil and empty projections are equal", []indexentries.Entry{one}, []indexentries.Entry{entry("ada", indexing.Int(1), attrs{})}, nil, nil},
		{"emitted duplicates collapse", nil, []indexentries.Entry{one, two, one}, []indexentries.Entry{one, two}, nil},
		{"the last duplicate's projection wins", nil, []indexentries.Entry{named(one, "a"), two, named(one, "b")},
			[]indexentries.Entry{named(one, "b"), two}, nil},
		{"duplicate of an unchanged entry", []indexentries.Entry{one}, []indexentries.Entry{one, one}, nil, nil},
		{"existing duplicates delete once", []indexentries.Entry{one, one}, nil, nil, []indexentries.Entry{one}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			puts, deletes := indexentries.Diff(tt.existing, tt.emitted)
			require.Equal(t, tt.puts, puts)
			require.Equal(t, tt.deletes, deletes)
			requireDisjoint(t, puts, deletes)
		})
	}
}

func TestDiffComparesAttributesAsStored(t *testing.T) {
	tests := []struct {
		name        string
		stored, now types.AttributeValue
		equal       bool
	}{
		{"same string", s("a"), s("a"), true},
		{"other string", s("a"), s("b"), false},
		{"string and number", s("1"), n("1"), false},
		{"number written differently", n("100000000000000000000"), n("1e+20"), true},
		{"trailing zeros", n("1.50"), n("1.5"), true},
		{"leading zeros and sign", n("+007"), n("7"), true},
		{"negative zero", n("-0.0"), n("0"), true},
		{"small exponent", n("0.000123"), n("1.23E-4"), true},
		{"other number", n("1.5"), n("1.05"), false},
		{"sign matters", n("-1"), n("1"), false},
		{"not a number", n("abc"), n("abc"), true},
		{"not a number and a number", n("abc"), n("0"), false},
		{"binary", &types.AttributeValueMemberB{Value: []byte{1}}, &types.AttributeValueMemberB{Value: []byte{1}}, true},
		{"bool", &types.AttributeValueMemberBOOL{Value: true}, &types.AttributeValueMemberBOOL{Value: false}, false},
		{"null", &types.AttributeValueMemberNULL{Value: true}, &types.AttributeValueMemberNULL{Value: true}, true},
		{"string set in any order", &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
			&types.AttributeValueMemberSS{Value: []string{"b", "a"}}, true},
		{"string sets differ", &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
			&types.AttributeValueMemberSS{Value: []string{"a", "c"}}, false},
		{"number set", &types.AttributeValueMemberNS{Value: []string{"1", "2.0"}},
			&types.AttributeValueMemberNS{Value: []string{"2", "1"}}, true},
		{"binary set", &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2}}},
			&types.AttributeValueMemberBS{Value: [][]byte{{2}, {1}}}, true},
		{"list order matters", &types.AttributeValueMemberL{Value: []types.AttributeValue{s("a"), s("b")}},
			&types.AttributeValueMemberL{Value: []types.AttributeValue{s("b"), s("a")}}, false},
		{"list", &types.AttributeValueMemberL{Value: []types.AttributeValue{n("1"), s("b")}},
			&types.AttributeValueMemberL{Value: []types.AttributeValue{n("1.0"), s("b")}}, true},
		{"nested map", &types.AttributeValueMemberM{Value: attrs{"a": n("10")}},
			&types.AttributeValueMemberM{Value: attrs{"a": n("1e1")}}, true},
		{"nested maps differ", &types.AttributeValueMemberM{Value: attrs{"a": n("10")}},
			&types.AttributeValueMemberM{Value: attrs{"b": n("10")}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stored := entry("ada", indexing.Int(1), attrs{"x": tt.stored})
			now := entry("ada", indexing.Int(1), attrs{"x": tt.now})
			puts, deletes := indexentries.Diff([]indexentries.Entry{stored}, []indexentries.Entry{now})
			require.Empty(t, deletes)
			if tt.equal {
				require.Empty(t, puts)
			} else {
				require.Equal(t, []indexentries.Entry{now}, puts)
			}
		})
	}
}

// requireDisjoint asserts that no primary key is both put and deleted.
func requireDisjoint(t *testing.T, puts, deletes []indexentries.Entry) {
	t.Helper()
	keys := map[[2]string]bool{}
	for _, e := range puts {
		keys[primaryKey(e)] = true
	}
	for _, e := range deletes {
		require.False(t, keys[primaryKey(e)], "%v is both put and deleted", e.PrimaryKey())
	}
}

func primaryKey(e indexentries.Entry) [2]string {
	k := e.PrimaryKey()
	return [2]string{k["_subject_key"].(*types.AttributeValueMemberS).Value, k["_unique_key"].(*types.AttributeValueMemberS).Value}
}
