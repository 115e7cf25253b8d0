package tables

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNewNames(t *testing.T) {
	n, err := NewNames("app")
	require.NoError(t, err)
	require.Equal(t, Names{
		Prefix:                "app",
		Entities:              "app_entities_master",
		EntitiesByType:        "app_entities_by_type",
		EntitiesByTypeShard:   "app_entities_by_type_shard",
		IncomingShard:         "app_incoming_shard",
		EntitiesInline:        [2]string{"app_entities_inline_1", "app_entities_inline_2"},
		Relationships:         "app_relationship_entries",
		ReverseRelationships:  "app_incoming_relationships",
		RelationshipsByObject: "app_relationships_by_object",
		IndexEntries:          "app_index_entries",
		IndexLookup:           "app_index_lookup",
	}, n)
	require.Equal(t, []string{"app_entities_master", "app_relationship_entries", "app_index_entries"}, n.Tables())
}

func TestValidatePrefix(t *testing.T) {
	tests := []struct {
		prefix string
		ok     bool
	}{
		{"a", true},
		{"My-App_v2.prod", true},
		{strings.Repeat("p", MaxPrefixLen), true},
		{strings.Repeat("p", MaxPrefixLen+1), false},
		{"", false},
		{"has space", false},
		{"colon:", false},
		{"slash/", false},
		{"ünïcode", false},
	}
	for _, tt := range tests {
		t.Run(tt.prefix, func(t *testing.T) {
			err := ValidatePrefix(tt.prefix)
			if tt.ok {
				require.NoError(t, err)
				n, err := NewNames(tt.prefix)
				require.NoError(t, err)
				for _, name := range []string{n.Entities, n.EntitiesByType, n.EntitiesByTypeShard, n.Relationships, n.ReverseRelationships, n.IncomingShard,
					n.RelationshipsByObject, n.IndexEntries, n.IndexLookup} {
					require.LessOrEqual(t, len(name), 255, "every name fits DynamoDB's limit")
				}
				return
			}
			require.ErrorIs(t, err, ErrInvalid)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			require.Equal(t, "TablePrefix", ve.Field)
		})
	}
}
