package ryno

import (
	"encoding/base64"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

func TestCursorRoundTrip(t *testing.T) {
	names := []string{"a", "b"}
	key := map[string]types.AttributeValue{"a": str("x:y%z"), "b": &types.AttributeValueMemberN{Value: "42"}}
	binding := cursorBinding("query", false)
	s, err := encodeCursor(binding, key)
	require.NoError(t, err)
	got, err := decodeCursor(s, binding, names)
	require.NoError(t, err)
	require.Equal(t, key, got)

	empty, err := decodeCursor("", binding, names)
	require.NoError(t, err)
	require.Nil(t, empty, "the empty cursor starts at the beginning")
}

func TestCursorRejectsWhatItDidNotIssue(t *testing.T) {
	names := []string{"a", "b"}
	binding := cursorBinding("query", false)
	valid := func(key map[string]types.AttributeValue, binding string) string {
		s, err := encodeCursor(binding, key)
		require.NoError(t, err)
		return s
	}
	b64 := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	ab := map[string]types.AttributeValue{"a": str("1"), "b": str("2")}
	tests := []struct {
		name   string
		cursor string
	}{
		{"not base64", "!!!"},
		{"not JSON", b64("hello")},
		{"JSON of something else", b64(`{"x":1}`)},
		{"another query", valid(ab, cursorBinding("other", false))},
		{"the other direction", valid(ab, cursorBinding("query", true))},
		{"a missing attribute", valid(map[string]types.AttributeValue{"a": str("1")}, binding)},
		{"an unexpected attribute", valid(map[string]types.AttributeValue{"a": str("1"), "c": str("2")}, binding)},
		{"an attribute with two types", b64(`{"q":"` + binding + `","k":{"a":{"s":"1","n":"1"},"b":{"s":"2"}}}`)},
		{"an attribute with no value", b64(`{"q":"` + binding + `","k":{"a":{},"b":{"s":"2"}}}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeCursor(tt.cursor, binding, names)
			require.ErrorIs(t, err, ErrInvalidCursor)
		})
	}
}

func TestDecodeEntityKeepsTheStoresAttributesOutOfAttributes(t *testing.T) {
	item := map[string]types.AttributeValue{
		"_id": str("i"), "_scope": str("s"), "_type": str("t"), "_scope_type_key": str("s:t"),
		"_created": str("2026-01-02T03:04:05.006Z"), "_updated": str("2026-01-02T03:04:05.007Z"),
		"_index_entries": &types.AttributeValueMemberM{},
		"name":           str("Ada"),
	}
	e, err := decodeEntity(item)
	require.NoError(t, err)
	require.Equal(t, Key{Scope: "s", Type: "t", ID: "i"}, e.Key)
	require.Equal(t, map[string]any{"name": "Ada"}, e.Attributes)
	require.Equal(t, map[string]any{}, e.Meta)
	require.Equal(t, 6_000_000, e.Created.Nanosecond())

	item["_created"] = str("yesterday")
	_, err = decodeEntity(item)
	require.ErrorContains(t, err, "_created")
	item["_created"] = &types.AttributeValueMemberN{Value: "1"}
	_, err = decodeEntity(item)
	require.ErrorContains(t, err, "_created")
}
