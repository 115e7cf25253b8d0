package relationships

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/schema"
)

func TestShardsPlaceEntriesByObjectType(t *testing.T) {
	ada := entity.Key{Scope: "acme", Type: "person", ID: "ada"}
	tag := entity.Key{Scope: "acme", Type: "tag", ID: "go"}
	grace := entity.Key{Scope: "acme", Type: "person", ID: "grace"}
	shards := Shards{"tag": 8}
	tagged := SetEntry(ada, "tagged", tag)
	follows := Entry{Subject: ada, Predicate: "follows", Index: 2, Object: grace}

	item := shards.Item(tagged)
	require.NotContains(t, item, schema.AttrObjectKey, "a sharded type's entry leaves the reverse index")
	want := schema.ShardedObjectKey(tag.String(), schema.Shard(ada.String(), 8))
	require.Equal(t, want, item[schema.AttrObjectShard].(*types.AttributeValueMemberS).Value)
	require.Regexp(t, `^acme:tag:go:[0-7]$`, want)
	require.Equal(t, tagged.Item()[schema.AttrReverseKey], item[schema.AttrReverseKey])
	e, err := FromItem(item)
	require.NoError(t, err)
	require.Equal(t, tagged, e, "read back whole")

	require.Equal(t, follows.Item(), shards.Item(follows), "other types' entries as ever")
	require.Equal(t, follows.Item(), Shards(nil).Item(follows))

	tests := []struct {
		name      string
		shards    Shards
		item      map[string]types.AttributeValue
		misplaced bool
	}{
		{"sharded, in its shard", shards, shards.Item(tagged), false},
		{"sharded, written unsharded", shards, tagged.Item(), true},
		{"sharded, in another count's shard", shards, Shards{"tag": 3}.Item(tagged), true},
		{"unsharded, written sharded", nil, shards.Item(tagged), true},
		{"unsharded, in place", nil, follows.Item(), false},
		{"no reverse key", nil, without(follows.Item(), schema.AttrReverseKey), true},
		{"a head", shards, HeadPrimaryKey(ada, "follows"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, misplaced := tt.shards.Misplaced(tt.item)
			require.Equal(t, tt.misplaced, misplaced)
		})
	}

	in := shards.Place(tagged, "rel")
	require.Equal(t, "SET #s0 = :s0, #s1 = :s1 REMOVE #r", aws.ToString(in.UpdateExpression))
	require.Equal(t, map[string]string{"#pk": schema.AttrSubjectKey, "#s0": schema.AttrObjectShard, "#s1": schema.AttrReverseKey, "#r": schema.AttrObjectKey}, in.ExpressionAttributeNames)
	require.Equal(t, want, in.ExpressionAttributeValues[":s0"].(*types.AttributeValueMemberS).Value)
	back := Shards(nil).Place(tagged, "rel")
	require.Equal(t, map[string]string{"#pk": schema.AttrSubjectKey, "#s0": schema.AttrObjectKey, "#s1": schema.AttrReverseKey, "#r": schema.AttrObjectShard}, back.ExpressionAttributeNames)
}

func without(item map[string]types.AttributeValue, name string) map[string]types.AttributeValue {
	delete(item, name)
	return item
}
