package relationships_test

import (
	"maps"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

func TestUnindexed(t *testing.T) {
	with := func(name string, v types.AttributeValue) map[string]types.AttributeValue {
		it := maps.Clone(tricky.Item())
		if v == nil {
			delete(it, name)
		} else {
			it[name] = v
		}
		return it
	}
	head := relationships.HeadPrimaryKey(tricky.Subject, tricky.Predicate)
	tests := []struct {
		name string
		item map[string]types.AttributeValue
		want bool
	}{
		{"an entry with its key", tricky.Item(), false},
		{"an entry without its key", with(schema.AttrReverseKey, nil), true},
		{"an entry with another key", with(schema.AttrReverseKey, s("stale")), true},
		{"a set entry without its key", func() map[string]types.AttributeValue {
			it := relationships.SetEntry(tricky.Subject, "likes", tricky.Object).Item()
			delete(it, schema.AttrReverseKey)
			return it
		}(), true},
		{"a head", head, false},
		{"an item whose raw subject is not its partition's", with(schema.AttrSubjectID, s("other")), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, got := relationships.Unindexed(tt.item)
			require.Equal(t, tt.want, got)
			if got {
				require.Equal(t, tt.item[schema.AttrSubjectKey], e.PrimaryKey()[schema.AttrSubjectKey])
			}
		})
	}
}

func TestSetReverseKeyOnlyUpdatesAnEntryThatExists(t *testing.T) {
	in := tricky.SetReverseKey("rel")
	require.Equal(t, "rel", aws.ToString(in.TableName))
	require.Equal(t, tricky.PrimaryKey(), in.Key)
	require.Equal(t, "attribute_exists(#pk)", aws.ToString(in.ConditionExpression))
	require.Equal(t, s(tricky.ReverseKey()), in.ExpressionAttributeValues[":rk"])
}
