package schema_test

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/schema"
)

type item = map[string]types.AttributeValue

func TestItemSize(t *testing.T) {
	tests := []struct {
		name string
		item item
		want int
	}{
		{"nil item", nil, 0},
		{"empty item", item{}, 0},
		{"string: name + UTF-8 bytes", item{"a": &types.AttributeValueMemberS{Value: "héllo"}}, 1 + 6},
		{"empty string", item{"a": &types.AttributeValueMemberS{Value: ""}}, 1},
		{"name counted in UTF-8 bytes", item{"名前": &types.AttributeValueMemberS{Value: "x"}}, 6 + 1},
		{"binary: raw bytes", item{"bin": &types.AttributeValueMemberB{Value: []byte{0, 1, 2, 3}}}, 3 + 4},
		{"number", item{"n": &types.AttributeValueMemberN{Value: "123"}}, 1 + 3},
		{"bool", item{"flag": &types.AttributeValueMemberBOOL{Value: false}}, 4 + 1},
		{"null", item{"nil": &types.AttributeValueMemberNULL{Value: true}}, 3 + 1},
		{"string set: sum of elements",
			item{"ss": &types.AttributeValueMemberSS{Value: []string{"x", "yz", "日"}}}, 2 + (1 + 2 + 3)},
		{"number set: sum of numbers",
			item{"ns": &types.AttributeValueMemberNS{Value: []string{"1", "-1", "123.45"}}}, 2 + (2 + 3 + 4)},
		{"binary set: sum of elements",
			item{"bs": &types.AttributeValueMemberBS{Value: [][]byte{{1, 2}, {3}}}}, 2 + (2 + 1)},
		{"empty list", item{"l": &types.AttributeValueMemberL{}}, 1 + 3},
		{"list: 3 + elements + 1 each",
			item{"list": &types.AttributeValueMemberL{Value: []types.AttributeValue{
				&types.AttributeValueMemberS{Value: "ab"},
				&types.AttributeValueMemberN{Value: "1"},
			}}}, 4 + 3 + (2 + 1) + (2 + 1)},
		{"empty map", item{"m": &types.AttributeValueMemberM{}}, 1 + 3},
		{"map: 3 + keys + values + 1 each",
			item{"m": &types.AttributeValueMemberM{Value: item{
				"k":  &types.AttributeValueMemberS{Value: "v"},
				"kk": &types.AttributeValueMemberBOOL{Value: true},
			}}}, 1 + 3 + (1 + 1 + 1) + (2 + 1 + 1)},
		{"nested map in list in map",
			item{"doc": &types.AttributeValueMemberM{Value: item{
				"a": &types.AttributeValueMemberL{Value: []types.AttributeValue{
					&types.AttributeValueMemberM{Value: item{
						"b": &types.AttributeValueMemberS{Value: "cd"},
					}},
				}},
			}}},
			// inner map 3+(1+2+1)=7; list 3+(7+1)=11; outer map 3+(1+11+1)=16
			3 + 16},
		{"several attributes add up",
			item{
				"_id":   &types.AttributeValueMemberS{Value: "42"},
				"_meta": &types.AttributeValueMemberM{},
				"age":   &types.AttributeValueMemberN{Value: "37"},
			}, (3 + 2) + (5 + 3) + (3 + 2)},
		{"nil value counts only its name", item{"x": nil}, 1},
		{"unknown member counts its raw bytes",
			item{"x": &types.UnknownUnionMember{Tag: "NEW", Value: []byte("abc")}}, 1 + 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, schema.ItemSize(tt.item))
		})
	}
}

func TestItemSizeNumbers(t *testing.T) {
	tests := []struct {
		in   string
		want int // value bytes: base-100 digits + exponent byte (+ sign byte)
	}{
		{"0", 1},
		{"-0", 1},
		{"0.000", 1},
		{"1", 2},
		{"+1", 2},
		{"-1", 3},
		{"9", 2},
		{"10", 2},
		{"99", 2},
		{"100", 2},
		{"101", 3},
		{"123", 3},
		{"0.5", 2},
		{"0.05", 2},
		{"0.005", 2},
		{"1.1", 3}, // 01.10: the documented formula says 2
		{"12.34", 3},
		{"123.45", 4},
		{"00012.3400", 3},
		{"1e10", 2},
		{"1E-130", 2},
		{"-1E-130", 3},
		{"1.5E-3", 2},
		{"15e+2", 2}, // 1500 = 15|00
		{"12345678901234567890123456789012345678", 20},
		{"1.2345678901234567890123456789012345678", 21},
		{"-1.2345678901234567890123456789012345678", 22},
		{"", 22},
		{"abc", 22},
		{".", 22},
		{"1.2.3", 22},
		{"1e", 22},
		{"1e99999999999999999999", 22},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := schema.ItemSize(item{"n": &types.AttributeValueMemberN{Value: tt.in}})
			require.Equal(t, 1+tt.want, got)
		})
	}
}

// TestItemSizeNumbersNeverBelowDocumented checks numbers against AWS's documented
// estimate: one byte per two significant digits, plus one.
func TestItemSizeNumbersNeverBelowDocumented(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		n := randomNumber(r)
		got := schema.ItemSize(item{"": &types.AttributeValueMemberN{Value: n}})
		require.GreaterOrEqual(t, got, documentedNumberSize(n), "number %q", n)
	}
}

// randomNumber returns a decimal string with up to 38 significant digits, an optional
// sign, point and exponent.
func randomNumber(r *rand.Rand) string {
	var b strings.Builder
	if r.IntN(2) == 0 {
		b.WriteByte('-')
	}
	digits := 1 + r.IntN(38)
	point := r.IntN(digits + 1)
	for i := range digits {
		if i == point && i > 0 {
			b.WriteByte('.')
		}
		b.WriteByte(byte('0' + r.IntN(10)))
	}
	if r.IntN(3) == 0 {
		b.WriteString("e" + strconv.Itoa(r.IntN(200)-100))
	}
	return b.String()
}

// documentedNumberSize is AWS's estimate: significant digits are those left after
// dropping sign, point, exponent and leading and trailing zeros.
func documentedNumberSize(n string) int {
	n = strings.TrimLeft(n, "+-")
	if i := strings.IndexAny(n, "eE"); i >= 0 {
		n = n[:i]
	}
	n = strings.Trim(strings.ReplaceAll(n, ".", ""), "0")
	return (len(n)+1)/2 + 1
}

func TestMaxItemBytes(t *testing.T) {
	require.Equal(t, 409600, schema.MaxItemBytes)
}
