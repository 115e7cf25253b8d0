package ryno

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

func TestDecodeEntityKeepsTheStoresAttributesOutOfAttributes(t *testing.T) {
	item := map[string]types.AttributeValue{
		"_id": str("i"), "_scope": str("s"), "_type": str("t"), "_scope_type_key": str("s:t"),
		"_created": str("2026-01-02T03:04:05.006Z"), "_updated": str("2026-01-02T03:04:05.007Z"),
		"_index_entries": &types.AttributeValueMemberM{},
		"name":           str("Ada"),
	}
	e, err := decodeEntity(item)
	require.NoError(t, err)
	require.Equal(t, Key{Scope: "s", Type: "t", ID: "i"}, e.Key)
	require.Equal(t, map[string]any{"name": "Ada"}, e.Attributes)
	require.Equal(t, map[string]any{}, e.Meta)
	require.Equal(t, 6_000_000, e.Created.Nanosecond())

	item["_created"] = str("yesterday")
	_, err = decodeEntity(item)
	require.ErrorContains(t, err, "_created")
	item["_created"] = &types.AttributeValueMemberN{Value: "1"}
	_, err = decodeEntity(item)
	require.ErrorContains(t, err, "_created")
}

func TestDecodeEntityReadsTimesInOtherLayouts(t *testing.T) {
	item := map[string]types.AttributeValue{
		"_id": str("i"), "_scope": str("s"), "_type": str("t"), "_scope_type_key": str("s:t"),
		"_created": str("2019-01-01T00:00:00Z"), "_updated": str("2019-01-02T03:04:05.5+02:00"),
		"_expires": str("2099-01-01T00:00:00Z"),
	}
	e, err := decodeEntity(item)
	require.NoError(t, err)
	require.Equal(t, time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC), e.Created)
	require.Equal(t, time.Date(2019, 1, 2, 1, 4, 5, 500e6, time.UTC), e.Updated)
	require.Equal(t, time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC), e.Expires)
}

// listedItem is the item of the entity s:t:id with times created and updated.
func listedItem(id, created, updated string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"_id": str(id), "_scope": str("s"), "_type": str("t"), "_scope_type_key": str("s:t"),
		"_created": str(created), "_updated": str(updated),
	}
}

func TestAPageKeepsTheItemsItCanRead(t *testing.T) {
	at := "2019-01-01T00:00:00Z"
	bad := listedItem("b", at, at)
	bad["_scope"] = &types.AttributeValueMemberN{Value: "1"} // named by its key all the same
	items := []map[string]types.AttributeValue{listedItem("a", at, at), bad, listedItem("c", at, at), listedItem("d", at, "later")}
	page, unread, err := decodePage(items, "next", func(map[string]types.AttributeValue) bool { return true }, decodeListed)
	require.NoError(t, err)
	require.Equal(t, "next", page.Cursor)
	require.Len(t, page.Items, 2)
	require.Equal(t, "a", page.Items[0].ID)
	require.Equal(t, "c", page.Items[1].ID)
	require.Equal(t, []Key{{Scope: "s", Type: "t", ID: "b"}, {Scope: "s", Type: "t", ID: "d"}}, unread.Keys())

	require.ErrorIs(t, unread, ErrUnreadable)
	require.NotErrorIs(t, unread, ErrInvalid, "nothing the caller sent is wrong")
	require.EqualError(t, unread, `ryno: cannot read 2 stored entities: s:t:b (attribute _scope: _scope is *types.AttributeValueMemberN, want a string); s:t:d (attribute _updated: "later" is not an RFC 3339 time)`)
	one := &UnreadableError{Items: unread.Items[1:]}
	require.EqualError(t, one, `ryno: cannot read the stored entity s:t:d: attribute _updated: "later" is not an RFC 3339 time`)

	none, unread, err := decodePage(items[:1], "", func(map[string]types.AttributeValue) bool { return true }, decodeListed)
	require.NoError(t, err)
	require.NoError(t, unreadableOrNil(unread), "a page read whole has no error")
	require.Len(t, none.Items, 1)
}

// TestIteratorsGoOnPastItemsTheyCannotRead iterates over pages whose items some
// could not be read: each page yields the others, then its error, and the next
// page follows while the loop goes on.
func TestIteratorsGoOnPastItemsTheyCannotRead(t *testing.T) {
	unread := &UnreadableError{Items: []UnreadableItem{{Key: Key{Scope: "s", Type: "t", ID: "b"}, Err: errors.New("why")}}}
	failed := errors.New("request failed")
	pages := map[string]struct {
		page *Page[string]
		err  error
	}{
		"":   {&Page[string]{Items: []string{"a", "c"}, Cursor: "2"}, unread},
		"2":  {&Page[string]{Items: []string{"d"}, Cursor: "3"}, nil},
		"3":  {&Page[string]{Cursor: "4"}, unread},
		"4":  {nil, failed},
		"no": {nil, nil},
	}
	seq := all(context.Background(), PageOptions{}, func(_ context.Context, p PageOptions) (*Page[string], error) {
		got := pages[p.Cursor]
		return got.page, got.err
	})
	var got []string
	for v, err := range seq {
		switch {
		case errors.Is(err, ErrUnreadable):
			got = append(got, "unreadable")
		case err != nil:
			got = append(got, err.Error())
		default:
			got = append(got, v)
		}
	}
	require.Equal(t, []string{"a", "c", "unreadable", "d", "unreadable", "request failed"}, got)

	got = nil
	for v, err := range seq {
		if err != nil {
			break
		}
		got = append(got, v)
	}
	require.Equal(t, []string{"a", "c"}, got, "a loop that stops at the first error stops there")

	typed, err := PageAs[struct{}](&Page[*Entity]{Items: []*Entity{{}}, Cursor: "2"}, unread)
	require.ErrorIs(t, err, ErrUnreadable)
	require.Len(t, typed.Items, 1, "the page comes with the error")
	_, err = PageAs[struct{}](nil, failed)
	require.ErrorIs(t, err, failed)
}
