package bulk

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/tables"
)

func TestValuesRoundTripThroughDynamoDBJSON(t *testing.T) {
	values := []types.AttributeValue{
		&types.AttributeValueMemberS{Value: "Ada ✓"},
		&types.AttributeValueMemberN{Value: "123456789012345678901234567890.000001"},
		&types.AttributeValueMemberB{Value: []byte{0, 255, 7}},
		&types.AttributeValueMemberSS{Value: []string{"a", "b"}},
		&types.AttributeValueMemberNS{Value: []string{"1", "-2.5"}},
		&types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}},
		&types.AttributeValueMemberBOOL{Value: false},
		&types.AttributeValueMemberNULL{Value: true},
		&types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberN{Value: "0"}, &types.AttributeValueMemberL{}}},
		&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"x": &types.AttributeValueMemberS{Value: ""}}},
	}
	for _, av := range values {
		b, err := MarshalValue(av)
		require.NoError(t, err)
		got, err := UnmarshalValue(b)
		require.NoError(t, err, string(b))
		if l, ok := av.(*types.AttributeValueMemberL); ok && len(l.Value) > 1 {
			require.Equal(t, &types.AttributeValueMemberL{Value: []types.AttributeValue{}}, got.(*types.AttributeValueMemberL).Value[1], "an empty list stays a list")
			continue
		}
		require.Equal(t, av, got, string(b))
	}
}

func TestUnmarshalValueRefusesWhatIsNotDynamoDBJSON(t *testing.T) {
	for _, raw := range []string{`"plain"`, `{}`, `{"S":"a","N":"1"}`, `{"X":1}`, `{"N":"one"}`, `{"L":[{"Q":1}]}`, `{"B":"***"}`} {
		_, err := UnmarshalValue([]byte(raw))
		require.Error(t, err, raw)
	}
}

func TestLinesRoundTrip(t *testing.T) {
	l := Line{
		Key: entity.Key{Scope: "acme", Type: "user", ID: "ada"}, Version: 3,
		Created: time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC), Updated: time.Date(2026, 3, 4, 5, 6, 7, 8e6, time.UTC),
		Expires:    time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC),
		Attributes: map[string]types.AttributeValue{"name": &types.AttributeValueMemberS{Value: "Ada"}},
		Meta:       map[string]types.AttributeValue{"source": &types.AttributeValueMemberS{Value: "import"}},
		Lists:      map[string][]entity.Key{"follows": {{Scope: "acme", Type: "user", ID: "grace"}}},
		Sequences:  map[string]int64{"invoice": 42},
	}
	b, err := json.Marshal(l)
	require.NoError(t, err)
	require.Contains(t, string(b), `"name":{"S":"Ada"}`)
	require.Contains(t, string(b), `"created":"2026-01-02T03:04:05.006Z"`)
	var got Line
	require.NoError(t, json.Unmarshal(b, &got))
	require.Equal(t, l, got)
}

func TestBadLinesAreValidationErrors(t *testing.T) {
	var l Line
	require.Error(t, json.Unmarshal([]byte(`{"key":`), &l), "not JSON")
	for _, raw := range []string{
		`{"key":3}`,
		`{"key":{"scope":"a","type":"b","id":"c"},"version":1,"created":"yesterday","updated":"2026-01-02T03:04:05.006Z","attributes":{}}`,
		`{"key":{"scope":"a","type":"b","id":"c"},"version":1,"updated":"2026-01-02T03:04:05.006Z","attributes":{}}`,
		`{"key":{"scope":"a","type":"b","id":"c"},"version":1,"created":"2026-01-02T03:04:05.006Z","updated":"2026-01-02T03:04:05.006Z","attributes":{"n":{"N":"x"}}}`,
	} {
		err := json.Unmarshal([]byte(raw), &l)
		var v *tables.ValidationError
		require.True(t, errors.As(err, &v), "%s: %v", raw, err)
	}
}
