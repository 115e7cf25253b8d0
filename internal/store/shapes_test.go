package store

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/schema"
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
			require.Equal(t, tt.same, ShapeOf(base) == ShapeOf(tt.other))
		})
	}
}

// digests returns the digests of shapes, in order.
func digests(shapes []Shape) []string {
	out := make([]string, len(shapes))
	for i, sh := range shapes {
		out[i] = sh.Digest
	}
	return out
}

func TestShapesRemembersTheMostRecentOfEachType(t *testing.T) {
	var s Shapes
	names := func(i int) []string { return []string{"a", fmt.Sprint("n", i)} }
	for i := range shapesPerType + 2 {
		s.Learn("person", names(i))
	}
	s.Learn("person", names(5)) // met again: the most recent
	s.Learn("post", names(0))

	var want []string
	for _, i := range []int{5, 9, 8, 7, 6, 4, 3, 2} {
		want = append(want, digestOf(names(i)))
	}
	require.Equal(t, want, digests(s.Others("person", "")), "the %d most recent, the most recent first", shapesPerType)
	require.Equal(t, want[1:], digests(s.Others("person", digestOf(names(5)))), "all but the writer's own")
	require.Equal(t, []string{digestOf(names(0))}, digests(s.Others("post", "")), "each type on its own")
	require.Empty(t, s.Others("comment", ""))
	require.Equal(t, names(9), s.Others("person", "")[1].Names)
}

func TestShapesLearnAStoredItemOnlyWhenItRecordsItsShape(t *testing.T) {
	v := AttrS("x")
	item := func(shape string) map[string]types.AttributeValue {
		it := map[string]types.AttributeValue{"a": v, "b": v, schema.AttrMeta: v, schema.AttrVersion: AttrN(3)}
		if shape != "" {
			it[schema.AttrShape] = AttrS(shape)
		}
		return it
	}
	digest := digestOf([]string{schema.AttrMeta, "a", "b"})
	tests := []struct {
		name    string
		item    map[string]types.AttributeValue
		learned bool
	}{
		{"its shape recorded", item(digest), true},
		{"no shape recorded (a Patch wrote it last)", item(""), false},
		{"another shape recorded", item(digestOf([]string{"a"})), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Shapes
			s.LearnStored("person", tt.item)
			got := s.Others("person", "")
			if !tt.learned {
				require.Empty(t, got)
				return
			}
			require.Equal(t, []string{digest}, digests(got))
			require.Equal(t, []string{schema.AttrMeta, "a", "b"}, got[0].Names)
		})
	}
}
