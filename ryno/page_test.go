package ryno

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

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
