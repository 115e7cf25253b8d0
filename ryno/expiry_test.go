package ryno

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

func TestExpiredAt(t *testing.T) {
	at := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)
	tests := []struct {
		name    string
		expires int64
		now     time.Time
		want    bool
	}{
		{"no expiry", 0, at.Add(1000 * time.Hour), false},
		{"a nanosecond before", at.Unix(), at.Add(-time.Nanosecond), false},
		{"at the second", at.Unix(), at, true},
		{"after", at.Unix(), at.Add(time.Hour), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, entitystate.ExpiredAt(tt.expires, tt.now))
		})
	}
}

func TestValidateExpiry(t *testing.T) {
	tests := []struct {
		name string
		t    time.Time
		ok   bool
	}{
		{"none", time.Time{}, true},
		{"a time", time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{"the epoch", time.Unix(0, 0), false},
		{"before the epoch", time.Date(1969, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{"year 10000", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := validateExpiry("Expires", tt.t)
			if tt.ok {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrInvalid)
			require.ErrorContains(t, err, "Expires")
		})
	}
}

func TestExpiresRoundTrips(t *testing.T) {
	at := time.Date(2030, 5, 6, 7, 8, 9, 500e6, time.UTC)
	item, err := encodeEntity(&Entity{Key: stateKey, Attributes: map[string]any{"a": 1}, Expires: at})
	require.NoError(t, err)
	require.Equal(t, number(at.Unix()+1), item[schema.AttrExpires])
	require.NotEqual(t, store.ShapeOf(item), store.ShapeOf(without(item, schema.AttrExpires)), "an expiry is part of the item's shape")

	e, err := decodeEntity(item)
	require.NoError(t, err)
	require.Equal(t, time.Unix(at.Unix()+1, 0).UTC(), e.Expires)
	require.NotContains(t, e.Attributes, schema.AttrExpires)
	require.Contains(t, e.String(), "expires 2030-05-06T07:08:10Z")

	item, err = encodeEntity(&Entity{Key: stateKey})
	require.NoError(t, err)
	require.NotContains(t, item, schema.AttrExpires, "no expiry, no attribute")

	_, err = encodeEntity(&Entity{Key: stateKey, Expires: time.Unix(-5, 0)})
	require.ErrorIs(t, err, ErrInvalid)
	_, err = encodePatch(Patch{Expires: time.Unix(-5, 0)})
	require.ErrorIs(t, err, ErrInvalid)
	_, err = encodePatch(Patch{Expires: at})
	require.NoError(t, err, "a patch of the expiry alone changes something")
}

func without(item map[string]types.AttributeValue, name string) map[string]types.AttributeValue {
	out := make(map[string]types.AttributeValue, len(item))
	for n, v := range item {
		if n != name {
			out[n] = v
		}
	}
	return out
}

func TestConditionsSeeExpiry(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	at := strconv.FormatInt(now.Unix(), 10)
	tests := []struct {
		name string
		got  string
		want []string
	}{
		{"not expired", renderCondition(t, actions.NotExpired(now)), []string{"NOT(_expires<=" + at + ")"}},
		{"expired", renderCondition(t, actions.Expired(now)), []string{"_expires<=" + at}},
		{"Exists", renderCondition(t, Exists().build(now)), []string{"attribute_not_exists(_deleting)", "NOT(_expires<=" + at + ")"}},
		{"VersionIs", renderCondition(t, VersionIs(3).build(now)), []string{"_version=3", "NOT(_expires<=" + at + ")"}},
		{"Absent", renderCondition(t, Absent().build(now)), []string{"attribute_not_exists(_id)", "attribute_exists(_deleting)", "_expires<=" + at}},
		{"a write expecting a version", renderCondition(t, entitystate.Expectation{Version: 4, Now: now}.Condition()), []string{"_version=4", "NOT(_expires<=" + at + ")"}},
		{"a write that read the item", renderCondition(t, entitystate.Expectation{Version: 4}.Condition()), []string{"_version=4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, w := range tt.want {
				require.Contains(t, tt.got, w)
			}
		})
	}
	require.NotContains(t, renderCondition(t, entitystate.Expectation{Version: 4}.Condition()), "_expires")
	require.False(t, strings.Contains(renderCondition(t, entitystate.Expectation{Absent: true, Now: now}.Condition()), "_expires"),
		"a create needs no expiry condition: any item refuses it")
}
