package schema

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

// Package tables spells the key attributes of its definitions itself, as it imports
// no package of the module: they must be the ones named here.
func TestTheTablesAreKeyedByTheseAttributes(t *testing.T) {
	n, err := NewNames("p")
	require.NoError(t, err)
	want := map[string][2]string{
		n.Entities:              {AttrID, AttrScopeTypeKey},
		n.EntitiesByType:        {AttrScopeTypeKey, AttrUpdated},
		n.EntitiesByTypeShard:   {AttrTypeShard, AttrShardUpdated},
		n.Relationships:         {AttrSubjectKey, AttrPredicateKey},
		n.ReverseRelationships:  {AttrObjectKey, AttrReverseKey},
		n.IncomingShard:         {AttrObjectShard, AttrReverseKey},
		n.RelationshipsByObject: {AttrSubjectKey, AttrPredicateObjectKey},
		n.IndexEntries:          {AttrSubjectKey, AttrUniqueKey},
		n.IndexLookup:           {AttrScopeIndexName, AttrIndexKey},
	}
	for i, name := range n.EntitiesInline {
		want[name] = [2]string{AttrInlineName[i], AttrInlineKey[i]}
	}
	keys := func(k []types.KeySchemaElement) [2]string {
		return [2]string{aws.ToString(k[0].AttributeName), aws.ToString(k[1].AttributeName)}
	}
	got := map[string][2]string{}
	for _, def := range Definitions(n, Billing{}) {
		got[aws.ToString(def.TableName)] = keys(def.KeySchema)
		for _, g := range def.GlobalSecondaryIndexes {
			got[aws.ToString(g.IndexName)] = keys(g.KeySchema)
		}
		for _, l := range def.LocalSecondaryIndexes {
			got[aws.ToString(l.IndexName)] = keys(l.KeySchema)
		}
	}
	require.Equal(t, want, got)
}
