package ryno

import (
	"encoding/json"
	"math"
	"math/big"
	"net/netip"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

func bigInt(s string) *big.Int {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return n
}

func bigFloat(s string, prec uint) *big.Float {
	f, _, err := big.ParseFloat(s, 10, prec, big.ToNearestEven)
	if err != nil {
		panic(err)
	}
	return f
}

func TestBigNumbersAreStoredExactly(t *testing.T) {
	maxDigits := "12345678901234567890123456789012345678" // 38 digits
	tests := []struct {
		name string
		v    any
		want types.AttributeValue
	}{
		{"*big.Int", bigInt("-" + maxDigits), &types.AttributeValueMemberN{Value: "-" + maxDigits}},
		{"big.Int", *bigInt(maxDigits), &types.AttributeValueMemberN{Value: maxDigits}},
		{"zero *big.Int", new(big.Int), &types.AttributeValueMemberN{Value: "0"}},
		{"zero big.Int", big.Int{}, &types.AttributeValueMemberN{Value: "0"}},
		{"*big.Int with trailing zeros", new(big.Int).Exp(big.NewInt(10), big.NewInt(125), nil), &types.AttributeValueMemberN{Value: "1" + zeros(125)}},
		{"*big.Float", big.NewFloat(0.1), &types.AttributeValueMemberN{Value: "0.1"}},
		{"big.Float", *big.NewFloat(-2.5), &types.AttributeValueMemberN{Value: "-2.5"}},
		{"*big.Float of 38 digits", bigFloat("1.2345678901234567890123456789012345678", 128), &types.AttributeValueMemberN{Value: "1.2345678901234567890123456789012345678"}},
		{"*big.Float, large", bigFloat("9.5e125", 64), &types.AttributeValueMemberN{Value: "9.5e+125"}},
		{"zero big.Float", big.Float{}, &types.AttributeValueMemberN{Value: "0"}},
		{"*big.Rat, integer", big.NewRat(84, 2), &types.AttributeValueMemberN{Value: "42"}},
		{"*big.Rat, decimal fraction", big.NewRat(-1, 8), &types.AttributeValueMemberN{Value: "-0.125"}},
		{"big.Rat", *big.NewRat(7, 50), &types.AttributeValueMemberN{Value: "0.14"}},
		{"nil *big.Int", (*big.Int)(nil), &types.AttributeValueMemberNULL{Value: true}},
		{"in a list", []any{1, big.NewInt(2)}, &types.AttributeValueMemberL{Value: []types.AttributeValue{
			&types.AttributeValueMemberN{Value: "1"}, &types.AttributeValueMemberN{Value: "2"}}}},
		{"in a slice of *big.Int", []*big.Int{big.NewInt(3), nil}, &types.AttributeValueMemberL{Value: []types.AttributeValue{
			&types.AttributeValueMemberN{Value: "3"}, &types.AttributeValueMemberNULL{Value: true}}}},
		{"in a map", map[string]any{"a": map[string]*big.Float{"b": big.NewFloat(1.5)}}, &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"a": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"b": &types.AttributeValueMemberN{Value: "1.5"}}}}}},
		{"a time is a time", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), &types.AttributeValueMemberS{Value: "2026-01-02T03:04:05Z"}},
		{"an empty struct is an empty map", struct{}{}, &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := encodeValue("Attributes.x", tt.v)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)

			e, err := encodeEntity(&Entity{Key: Key{Scope: "s", Type: "t", ID: "i"}, Attributes: map[string]any{"x": tt.v}})
			require.NoError(t, err)
			require.Equal(t, tt.want, e["x"])
		})
	}
}

func zeros(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '0'
	}
	return string(b)
}

func TestNumbersDynamoDBCannotHoldAreRefused(t *testing.T) {
	type withBigField struct {
		Name    string   `dynamodbav:"name"`
		Balance *big.Int `dynamodbav:"balance"`
	}
	type withAddr struct {
		Addr netip.Addr `dynamodbav:"addr"`
	}
	tests := []struct {
		name  string
		v     any
		field string
	}{
		{"*big.Int of 39 digits", bigInt("123456789012345678901234567890123456789"), "Attributes.x"},
		{"big.Int of 1e126", *new(big.Int).Exp(big.NewInt(10), big.NewInt(126), nil), "Attributes.x"},
		{"*big.Int far out of range", new(big.Int).Lsh(big.NewInt(1), 100000), "Attributes.x"},
		{"*big.Float of 39 digits", bigFloat("1.23456789012345678901234567890123456789", 200), "Attributes.x"},
		{"*big.Float, infinite", new(big.Float).SetInf(true), "Attributes.x"},
		{"*big.Float out of range", bigFloat("1e126", 64), "Attributes.x"},
		{"*big.Float too small", bigFloat("1e-131", 64), "Attributes.x"},
		{"*big.Rat without a finite decimal", big.NewRat(1, 3), "Attributes.x"},
		{"*big.Rat of too many digits", big.NewRat(1, 1<<62), "Attributes.x"},
		{"nested *big.Int of 39 digits", map[string]any{"y": []any{bigInt("123456789012345678901234567890123456789")}}, "Attributes.x.y[0]"},
		{"a struct's *big.Int field", withBigField{Name: "a", Balance: big.NewInt(1)}, "Attributes.x.balance"},
		{"a struct's nil *big.Int field", withBigField{Name: "a"}, "Attributes.x.balance"},
		{"a value with unexported fields only", netip.MustParseAddr("192.0.2.1"), "Attributes.x"},
		{"a struct field with unexported fields only", withAddr{Addr: netip.MustParseAddr("192.0.2.1")}, "Attributes.x.addr"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := encodeValue("Attributes.x", tt.v)
			requireInvalidField(t, err, tt.field)

			_, err = encodeEntity(&Entity{Key: Key{Scope: "s", Type: "t", ID: "i"}, Attributes: map[string]any{"x": tt.v}})
			requireInvalidField(t, err, tt.field)

			_, err = NewEntity(Key{Scope: "s", Type: "t", ID: "i"}, map[string]any{"x": tt.v})
			requireInvalidField(t, err, tt.field)

			_, err = encodeEntity(&Entity{Key: Key{Scope: "s", Type: "t", ID: "i"}, Meta: map[string]any{"x": tt.v}})
			requireInvalidField(t, err, "Meta.x"+tt.field[len("Attributes.x"):])
		})
	}
	t.Run("NaN is refused as before", func(t *testing.T) {
		_, err := encodeValue("Attributes.x", math.NaN())
		requireInvalidField(t, err, "Attributes.x")
	})
}

func TestNewEntityStoresBigNumbersExactly(t *testing.T) {
	type account struct {
		Owner string `dynamodbav:"owner"`
		Limit any    `dynamodbav:"limit"`
	}
	e, err := NewEntity(Key{Scope: "s", Type: "t", ID: "i"}, map[string]any{"balance": bigInt("-98765432109876543210987654321"), "rate": big.NewRat(3, 4)})
	require.NoError(t, err)
	require.Equal(t, map[string]any{"balance": json.Number("-98765432109876543210987654321"), "rate": json.Number("0.75")}, e.Attributes)

	// attributevalue writes a struct's fields itself: a big number there would be
	// an empty map, so it is refused, whatever the field's type.
	_, err = NewEntity(Key{Scope: "s", Type: "t", ID: "i"}, account{Owner: "ada", Limit: big.NewInt(7)})
	requireInvalidField(t, err, "Attributes.limit")
	_, err = NewEntity(Key{Scope: "s", Type: "t", ID: "i"}, struct {
		Balance big.Int `dynamodbav:"balance"`
	}{})
	requireInvalidField(t, err, "Attributes.balance")
	_, err = NewEntity(Key{Scope: "s", Type: "t", ID: "i"}, account{Owner: "ada", Limit: 7})
	require.NoError(t, err)
}

func requireInvalidField(t *testing.T, err error, field string) {
	t.Helper()
	require.ErrorIs(t, err, ErrInvalid)
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	require.Equal(t, field, ve.Field, "error: %v", err)
}
