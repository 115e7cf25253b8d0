package actions

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

func TestNewListItems(t *testing.T) {
	subject := entity.Key{Scope: "s", Type: "t", ID: "a"}
	b, c := entity.Key{Scope: "s", Type: "t", ID: "b"}, entity.Key{Scope: "s", Type: "t", ID: "c"}
	head := relationships.Head{Subject: subject, Predicate: "p"}
	n := func(item map[string]types.AttributeValue, name string) string {
		return item[name].(*types.AttributeValueMemberN).Value
	}
	t.Run("a new list: its head at version 1, markers, entries", func(t *testing.T) {
		ch := relationships.ChangeReplace(head, nil, []entity.Key{b, c, b})
		ops, ok := NewListItems("rel", nil, ch)
		require.True(t, ok)
		require.Len(t, ops, 1+2+3, "a head, a marker an object, an entry a position")
		h := ops[0].Item
		require.Equal(t, relationships.HeadPrimaryKey(subject, "p"), ops[0].Key)
		require.Equal(t, "1", n(h, schema.AttrVersion))
		require.Equal(t, "3", n(h, schema.AttrCount))
		require.Equal(t, "3", n(h, schema.AttrNext))
		require.Equal(t, ch.Digest.String(), n(h, schema.AttrDigest))
		for _, op := range ops {
			require.Equal(t, "rel", op.Table)
			require.NotNil(t, op.Item, "puts only")
			for name, v := range op.Key {
				require.Equal(t, v, op.Item[name], "the item holds its key")
			}
		}
		stored, err := relationships.HeadFromItem(subject, "p", h)
		require.NoError(t, err)
		require.Equal(t, relationships.Head{Subject: subject, Predicate: "p", Version: 1, Next: 3, Count: 3, Digest: ch.Digest}, stored)
	})
	t.Run("an empty list writes nothing", func(t *testing.T) {
		ops, ok := NewListItems("rel", nil, relationships.ChangeReplace(head, nil, nil))
		require.True(t, ok)
		require.Empty(t, ops)
	})
	t.Run("a list with a head is a transaction's", func(t *testing.T) {
		stored := relationships.Head{Subject: subject, Predicate: "p", Version: 2, Next: 1, Count: 1}
		entries := []relationships.Entry{{Subject: subject, Predicate: "p", Index: 0, Object: b}}
		_, ok := NewListItems("rel", nil, relationships.ChangeReplace(stored, entries, []entity.Key{c}))
		require.False(t, ok)
	})
}
