package actions

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/exprtest"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/schema"
)

func TestClaimsAreTakenAndGivenUpOnlyByTheirHolder(t *testing.T) {
	cl := indexentries.Claim{Scope: "acme", IndexName: "email", Value: indexing.String("a@example.com"), Type: "person", ID: "ada"}
	holder := `(attribute_not_exists(_subject_key))OR((_type="person")AND(_id="ada"))`

	var tx Transaction
	AddClaims(&tx, "t_index_entries", []indexentries.Claim{cl}, []indexentries.Claim{cl}, 1234)
	require.Equal(t, []Role{{Kind: RoleClaim, Claim: cl}, {Kind: RoleClaim, Claim: cl, Release: true}}, tx.Roles)

	put := tx.Actions[0].Put
	require.Equal(t, holder, exprtest.Render(t, put.ConditionExpression, put.ExpressionAttributeNames, put.ExpressionAttributeValues))
	require.Equal(t, &types.AttributeValueMemberN{Value: "1234"}, put.Item[schema.AttrExpires], "the holder's expiry")
	require.Equal(t, "ALL_OLD", string(put.ReturnValuesOnConditionCheckFailure), "a refusal names the holder")
	del := tx.Actions[1].Delete
	require.Equal(t, cl.PrimaryKey(), del.Key)
	require.Equal(t, holder, exprtest.Render(t, del.ConditionExpression, del.ExpressionAttributeNames, del.ExpressionAttributeValues))

	never := Claim("t_index_entries", cl, 0)
	require.NotContains(t, never.Put.Item, schema.AttrExpires, "no expiry recorded for an entity that never expires")
}

func TestSetEntry(t *testing.T) {
	key := testKey(1)
	tests := []struct {
		name      string
		there     bool
		del       bool
		condition string
	}{
		{"delete what is there", true, true, "attribute_exists(_subject_key)"},
		{"check it is there", true, false, "attribute_exists(_subject_key)"},
		{"check it is not", false, false, "attribute_not_exists(_subject_key)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			act := SetEntry("t_relationships", key, tt.there, tt.del)
			if tt.del {
				require.Nil(t, act.ConditionCheck)
				require.Equal(t, key, act.Delete.Key)
				require.Equal(t, tt.condition, exprtest.Render(t, act.Delete.ConditionExpression, act.Delete.ExpressionAttributeNames, act.Delete.ExpressionAttributeValues))
				return
			}
			require.Nil(t, act.Delete)
			require.Equal(t, key, act.ConditionCheck.Key)
			require.Equal(t, tt.condition, exprtest.Render(t, act.ConditionCheck.ConditionExpression, act.ConditionCheck.ExpressionAttributeNames, act.ConditionCheck.ExpressionAttributeValues))
		})
	}
}
