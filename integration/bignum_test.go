package integration_test

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/ryno"
)

// mustBig parses a decimal integer.
func mustBig(t *testing.T, s string) *big.Int {
	t.Helper()
	n, ok := new(big.Int).SetString(s, 10)
	require.True(t, ok, s)
	return n
}

func TestBigNumbersRoundTripExactly(t *testing.T) {
	db, counter, _ := newStore(t)
	huge := "-12345678901234567890123456789012345678" // 38 digits
	large, _, err := big.ParseFloat("9.5e125", 10, 64, big.ToNearestEven)
	require.NoError(t, err)
	e := person("ada", map[string]any{
		"balance": mustBig(t, huge),
		"count":   *big.NewInt(7),
		"rate":    big.NewFloat(0.1),
		"large":   large,
		"share":   big.NewRat(3, 8),
		"history": []any{mustBig(t, "10000000000000000000000000000000000000000"), big.NewRat(-1, 4)},
	})
	e.Meta = map[string]any{"audit": mustBig(t, "99999999999999999999")}
	_, err = db.Create(ctx, e)
	require.NoError(t, err)
	counter.Reset()

	got, err := db.Get(ctx, e.Key)
	require.NoError(t, err)
	require.Equal(t, map[string]any{
		"balance": json.Number(huge),
		"count":   json.Number("7"),
		"rate":    json.Number("0.1"),
		"large":   json.Number("950000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"),
		"share":   json.Number("0.375"),
		"history": []any{json.Number("10000000000000000000000000000000000000000"), json.Number("-0.25")},
	}, got.Attributes)
	require.Equal(t, map[string]any{"audit": json.Number("99999999999999999999")}, got.Meta)
	n, ok := new(big.Int).SetString(got.Attributes["balance"].(json.Number).String(), 10)
	require.True(t, ok)
	require.Zero(t, n.Cmp(mustBig(t, huge)), "the balance reads back as the same big.Int")

	_, err = db.Patch(ctx, e.Key, ryno.Patch{
		Set: map[string]any{"count": big.NewInt(8)},
		Add: map[string]any{"balance": mustBig(t, "12345678901234567890123456789012345677")},
	})
	require.NoError(t, err)
	got, err = db.Get(ctx, e.Key)
	require.NoError(t, err)
	require.Equal(t, json.Number("8"), got.Attributes["count"])
	require.Equal(t, json.Number("-1"), got.Attributes["balance"])
}

func TestBigNumbersDynamoDBCannotHoldSendNoRequest(t *testing.T) {
	db, counter, _ := newStore(t)
	key := ryno.Key{Scope: "acme", Type: "person", ID: "ada"}
	_, err := db.Create(ctx, person("ada", map[string]any{"n": 1}))
	require.NoError(t, err)
	counter.Reset()

	tooMany := mustBig(t, "123456789012345678901234567890123456789") // 39 digits
	type account struct {
		Balance *big.Int `dynamodbav:"balance"`
	}
	calls := []struct {
		name  string
		call  func() error
		field string
	}{
		{"Create of a *big.Int of 39 digits", func() error {
			_, err := db.Create(ctx, person("bob", map[string]any{"n": tooMany}))
			return err
		}, "Attributes.n"},
		{"Set of a big.Int by value", func() error {
			_, err := db.Set(ctx, person("bob", map[string]any{"n": []any{*tooMany}}))
			return err
		}, "Attributes.n[0]"},
		{"Update of a big.Rat with no decimal", func() error {
			_, err := db.Update(ctx, person("ada", map[string]any{"n": big.NewRat(2, 3)}))
			return err
		}, "Attributes.n"},
		{"Patch of an infinite big.Float", func() error {
			_, err := db.Patch(ctx, key, ryno.Patch{Set: map[string]any{"n": new(big.Float).SetInf(false)}})
			return err
		}, "Patch.Set.n"},
		{"NewEntity of a struct with a *big.Int field", func() error {
			_, err := ryno.NewEntity(key, account{Balance: big.NewInt(1)})
			return err
		}, "Attributes.balance"},
		{"Set of big metadata", func() error {
			_, err := db.Set(ctx, &ryno.Entity{Key: key, Meta: map[string]any{"m": tooMany}})
			return err
		}, "Meta.m"},
	}
	for _, tt := range calls {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			require.ErrorIs(t, err, ryno.ErrInvalid)
			var ve *ryno.ValidationError
			require.ErrorAs(t, err, &ve)
			require.Equal(t, tt.field, ve.Field)
			require.Zero(t, counter.Total(), "no request was sent")
		})
	}
}
