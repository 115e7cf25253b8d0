package indexing_test

import (
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
)

func TestConditionExpression(t *testing.T) {
	i5, s := indexing.Int(5).Encoding(), indexing.String("ada").Encoding()
	tests := []struct {
		name   string
		cond   indexing.Condition
		sk     string            // the condition on #sk; empty for none
		values map[string]string // the sort key placeholders
	}{
		{"all", indexing.All(), "", nil},
		{"zero condition is all", indexing.Condition{}, "", nil},
		{"equal", indexing.Equal(indexing.Int(5)), "#sk = :v", map[string]string{":v": i5}},
		{"begins with", indexing.BeginsWith(indexing.String("ad")), "begins_with(#sk, :v)", map[string]string{":v": "'ad"}},
		{"between", indexing.Between(indexing.Int(1), indexing.Int(5)), "#sk BETWEEN :lo AND :hi",
			map[string]string{":lo": "i8000000000000001", ":hi": i5}},
		{"between one value", indexing.Between(indexing.Int(5), indexing.Int(5)), "#sk BETWEEN :lo AND :hi",
			map[string]string{":lo": i5, ":hi": i5}},
		{"greater or equal int", indexing.GreaterOrEqual(indexing.Int(5)), "#sk BETWEEN :lo AND :hi",
			map[string]string{":lo": i5, ":hi": "j"}},
		{"greater int", indexing.Greater(indexing.Int(5)), "#sk BETWEEN :lo AND :hi",
			map[string]string{":lo": i5 + " ", ":hi": "j"}},
		{"less or equal int", indexing.LessOrEqual(indexing.Int(5)), "#sk BETWEEN :lo AND :hi",
			map[string]string{":lo": "i", ":hi": i5}},
		{"less int", indexing.Less(indexing.Int(5)), "#sk BETWEEN :lo AND :hi",
			map[string]string{":lo": "i", ":hi": "i8000000000000004"}},
		{"less int ending in 0", indexing.Less(indexing.Int(16)), "#sk BETWEEN :lo AND :hi",
			map[string]string{":lo": "i", ":hi": "i800000000000001/"}},
		{"less time", indexing.Less(indexing.Time(time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC))), "#sk BETWEEN :lo AND :hi",
			map[string]string{":lo": "t", ":hi": "t2024-05-01T00:00:00.000000000Y"}},
		{"greater float", indexing.Greater(indexing.Float(1)), "#sk BETWEEN :lo AND :hi",
			map[string]string{":lo": "fbff0000000000000 ", ":hi": "g"}},
		{"less bool", indexing.Less(indexing.Bool(true)), "#sk BETWEEN :lo AND :hi",
			map[string]string{":lo": "b", ":hi": "b0"}},
		{"greater or equal string", indexing.GreaterOrEqual(indexing.String("ada")), "#sk BETWEEN :lo AND :hi",
			map[string]string{":lo": s, ":hi": "("}},
		{"greater string", indexing.Greater(indexing.String("ada")), "#sk BETWEEN :lo AND :hi",
			map[string]string{":lo": s + " ", ":hi": "("}},
		{"less or equal string", indexing.LessOrEqual(indexing.String("ada")), "#sk <= :v", map[string]string{":v": s}},
		{"less string", indexing.Less(indexing.String("ada")), "#sk < :v", map[string]string{":v": s}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := tt.cond.Expression("acme", "by:age")
			require.NoError(t, err)
			requireWellFormed(t, x)

			wantNames := map[string]string{"#pk": "_scope_index_name"}
			wantValues := map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "acme:by%3Aage"}}
			wantCond := "#pk = :pk"
			if tt.sk != "" {
				wantCond += " AND " + tt.sk
				wantNames["#sk"] = "_index_key"
				for name, v := range tt.values {
					wantValues[name] = &types.AttributeValueMemberS{Value: v}
				}
			}
			require.Equal(t, wantCond, x.KeyCondition)
			require.Equal(t, wantNames, x.Names)
			require.Equal(t, wantValues, x.Values)
		})
	}
}

func TestConditionExpressionRejects(t *testing.T) {
	tests := []struct {
		name         string
		cond         indexing.Condition
		scope, index string
		reason       string
	}{
		{"empty scope", indexing.All(), "", "idx", "invalid scope: must not be empty"},
		{"scope with control character", indexing.All(), "a\nb", "idx", "control character"},
		{"empty index name", indexing.All(), "acme", "", "invalid index name: must not be empty"},
		{"partition key too long", indexing.All(), strings.Repeat("s", 1024), strings.Repeat("n", 1024), "DynamoDB allows at most 2048"},
		{"zero value", indexing.Equal(indexing.Value{}), "acme", "idx", "zero Value"},
		{"NaN", indexing.Less(indexing.Float(math.NaN())), "acme", "idx", "lt condition: invalid float value: NaN"},
		{"empty string", indexing.Greater(indexing.String("")), "acme", "idx", "must not be empty"},
		{"begins with int", indexing.BeginsWith(indexing.Int(1)), "acme", "idx", "begins_with needs a string or a tuple value, not a int"},
		{"between kinds", indexing.Between(indexing.Int(1), indexing.Float(2)), "acme", "idx", "not a int and a float"},
		{"between reversed", indexing.Between(indexing.Int(2), indexing.Int(1)), "acme", "idx", "lower bound first"},
		{"between invalid upper", indexing.Between(indexing.Int(2), indexing.Value{}), "acme", "idx", "upper bound"},
		{"between invalid lower", indexing.Between(indexing.String(""), indexing.String("a")), "acme", "idx", "must not be empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.cond.Expression(tt.scope, tt.index)
			requireInvalid(t, err, tt.reason)
		})
	}
}

func TestConditionString(t *testing.T) {
	tests := []struct {
		cond indexing.Condition
		want string
	}{
		{indexing.All(), "all()"},
		{indexing.Equal(indexing.String(`a"b`)), `eq("a\"b")`},
		{indexing.BeginsWith(indexing.String("ad")), `begins_with("ad")`},
		{indexing.Between(indexing.Int(1), indexing.Int(9)), `between(1, 9)`},
		{indexing.Between(indexing.Int(-2006), indexing.Int(2010)), `between(-2006, 2010)`},
		{indexing.Equal(indexing.Float(1)), `eq(1.0)`},
		{indexing.Equal(indexing.Float(-2.5e300)), `eq(-2.5e+300)`},
		{indexing.Equal(indexing.Time(time.Date(2024, 2, 3, 4, 5, 6, 7, time.UTC))), `eq(2024-02-03T04:05:06.000000007Z)`},
		{indexing.Equal(indexing.Value{}), `eq(Value{})`},
		{indexing.Equal(indexing.Float(math.NaN())), `eq(invalid float)`},
		{indexing.Less(indexing.Bool(true)), `lt(true)`},
		{indexing.LessOrEqual(indexing.Bool(false)), `le(false)`},
		{indexing.Greater(indexing.Bool(true)), `gt(true)`},
		{indexing.GreaterOrEqual(indexing.Bool(true)), `ge(true)`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			require.Equal(t, tt.want, tt.cond.String())
		})
	}
	require.NotEqual(t, indexing.Equal(indexing.Int(1)).String(), indexing.Equal(indexing.Float(1)).String())
}

func TestConditionMatch(t *testing.T) {
	tests := []struct {
		name  string
		cond  indexing.Condition
		value indexing.Value
		want  bool
	}{
		{"all matches any kind", indexing.All(), indexing.Bool(true), true},
		{"all skips invalid values", indexing.All(), indexing.Float(math.NaN()), false},
		{"equal", indexing.Equal(indexing.Int(3)), indexing.Int(3), true},
		{"equal other kind", indexing.Equal(indexing.Int(3)), indexing.Float(3), false},
		{"begins with", indexing.BeginsWith(indexing.String("ad")), indexing.String("ada"), true},
		{"begins with itself", indexing.BeginsWith(indexing.String("ad")), indexing.String("ad"), true},
		{"begins with other", indexing.BeginsWith(indexing.String("ad")), indexing.String("bob"), false},
		{"between low end", indexing.Between(indexing.Int(-3), indexing.Int(3)), indexing.Int(-3), true},
		{"between high end", indexing.Between(indexing.Int(-3), indexing.Int(3)), indexing.Int(3), true},
		{"between outside", indexing.Between(indexing.Int(-3), indexing.Int(3)), indexing.Int(4), false},
		{"less negative", indexing.Less(indexing.Float(-1)), indexing.Float(-2), true},
		{"less equal", indexing.Less(indexing.Float(-1)), indexing.Float(-1), false},
		{"less or equal", indexing.LessOrEqual(indexing.Float(-1)), indexing.Float(-1), true},
		{"less other kind", indexing.Less(indexing.Int(5)), indexing.String("a"), false},
		{"greater", indexing.Greater(indexing.Time(time.Unix(0, 0))), indexing.Time(time.Unix(0, 1)), true},
		{"greater equal", indexing.Greater(indexing.Time(time.Unix(0, 0))), indexing.Time(time.Unix(0, 0)), false},
		{"greater or equal", indexing.GreaterOrEqual(indexing.Time(time.Unix(0, 0))), indexing.Time(time.Unix(0, 0)), true},
		{"invalid condition", indexing.BeginsWith(indexing.Int(1)), indexing.Int(1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, tt.cond.Match(tt.value))
		})
	}
}

// TestExpressionAgreesWithMatch evaluates the key condition of every condition built
// from a corpus of values of all kinds against every value of the corpus, as DynamoDB
// compares strings (bytewise), and requires the answer of Match.
func TestExpressionAgreesWithMatch(t *testing.T) {
	corpus := valueCorpus()
	for _, v := range corpus {
		require.NoError(t, v.Validate(), "%q", v)
	}
	for _, cond := range conditionsFrom(corpus) {
		x, err := cond.Expression("s", "i")
		if cond.Validate() != nil {
			require.Error(t, err, "%s", cond)
			continue
		}
		require.NoError(t, err, "%s", cond)
		requireWellFormed(t, x)
		for _, v := range corpus {
			require.Equal(t, cond.Match(v), evalKeyCondition(t, x, "s:i", v.Encoding()),
				"condition %s on %q: %s", cond, v, x.KeyCondition)
		}
	}
}

// valueCorpus returns values of every kind, with extremes and neighbours.
func valueCorpus() []indexing.Value {
	base := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	return []indexing.Value{
		indexing.String("a"), indexing.String("a "), indexing.String("a!"), indexing.String("ab"),
		indexing.String("b"), indexing.String("~"), indexing.String("~\u0080"), indexing.String("日本"),
		indexing.String("\U0010FFFF\U0010FFFF"), indexing.String("i8000000000000005"),
		indexing.Bool(false), indexing.Bool(true),
		indexing.Int(math.MinInt64), indexing.Int(-16), indexing.Int(-1), indexing.Int(0), indexing.Int(5),
		indexing.Int(15), indexing.Int(16), indexing.Int(math.MaxInt64),
		indexing.Float(math.Inf(-1)), indexing.Float(-1), indexing.Float(-math.SmallestNonzeroFloat64),
		indexing.Float(0), indexing.Float(math.SmallestNonzeroFloat64), indexing.Float(5), indexing.Float(math.Inf(1)),
		indexing.Time(time.Time{}), indexing.Time(base.Add(-1)), indexing.Time(base), indexing.Time(base.Add(1)),
		indexing.Time(time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)),
		indexing.Tuple(indexing.String("a")), indexing.Tuple(indexing.String("a"), indexing.Int(5)),
		indexing.Tuple(indexing.String("a"), indexing.Int(16)), indexing.Tuple(indexing.String("a "), indexing.Int(0)),
		indexing.Tuple(indexing.String("ab")), indexing.Tuple(indexing.String("a"), indexing.String("open"), indexing.Time(base)),
		indexing.Tuple(indexing.Int(-1), indexing.Bool(true)), indexing.Tuple(indexing.Bool(false), indexing.String("~")),
	}
}

// conditionsFrom returns every condition on one or two values of corpus.
func conditionsFrom(corpus []indexing.Value) []indexing.Condition {
	conds := []indexing.Condition{indexing.All()}
	for _, a := range corpus {
		conds = append(conds, indexing.Equal(a), indexing.BeginsWith(a), indexing.Less(a),
			indexing.LessOrEqual(a), indexing.Greater(a), indexing.GreaterOrEqual(a))
		for _, b := range corpus {
			conds = append(conds, indexing.Between(a, b))
		}
	}
	return conds
}

var placeholder = regexp.MustCompile(`[#:][a-z]+`)

// requireWellFormed asserts what DynamoDB checks of a key condition: every placeholder
// it uses is defined, every one defined is used, and BETWEEN bounds are in order.
func requireWellFormed(t *testing.T, x indexing.Expression) {
	t.Helper()
	used := map[string]bool{}
	for _, p := range placeholder.FindAllString(x.KeyCondition, -1) {
		used[p] = true
		if p[0] == '#' {
			require.Contains(t, x.Names, p, x.KeyCondition)
		} else {
			require.Contains(t, x.Values, p, x.KeyCondition)
		}
	}
	for name := range x.Names {
		require.True(t, used[name], "unused name %s in %s", name, x.KeyCondition)
	}
	for name := range x.Values {
		require.True(t, used[name], "unused value %s in %s", name, x.KeyCondition)
	}
	if strings.Contains(x.KeyCondition, "BETWEEN") {
		require.LessOrEqual(t, sValue(t, x, ":lo"), sValue(t, x, ":hi"), x.KeyCondition)
	}
}

// evalKeyCondition evaluates a key condition of the forms Expression writes on an item
// with the given partition and sort key values.
func evalKeyCondition(t *testing.T, x indexing.Expression, partition, sortKey string) bool {
	t.Helper()
	pk, sk, _ := strings.Cut(x.KeyCondition, " AND ")
	require.Equal(t, "#pk = :pk", pk)
	if sValue(t, x, ":pk") != partition {
		return false
	}
	switch sk {
	case "":
		return true
	case "#sk = :v":
		return sortKey == sValue(t, x, ":v")
	case "begins_with(#sk, :v)":
		return strings.HasPrefix(sortKey, sValue(t, x, ":v"))
	case "#sk BETWEEN :lo AND :hi":
		return sValue(t, x, ":lo") <= sortKey && sortKey <= sValue(t, x, ":hi")
	case "#sk < :v":
		return sortKey < sValue(t, x, ":v")
	case "#sk <= :v":
		return sortKey <= sValue(t, x, ":v")
	}
	require.Failf(t, "unexpected key condition", "%q", x.KeyCondition)
	return false
}

func sValue(t *testing.T, x indexing.Expression, name string) string {
	t.Helper()
	v, ok := x.Values[name].(*types.AttributeValueMemberS)
	require.True(t, ok, "%s is %T", name, x.Values[name])
	return v.Value
}
