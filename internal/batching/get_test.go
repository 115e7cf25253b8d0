package batching

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

// TestAProjectionAlwaysReadsTheKey checks that a BatchGetItem with a projection
// reads the key attributes too: an item is told by its key, and one read without
// it would be taken for missing.
func TestAProjectionAlwaysReadsTheKey(t *testing.T) {
	key := map[string]types.AttributeValue{
		"_id":             &types.AttributeValueMemberS{Value: "1"},
		"_scope_type_key": &types.AttributeValueMemberS{Value: "acme:person"},
	}
	tests := []struct {
		name       string
		projection []string
		want       []string
	}{
		{"no projection reads every attribute", nil, nil},
		{"the key is added", []string{"_deleting"}, []string{"_deleting", "_id", "_scope_type_key"}},
		{"a key named is not named twice", []string{"_id", "_deleting"}, []string{"_id", "_deleting", "_scope_type_key"}},
		{"the whole key named", []string{"_scope_type_key", "_id"}, []string{"_scope_type_key", "_id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reqs := getRequests([]GetOp{NewGetOp("t", key)}, ReadOptions{Projection: tt.projection})
			r := reqs["t"]
			var got []string
			if r.ProjectionExpression != nil {
				for i := range len(r.ExpressionAttributeNames) {
					got = append(got, r.ExpressionAttributeNames["#a"+string(rune('0'+i))])
				}
			}
			require.Equal(t, tt.want, got)
		})
	}
	names := make([]string, 1, 4)
	names[0] = "_deleting"
	withKey(names, key)
	require.Equal(t, []string{"_deleting", "", "", ""}, names[:4], "the caller's array is left as it was")
}
