package entitystate

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/exprtest"
	"github.com/rynodb/rynodb/internal/schema"
)

var (
	created1 = time.Date(2026, 1, 2, 3, 4, 5, 6_000_000, time.UTC)
	created2 = created1.Add(time.Hour)
)

// keyItem is the key of an entity item.
func keyItem() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		schema.AttrID:           &types.AttributeValueMemberS{Value: "ada"},
		schema.AttrScopeTypeKey: &types.AttributeValueMemberS{Value: schema.ScopeTypeKey("acme", "person")},
	}
}

func TestStoredExistsAndLive(t *testing.T) {
	tests := []struct {
		name         string
		s            State
		exists, live bool
	}{
		{"no item", State{}, false, false},
		{"an entity", State{Item: keyItem(), Version: 2}, true, true},
		{"an entity being written", State{Item: keyItem(), Version: 2, Pending: "p"}, true, true},
		{"a tombstone", State{Item: keyItem(), Version: 3, Deleting: "d"}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.exists, tt.s.Exists())
			require.Equal(t, tt.live, tt.s.Live())
		})
	}
}

func TestIndexSet(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		want  string
	}{
		{"none", nil, ""},
		{"empty", []string{}, ""},
		{"one", []string{"byName"}, "byName"},
		{"sorted", []string{"c", "a", "b"}, "a:b:c"},
		{"de-duplicated", []string{"b", "a", "b", "a"}, "a:b"},
		{"escaped", []string{"x:y", "p%q"}, "p%25q:x%3Ay"},
		{"sorted by escaped name", []string{"a0", "a:"}, "a%3A:a0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, IndexSet(tt.names))
		})
	}
}

func TestExpectationHolds(t *testing.T) {
	item := keyItem()
	entity := func(version int64, mod func(*State)) State {
		s := State{Item: item, Version: version, Created: created1, Indexes: "a:b", Token: "tok"}
		if mod != nil {
			mod(&s)
		}
		return s
	}
	versioned := Expectation{Version: 3}
	carried := Expectation{Version: 3, Carried: true, Indexes: "a:b"}
	tests := []struct {
		name string
		x    Expectation
		s    State
		want bool
	}{
		{"absent: no item", Expectation{Absent: true}, State{}, true},
		{"absent: an entity", Expectation{Absent: true}, entity(1, nil), false},
		{"absent: a tombstone", Expectation{Absent: true}, entity(2, func(s *State) { s.Deleting = "d" }), false},

		{"version: no item", versioned, State{}, false},
		{"version: equal", versioned, entity(3, nil), true},
		{"version: older", versioned, entity(2, nil), false},
		{"version: newer", versioned, entity(4, nil), false},
		{"version: pending and indexes not checked", versioned, entity(3, func(s *State) { s.Pending, s.Indexes = "p", "zz" }), true},

		{"legacy: item without version", Expectation{}, State{Item: item}, true},
		{"legacy: versioned item", Expectation{}, entity(1, nil), false},
		{"legacy: no item", Expectation{}, State{}, false},

		{"created: equal", Expectation{Version: 3, Created: created1}, entity(3, nil), true},
		{"created: same instant elsewhere", Expectation{Version: 3, Created: created1.In(time.FixedZone("x", 3600))}, entity(3, nil), true},
		{"created: another life", Expectation{Version: 3, Created: created2}, entity(3, nil), false},
		{"created: none stored", Expectation{Version: 3, Created: created1}, entity(3, func(s *State) { s.Created = time.Time{} }), false},
		{"created: not checked when zero", versioned, entity(3, func(s *State) { s.Created = created2 }), true},
		{"created: but version differs", Expectation{Version: 3, Created: created1}, entity(4, nil), false},
		// Another program stored the same time in another layout: the condition,
		// which compares strings, holds only for the form it pins.
		{"created: carried, stored in another layout", Expectation{Version: 3, Created: created1}, entity(3, otherLayout), false},
		{"created: pinned as read in another layout", Expect(entity(3, otherLayout)), entity(3, otherLayout), true},
		{"created: pinned, then stored in the store's", Expect(entity(3, otherLayout)), entity(3, nil), false},

		{"carried: as expected", carried, entity(3, nil), true},
		{"carried: pending", carried, entity(3, func(s *State) { s.Pending = "p" }), false},
		{"carried: other indexes", carried, entity(3, func(s *State) { s.Indexes = "a" }), false},
		{"carried: indexes where none expected", Expectation{Version: 3, Carried: true}, entity(3, nil), false},
		{"carried: none expected, none stored", Expectation{Version: 3, Carried: true}, entity(3, func(s *State) { s.Indexes = "" }), true},
		{"carried: but version differs", carried, entity(2, nil), false},

		{"pending mark is not part of the condition", Expectation{Version: 3, Pending: true}, entity(3, nil), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, tt.x.Holds(tt.s))
		})
	}
}

// otherLayout stores the Created of s in another layout than the store's.
func otherLayout(s *State) {
	s.CreatedAttr = s.Created.In(time.FixedZone("", 3600)).Format("2006-01-02T15:04:05.000Z07:00")
}

func TestDecodeReadsTimesInOtherLayouts(t *testing.T) {
	item := func(attrs map[string]types.AttributeValue) map[string]types.AttributeValue {
		it := keyItem()
		for k, v := range attrs {
			it[k] = v
		}
		return it
	}
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		item    map[string]types.AttributeValue
		created time.Time
		attr    string
		expires int64
		expired bool
	}{
		{"the store's layout", item(map[string]types.AttributeValue{schema.AttrCreated: s("2026-01-02T03:04:05.006Z")}), created1, "2026-01-02T03:04:05.006Z", 0, false},
		{"another layout", item(map[string]types.AttributeValue{schema.AttrCreated: s("2026-01-02T03:04:05.006000+00:00")}), created1, "2026-01-02T03:04:05.006000+00:00", 0, false},
		{"an expiry as a number", item(map[string]types.AttributeValue{schema.AttrExpires: &types.AttributeValueMemberN{Value: "1893456000"}}), time.Time{}, "", now.Unix(), true},
		{"an expiry as a time, rounded up", item(map[string]types.AttributeValue{schema.AttrExpires: s("2029-12-31T23:59:59.001Z")}), time.Time{}, "", now.Unix(), true},
		{"an expiry as a later time", item(map[string]types.AttributeValue{schema.AttrExpires: s("2030-01-01T01:00:01+01:00")}), time.Time{}, "", now.Unix() + 1, false},
		{"an expiry that is no time", item(map[string]types.AttributeValue{schema.AttrExpires: s("soon")}), time.Time{}, "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode(tt.item, now)
			require.NoError(t, err)
			require.NoError(t, got.Unreadable)
			require.Equal(t, tt.created, got.Created)
			require.Equal(t, tt.attr, got.CreatedAttr)
			require.Equal(t, tt.expires, got.Expires)
			require.Equal(t, tt.expired, got.Expired)
		})
	}
}

func TestExpectationNext(t *testing.T) {
	tests := []struct {
		name string
		x    Expectation
		want int64
	}{
		{"absent", Expectation{Absent: true}, 1},
		{"absent ignores a stale version", Expectation{Absent: true, Version: 9}, 1},
		{"legacy", Expectation{}, 1},
		{"versioned", Expectation{Version: 5}, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, tt.x.Next())
		})
	}
}

func TestExpectationCondition(t *testing.T) {
	created := `_created="` + schema.FormatTime(created1) + `"`
	tests := []struct {
		name      string
		x         Expectation
		want, not []string
	}{
		{"absent", Expectation{Absent: true},
			[]string{"attribute_not_exists(_id)"}, []string{"_version", "_created", "_pending", "_indexes"}},
		{"absent ignores the rest", Expectation{Absent: true, Version: 4, Created: created1, Carried: true},
			[]string{"attribute_not_exists(_id)"}, []string{"_version", "_created", "_pending", "_indexes"}},
		{"versioned", Expectation{Version: 3},
			[]string{"_version=3"}, []string{"attribute_exists", "_created", "_pending", "_indexes"}},
		{"legacy", Expectation{},
			[]string{"attribute_exists(_id)", "attribute_not_exists(_version)"}, []string{"_version=", "_created"}},
		{"created", Expectation{Version: 3, Created: created1},
			[]string{"_version=3", created}, []string{"_pending", "_indexes"}},
		{"created in another zone is stored in UTC", Expectation{Version: 3, Created: created1.In(time.FixedZone("x", -7200))},
			[]string{created}, nil},
		{"carried", Expectation{Version: 3, Carried: true, Indexes: "a:b"},
			[]string{"_version=3", "attribute_not_exists(_pending)", `_indexes="a:b"`}, []string{"_created", "attribute_not_exists(_indexes)"}},
		{"carried without indexes", Expectation{Version: 3, Carried: true},
			[]string{"_version=3", "attribute_not_exists(_pending)", "attribute_not_exists(_indexes)"}, []string{"_indexes="}},
		{"carried legacy with created", Expectation{Created: created1, Carried: true, Indexes: "a"},
			[]string{"attribute_not_exists(_version)", created, "attribute_not_exists(_pending)", `_indexes="a"`}, nil},
		{"created as read, in another layout", Expect(State{Item: keyItem(), Version: 3, Created: created1, CreatedAttr: "2026-01-02T04:04:05.006+01:00"}),
			[]string{`_created="2026-01-02T04:04:05.006+01:00"`}, []string{created}},
		{"pending is pinned by the version", Expectation{Version: 3, Pending: true},
			[]string{"_version=3"}, []string{"_pending"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := exprtest.Condition(t, tt.x.Condition())
			require.NotContains(t, got, "OR")
			for _, w := range tt.want {
				require.Contains(t, got, w)
			}
			for _, n := range tt.not {
				require.NotContains(t, got, n)
			}
		})
	}
}

func randomStored(r *rand.Rand) State {
	if r.IntN(5) == 0 {
		return State{}
	}
	pick := func(options ...string) string { return options[r.IntN(len(options))] }
	s := State{
		Item:     keyItem(),
		Version:  r.Int64N(4),
		Indexes:  pick("", "a", "a:b"),
		Token:    pick("t1", "t2"),
		Pending:  pick("", "p"),
		Deleting: pick("", "", "d"),
	}
	if r.IntN(2) == 0 {
		s.Created = created1.Add(time.Duration(r.IntN(3)) * time.Millisecond)
	}
	return s
}

func TestExpectedStateHoldsOnlyForItself(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		s, s2 := randomStored(r), randomStored(r)
		x := Expect(s)
		require.True(t, x.Holds(s), "expect(%+v) must hold for itself", s)
		require.Equal(t, !s.Exists(), x.Absent)
		changed := s.Exists() != s2.Exists() || s.Exists() && s2.Version != s.Version
		if changed {
			require.False(t, x.Holds(s2), "expect(%+v) must not hold for %+v", s, s2)
		}
		if !s.Exists() && !s2.Exists() {
			require.True(t, x.Holds(s2))
		}
	}
}

func TestDecodeSeesExpiryByTheClockGiven(t *testing.T) {
	at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	item := keyItem()
	item[schema.AttrVersion] = &types.AttributeValueMemberN{Value: "2"}
	item[schema.AttrExpires] = &types.AttributeValueMemberN{Value: fmt.Sprint(at.Unix())}
	tests := []struct {
		name                  string
		now                   time.Time
		expired, live, ending bool
	}{
		{"a second before", at.Add(-time.Second), false, true, false},
		{"at the second", at, true, false, true},
		{"after", at.Add(time.Hour), true, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Decode(item, tt.now)
			require.NoError(t, err)
			require.Equal(t, at.Unix(), s.Expires)
			require.Equal(t, int64(2), s.Version)
			require.Equal(t, tt.expired, s.Expired)
			require.Equal(t, tt.live, s.Live())
			require.Equal(t, tt.ending, s.Ending())
		})
	}
	item[schema.AttrExpires] = &types.AttributeValueMemberS{Value: "soon"}
	s, err := Decode(item, at)
	require.NoError(t, err)
	require.Zero(t, s.Expires, "an expiry that is not a number is none, as time to live takes it")
	tomb := keyItem()
	tomb[schema.AttrDeleting] = &types.AttributeValueMemberS{Value: "tok"}
	s, err = Decode(tomb, at)
	require.NoError(t, err)
	require.True(t, s.Ending(), "a Delete under way")
	require.False(t, s.Live())
}
