package ryno

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

func TestShapeOfNamesTheAttributesAndMetadataOnly(t *testing.T) {
	v := &types.AttributeValueMemberS{Value: "x"}
	w := &types.AttributeValueMemberN{Value: "1"}
	base := map[string]types.AttributeValue{"a": v, "b": v, schema.AttrID: v, schema.AttrScope: v}
	tests := []struct {
		name  string
		other map[string]types.AttributeValue
		same  bool
	}{
		{"other values, other store attributes", map[string]types.AttributeValue{"b": w, "a": w, schema.AttrID: w, schema.AttrVersion: w}, true},
		{"a name fewer", map[string]types.AttributeValue{"a": v}, false},
		{"a name more", map[string]types.AttributeValue{"a": v, "b": v, "c": v}, false},
		{"metadata", map[string]types.AttributeValue{"a": v, "b": v, schema.AttrMeta: v}, false},
		{"names that join alike", map[string]types.AttributeValue{"a\x00b": v}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.same, store.ShapeOf(base) == store.ShapeOf(tt.other))
		})
	}
}
