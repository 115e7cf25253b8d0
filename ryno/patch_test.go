package ryno

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

func TestEncodePatchRejects(t *testing.T) {
	big := strings.Repeat("x", 250*1024)
	tests := []struct {
		name  string
		p     Patch
		field string // of the *ValidationError
	}{
		{"nothing", Patch{}, "Patch"},
		{"empty maps and lists", Patch{Set: map[string]any{}, Remove: []string{}, Add: map[string]any{}}, "Patch"},
		{"reserved name in Set", Patch{Set: map[string]any{"_x": 1}}, "Attributes._x"},
		{"reserved name in Remove", Patch{Remove: []string{"_version"}}, "Attributes._version"},
		{"reserved name in Add", Patch{Add: map[string]any{"_version": 1}}, "Attributes._version"},
		{"empty name in Set", Patch{Set: map[string]any{"": 1}}, "Attributes"},
		{"empty name in Remove", Patch{Remove: []string{""}}, "Attributes"},
		{"empty name in Add", Patch{Add: map[string]any{"": 1}}, "Attributes"},
		{"Set and Remove", Patch{Set: map[string]any{"a": 1}, Remove: []string{"a"}}, "Patch"},
		{"Set and Add", Patch{Set: map[string]any{"a": 1}, Add: map[string]any{"a": 1}}, "Patch"},
		{"Remove and Add", Patch{Remove: []string{"a"}, Add: map[string]any{"a": 1}}, "Patch"},
		{"Remove twice", Patch{Remove: []string{"a", "b", "a"}}, "Patch"},
		{"Add of a string", Patch{Add: map[string]any{"n": "1"}}, "Patch.Add.n"},
		{"Add of a bool", Patch{Add: map[string]any{"n": true}}, "Patch.Add.n"},
		{"Add of nil", Patch{Add: map[string]any{"n": nil}}, "Patch.Add.n"},
		{"Add of a list", Patch{Add: map[string]any{"n": []int{1}}}, "Patch.Add.n"},
		{"Add of NaN", Patch{Add: map[string]any{"n": math.NaN()}}, "Patch.Add.n"},
		{"Add of infinity", Patch{Add: map[string]any{"n": math.Inf(-1)}}, "Patch.Add.n"},
		{"Add of 1e200", Patch{Add: map[string]any{"n": 1e200}}, "Patch.Add.n"},
		{"Add of a Number out of range", Patch{Add: map[string]any{"n": json.Number("1e126")}}, "Patch.Add.n"},
		{"Add of a Number that is not one", Patch{Add: map[string]any{"n": json.Number("one")}}, "Patch.Add.n"},
		{"Add of a func", Patch{Add: map[string]any{"f": func() {}}}, "Patch.Add.f"},
		{"Set of NaN", Patch{Set: map[string]any{"n": math.NaN()}}, "Patch.Set.n"},
		{"Set of 1e200", Patch{Set: map[string]any{"n": 1e200}}, "Patch.Set.n"},
		{"Set of a nested NaN", Patch{Set: map[string]any{"m": map[string]any{"n": math.NaN()}}}, "Patch.Set.m.n"},
		{"Set of a func", Patch{Set: map[string]any{"f": func() {}}}, "Patch.Set.f"},
		{"Set of a chan", Patch{Set: map[string]any{"c": make(chan int)}}, "Patch.Set.c"},
		{"Set of more than an item holds", Patch{Set: map[string]any{"a": big, "b": big}}, "Patch.Set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := encodePatch(tt.p)
			require.ErrorIs(t, err, ErrInvalid)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			require.Equal(t, tt.field, ve.Field, "error: %v", err)
		})
	}
}

func TestEncodePatchAccepts(t *testing.T) {
	tests := []struct {
		name string
		p    Patch
		want store.Patch
	}{
		{"Add of Go numbers", Patch{Add: map[string]any{"i": 1, "neg": int64(-3), "u": uint8(7), "f": 1.5, "zero": 0}},
			store.Patch{Add: map[string]string{"i": "1", "neg": "-3", "u": "7", "f": "1.5", "zero": "0"}}},
		{"Add of Numbers", Patch{Add: map[string]any{"e": json.Number("1e3"), "d": json.Number("-0.000000000000000000000000000000000001")}},
			store.Patch{Add: map[string]string{"e": "1e3", "d": "-0.000000000000000000000000000000000001"}}},
		{"Set", Patch{Set: map[string]any{"s": "x", "n": 2, "l": []any{1, "y"}, "null": nil}},
			store.Patch{Set: map[string]types.AttributeValue{
				"s":    str("x"),
				"n":    number(2),
				"l":    &types.AttributeValueMemberL{Value: []types.AttributeValue{number(1), str("y")}},
				"null": &types.AttributeValueMemberNULL{Value: true},
			}}},
		{"Remove keeps its order", Patch{Remove: []string{"b", "a"}}, store.Patch{Remove: []string{"b", "a"}}},
		{"all three", Patch{Set: map[string]any{"s": "x"}, Remove: []string{"r"}, Add: map[string]any{"n": 1}},
			store.Patch{Set: map[string]types.AttributeValue{"s": str("x")}, Remove: []string{"r"}, Add: map[string]string{"n": "1"}}},
		{"Set of exactly an item's size", Patch{Set: map[string]any{"a": strings.Repeat("x", schema.MaxItemBytes-1)}},
			store.Patch{Set: map[string]types.AttributeValue{"a": str(strings.Repeat("x", schema.MaxItemBytes-1))}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := encodePatch(tt.p)
			require.NoError(t, err)
			if tt.want.Set == nil {
				tt.want.Set = map[string]types.AttributeValue{}
			}
			if tt.want.Add == nil {
				tt.want.Add = map[string]string{}
			}
			require.Equal(t, tt.want, got)
		})
	}
}

func mustEncodePatch(t *testing.T, p Patch) store.Patch {
	t.Helper()
	ep, err := encodePatch(p)
	require.NoError(t, err)
	return ep
}

func TestEncodedPatchApply(t *testing.T) {
	stored := func() *Entity {
		return &Entity{Key: stateKey, Attributes: map[string]any{
			"s":    "text",
			"n":    json.Number("10"),
			"f":    json.Number("0.1"),
			"big":  json.Number("12345678901234567890123456789012345678"),
			"keep": true,
		}}
	}
	with := func(changes map[string]any, removed ...string) map[string]any {
		attrs := stored().Attributes
		for n, v := range changes {
			attrs[n] = v
		}
		for _, n := range removed {
			delete(attrs, n)
		}
		return attrs
	}
	tests := []struct {
		name string
		p    Patch
		want map[string]any
	}{
		{"Set a number as the store decodes it", Patch{Set: map[string]any{"n": 5, "x": 2.5}},
			with(map[string]any{"n": json.Number("5"), "x": json.Number("2.5")})},
		{"Set other values", Patch{Set: map[string]any{"s": "new", "l": []any{1, "a"}, "m": map[string]int{"k": 3}, "null": nil}},
			with(map[string]any{"s": "new", "l": []any{json.Number("1"), "a"}, "m": map[string]any{"k": json.Number("3")}, "null": nil})},
		{"Remove", Patch{Remove: []string{"keep", "missing"}}, with(nil, "keep")},
		{"Add", Patch{Add: map[string]any{"n": 5}}, with(map[string]any{"n": json.Number("15")})},
		{"Add exactly", Patch{Add: map[string]any{"f": 0.2}}, with(map[string]any{"f": json.Number("0.3")})},
		{"Add to 38 digits", Patch{Add: map[string]any{"big": 1}}, with(map[string]any{"big": json.Number("12345678901234567890123456789012345679")})},
		{"Add to a missing attribute", Patch{Add: map[string]any{"new": json.Number("7.50")}}, with(map[string]any{"new": json.Number("7.5")})},
		{"Add a negative delta", Patch{Add: map[string]any{"n": -12}}, with(map[string]any{"n": json.Number("-2")})},
		{"Add down to zero", Patch{Add: map[string]any{"f": json.Number("-0.1")}}, with(map[string]any{"f": json.Number("0")})},
		{"Add an exponent", Patch{Add: map[string]any{"n": json.Number("1e2")}}, with(map[string]any{"n": json.Number("110")})},
		{"all three", Patch{Set: map[string]any{"s": "t"}, Remove: []string{"keep"}, Add: map[string]any{"n": 1}},
			with(map[string]any{"s": "t", "n": json.Number("11")}, "keep")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := stored()
			require.NoError(t, applyPatch(e, mustEncodePatch(t, tt.p)))
			require.Equal(t, tt.want, e.Attributes)
			require.Equal(t, stateKey, e.Key)
		})
	}
}

func TestEncodedPatchApplyAddsOnlyToNumbers(t *testing.T) {
	tests := []struct {
		name  string
		value any
	}{
		{"string", "10"},
		{"bool", true},
		{"list", []any{json.Number("1")}},
		{"map", map[string]any{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &Entity{Key: stateKey, Attributes: map[string]any{"a": tt.value}}
			err := applyPatch(e, mustEncodePatch(t, Patch{Add: map[string]any{"a": 1}}))
			require.ErrorIs(t, err, ErrInvalid)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			require.Equal(t, "Patch.Add.a", ve.Field)
		})
	}
}

// updateClauses splits a rendered update expression into its clauses' actions.
func updateClauses(t *testing.T, rendered string) map[string][]string {
	t.Helper()
	clauses := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(rendered), "\n") {
		for _, kw := range []string{"SET", "REMOVE", "ADD", "DELETE"} {
			if rest, ok := strings.CutPrefix(line, kw); ok {
				clauses[kw] = strings.Split(rest, ",")
				break
			}
		}
	}
	return clauses
}

func TestPatchInput(t *testing.T) {
	now := time.Date(2025, 6, 7, 8, 9, 10, 11e6, time.UTC)
	c, err := New(struct{ DynamoDBAPI }{}, Options{TablePrefix: "t", Now: func() time.Time { return now }})
	require.NoError(t, err)
	updated := `_updated="` + schema.FormatTime(now) + `"`
	notExpired := "NOT(_expires<=" + strconv.FormatInt(now.Unix(), 10) + ")"
	// The one disjunction: a _created in the store's layout, or none; one in
	// another layout refuses the patch, which is sent again to rewrite it.
	inLayout := `(attribute_not_exists(_created))OR((size(_created)=24)AND(contains(_created,"T"))AND(contains(_created,"."))AND(contains(_created,"Z")))`
	base := []string{"attribute_exists(_id)", "attribute_not_exists(_deleting)", "attribute_not_exists(_indexes)", `_token<>"tok"`, notExpired, inLayout}
	tests := []struct {
		name    string
		p       Patch
		version int64
		clauses map[string][]string
	}{
		{"Set", Patch{Set: map[string]any{"b": "x", "a": 1}}, 0, map[string][]string{
			"SET":    {updated, `_token="tok"`, "a=1", `b="x"`},
			"REMOVE": {"_shape"},
			"ADD":    {"_version1"},
		}},
		{"Remove", Patch{Remove: []string{"r", "q"}}, 0, map[string][]string{
			"SET":    {updated, `_token="tok"`},
			"REMOVE": {"r", "q", "_shape"},
			"ADD":    {"_version1"},
		}},
		{"Add with a version", Patch{Add: map[string]any{"n": 2, "m": json.Number("-1.5")}}, 4, map[string][]string{
			"SET":    {updated, `_token="tok"`},
			"REMOVE": {"_shape"},
			"ADD":    {"_version1", "n2", "m-1.5"},
		}},
		{"all three with a version", Patch{Set: map[string]any{"s": "v"}, Remove: []string{"r"}, Add: map[string]any{"n": 3}}, 9, map[string][]string{
			"SET":    {updated, `_token="tok"`, `s="v"`},
			"REMOVE": {"r", "_shape"},
			"ADD":    {"_version1", "n3"},
		}},
		{"Expires alone", Patch{Expires: now.Add(90*time.Second + time.Millisecond)}, 0, map[string][]string{
			"SET":    {updated, `_token="tok"`, "_expires=" + strconv.FormatInt(now.Unix()+91, 10)},
			"REMOVE": {"_shape"},
			"ADD":    {"_version1"},
		}},
	}
	for _, tt := range tests { // every patch forgets the item's shape: it may add or remove names
		t.Run(tt.name, func(t *testing.T) {
			in := c.core.PatchInput(stateKey, mustEncodePatch(t, tt.p), store.PatchOptions{Version: tt.version}, "tok")
			require.Equal(t, "t_entities_master", aws.ToString(in.TableName))
			require.Equal(t, itemKey(stateKey), in.Key)
			require.Equal(t, types.ReturnValueAllNew, in.ReturnValues)
			require.Equal(t, types.ReturnValuesOnConditionCheckFailureAllOld, in.ReturnValuesOnConditionCheckFailure)

			update := renderExpr(t, in.UpdateExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues)
			got := updateClauses(t, update)
			require.Len(t, got, len(tt.clauses), "clauses of %q", update)
			for kw, actions := range tt.clauses {
				require.ElementsMatch(t, actions, got[kw], "%s of %q", kw, update)
			}

			cond := renderExpr(t, in.ConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues)
			require.NotContains(t, strings.Replace(cond, inLayout, "", 1), "OR")
			for _, w := range base {
				require.Contains(t, cond, w)
			}
			if tt.version > 0 {
				require.Contains(t, cond, "_version="+strconv.FormatInt(tt.version, 10))
			} else {
				require.NotContains(t, cond, "_version")
			}
		})
	}
}

func TestPatchInputNamesTopLevelAttributes(t *testing.T) {
	c, err := New(struct{ DynamoDBAPI }{}, Options{TablePrefix: "t"})
	require.NoError(t, err)
	for _, name := range []string{"a.b", "c[0]", "d]", "alias0", "x.y[1].z"} {
		t.Run(name, func(t *testing.T) {
			for _, p := range []Patch{{Set: map[string]any{name: 1}}, {Remove: []string{name}}, {Add: map[string]any{name: 1}}} {
				ep := mustEncodePatch(t, p)
				var in *dynamodb.UpdateItemInput
				require.NotPanics(t, func() { in = c.core.PatchInput(stateKey, ep, store.PatchOptions{}, "tok") })
				require.Contains(t, slices.Collect(maps.Values(in.ExpressionAttributeNames)), name)
			}
		})
	}
}

func TestEncodedPatchApplyRefusesAddToNull(t *testing.T) {
	e := &Entity{Key: stateKey, Attributes: map[string]any{"n": nil}}
	err := applyPatch(e, mustEncodePatch(t, Patch{Add: map[string]any{"n": 1}}))
	require.ErrorIs(t, err, ErrInvalid)
}
