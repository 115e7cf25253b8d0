package store

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/schema"
)

// created1 is a creation time with milliseconds, as the store keeps them.
var created1 = time.Date(2024, 1, 2, 3, 4, 5, 6e6, time.UTC)

func TestReadStored(t *testing.T) {
	full := storedItem(map[string]any{
		schema.AttrVersion:  AttrN(7),
		schema.AttrCreated:  schema.FormatTime(created1),
		schema.AttrIndexes:  "a:b",
		schema.AttrToken:    "tok",
		schema.AttrPending:  "pend",
		schema.AttrDeleting: "del",
	})
	tests := []struct {
		name string
		item map[string]types.AttributeValue
		want entitystate.State
	}{
		{"no item", nil, entitystate.State{}},
		{"every mark", full, entitystate.State{Item: full, Version: 7, Created: created1, CreatedAttr: schema.FormatTime(created1), Indexes: "a:b", Token: "tok", Pending: "pend", Deleting: "del"}},
		{"created in another layout", storedItem(map[string]any{schema.AttrVersion: AttrN(1), schema.AttrCreated: "2024-01-02T04:04:05.006+01:00"}),
			entitystate.State{Version: 1, Created: created1, CreatedAttr: "2024-01-02T04:04:05.006+01:00"}},
		{"legacy item without version or marks", actions.EntityKey(stateKey), entitystate.State{Item: actions.EntityKey(stateKey)}},
		{"marks that are not strings are absent", storedItem(map[string]any{schema.AttrVersion: AttrN(1), schema.AttrToken: AttrN(3), schema.AttrPending: &types.AttributeValueMemberBOOL{Value: true}}),
			entitystate.State{Version: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeStored(stateKey, tt.item, time.Now())
			require.NoError(t, err)
			tt.want.Item = tt.item
			require.Equal(t, tt.want, got)
		})
	}
}

func TestReadStoredRejectsMalformedMarks(t *testing.T) {
	tests := []struct {
		name  string
		attrs map[string]any
		attr  string // named in the error
	}{
		{"version as a string", map[string]any{schema.AttrVersion: "3"}, schema.AttrVersion},
		{"negative version", map[string]any{schema.AttrVersion: AttrN(-1)}, schema.AttrVersion},
		{"fractional version", map[string]any{schema.AttrVersion: &types.AttributeValueMemberN{Value: "1.5"}}, schema.AttrVersion},
		{"version beyond int64", map[string]any{schema.AttrVersion: &types.AttributeValueMemberN{Value: "9223372036854775808"}}, schema.AttrVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeStored(stateKey, storedItem(tt.attrs), time.Now())
			require.Error(t, err)
			require.ErrorContains(t, err, stateKey.String())
			require.ErrorContains(t, err, tt.attr)
		})
	}
}

// TestReadStoredKeepsAnUnreadableCreated decodes items whose _created is no time:
// the state says why, so that a Delete, which needs no Created, still can, and a
// write that keeps Created refuses.
func TestReadStoredKeepsAnUnreadableCreated(t *testing.T) {
	tests := []struct {
		name    string
		created types.AttributeValue
		attr    string // as stored
		why     string // named in Unreadable
	}{
		{"a number", AttrN(1), "", schema.AttrCreated},
		{"not a time", AttrS("yesterday"), "yesterday", "yesterday"},
		{"a year beyond 9999 in UTC", AttrS("9999-12-31T23:30:00-01:00"), "9999-12-31T23:30:00-01:00", "9999"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := decodeStored(stateKey, storedItem(map[string]any{schema.AttrVersion: AttrN(2), schema.AttrCreated: tt.created, schema.AttrDeleting: "del"}), time.Now())
			require.NoError(t, err)
			require.Equal(t, int64(2), s.Version)
			require.Equal(t, "del", s.Deleting)
			require.True(t, s.Created.IsZero())
			require.Equal(t, tt.attr, s.CreatedAttr)
			require.ErrorContains(t, s.Unreadable, tt.why)
		})
	}
}

func TestStoredExpiry(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	item := func(attrs map[string]any) map[string]types.AttributeValue {
		attrs[schema.AttrVersion] = AttrN(2)
		return storedItem(attrs)
	}
	tests := []struct {
		name                 string
		item                 map[string]types.AttributeValue
		live, ending, hidden bool
	}{
		{"no expiry", item(map[string]any{}), true, false, false},
		{"expires later", item(map[string]any{schema.AttrExpires: AttrN(now.Unix() + 1)}), true, false, false},
		{"expired", item(map[string]any{schema.AttrExpires: AttrN(now.Unix())}), false, true, true},
		{"expired and being deleted", item(map[string]any{schema.AttrExpires: AttrN(now.Unix() - 9), schema.AttrDeleting: "d"}), false, true, true},
		{"an expiry that is no number nor time is none", item(map[string]any{schema.AttrExpires: "soon"}), true, false, false},
		// A hand edit may leave a time as a string, which DynamoDB's time to live
		// ignores: readers take it, rounded up to the second.
		{"a time as a string, later", item(map[string]any{schema.AttrExpires: "2030-01-01T00:00:00.001Z"}), true, false, false},
		{"a time as a string, passed", item(map[string]any{schema.AttrExpires: "2030-01-01T01:00:00+01:00"}), false, true, true},
	}
	c := testCore(t, nil, 1, 1)
	c.Now = func() time.Time { return now }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := c.ReadStored(stateKey, tt.item)
			require.NoError(t, err)
			require.Equal(t, tt.live, s.Live(), "live")
			require.Equal(t, tt.ending, s.Ending(), "ending")
			require.Equal(t, tt.hidden, c.Hidden(tt.item), "hidden")
		})
	}
	missing, err := c.ReadStored(stateKey, nil)
	require.NoError(t, err)
	require.False(t, missing.Ending(), "no item: nothing to complete")
}
