package store

import (
	"fmt"
	"maps"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/exprtest"
	"github.com/rynodb/rynodb/internal/schema"
)

func TestOwnHead(t *testing.T) {
	key := map[string]types.AttributeValue{
		schema.AttrSubjectKey:   &types.AttributeValueMemberS{Value: "s:t:1"},
		schema.AttrPredicateKey: &types.AttributeValueMemberS{Value: schema.ListHeadKey("follows")},
	}
	tests := []struct {
		name    string
		version types.AttributeValue
		want    string
	}{
		{"a head", &types.AttributeValueMemberN{Value: "42"}, "_version=42"},
		{"a head without a version", nil, "attribute_not_exists(_version)"},
		{"a head whose version is damaged", &types.AttributeValueMemberS{Value: "x"}, `_version="x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			item := maps.Clone(key)
			item[schema.AttrCount] = &types.AttributeValueMemberN{Value: "3"}
			if tt.version != nil {
				item[schema.AttrVersion] = tt.version
			}
			h := OwnHeadOf(item)
			if fmt.Sprint(h.Key) != fmt.Sprint(key) {
				t.Errorf("OwnHeadOf key = %v, want the primary key %v", h.Key, key)
			}
			if got := exprtest.Condition(t, h.Condition()); got != tt.want {
				t.Errorf("condition %q, want %q", got, tt.want)
			}
		})
	}
}
