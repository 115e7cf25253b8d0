package relationships_test

import (
	"maps"
	"math/big"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

type (
	Request = relationships.Request
	Done    = relationships.Done
	Head    = relationships.Head
	Marker  = relationships.Marker
	Digest  = relationships.Digest
)

func num(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

var t0 = time.UnixMilli(1_700_000_000_000)

func request(id string, remove bool, posted time.Duration, objects ...Key) Request {
	return Request{ID: id, Remove: remove, Objects: objects, Posted: t0.Add(posted)}
}

// headWith returns a head item holding the requests and results given.
func headWith(rs []Request, done map[string]Done) map[string]types.AttributeValue {
	item := map[string]types.AttributeValue{schema.AttrVersion: num(3), schema.AttrNext: num(5), schema.AttrCount: num(2), schema.AttrDigest: num(0)}
	for _, r := range rs {
		item[schema.WaitingPrefix+r.ID] = relationships.RequestValue(r)
	}
	for id, d := range done {
		item[schema.DonePrefix+id] = relationships.DoneValue(d.Changed, d.At)
	}
	return item
}

func TestRequestsAndResultsReadBackFromTheHead(t *testing.T) {
	rs := []Request{request("late", false, 2*time.Millisecond, A), request("b", true, 0, B, C), request("a", false, 0, D)}
	done := map[string]Done{"old": {Changed: []Key{X}, At: t0}, "none": {Changed: []Key{}, At: t0}}
	h, err := relationships.HeadFromItem(subject, predicate, headWith(rs, done))
	require.NoError(t, err)
	require.Equal(t, []Request{rs[2], rs[1], rs[0]}, h.Waiting, "oldest first, then by id")
	require.Equal(t, done, h.Done)
	require.Equal(t, int64(3), h.Version, "the head's own state is read as ever")

	bad := headWith(nil, nil)
	bad[schema.WaitingPrefix+"x"] = num(1)
	_, err = relationships.HeadFromItem(subject, predicate, bad)
	require.ErrorContains(t, err, schema.WaitingPrefix+"x", "a request that is not a map")
	bad = headWith(nil, nil)
	bad[schema.DonePrefix+"x"] = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"o": &types.AttributeValueMemberS{Value: "a"}}}
	_, err = relationships.HeadFromItem(subject, predicate, bad)
	require.ErrorContains(t, err, schema.DonePrefix+"x", "a result whose objects are not a list")
	_, err = relationships.HeadFromItem(subject, predicate, headWith(nil, nil))
	require.NoError(t, err)
}

func TestBatch(t *testing.T) {
	tests := []struct {
		name          string
		waiting       []Request
		max           int
		adds, removes []string
	}{
		{"nothing waiting", nil, 10, nil, nil},
		{"Adds and Removes together", []Request{request("1", true, 0, A), request("2", false, 1, B), request("3", true, 2, C)}, 10,
			[]string{"2"}, []string{"1", "3"}},
		{"a Remove of an object an Add of the batch names waits", []Request{request("1", false, 0, A), request("2", true, 1, A), request("3", true, 2, B)}, 10,
			[]string{"1"}, []string{"3"}},
		{"up to max objects", []Request{request("1", false, 0, A, B), request("2", false, 1, C, D), request("3", true, 2, E)}, 3,
			[]string{"1"}, []string{"3"}},
		{"the first request even over max", []Request{request("1", false, 0, A, B, C)}, 2, []string{"1"}, nil},
	}
	ids := func(rs []Request) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			adds, removes := relationships.Batch(tt.waiting, tt.max)
			require.Equal(t, tt.adds, ids(adds))
			require.Equal(t, tt.removes, ids(removes))
		})
	}
}

func TestChangeCombinedIsAnAddAndARemoveInOneCommit(t *testing.T) {
	entries := list(A, B)
	h := Head{Subject: subject, Predicate: predicate, Version: 3, Next: 2, Count: 2, Digest: Digest{}.Plus(entries...)}
	markers := map[Key]Marker{A: {Object: A, Positions: []int{0}}, B: {Object: B, Positions: []int{1}}}

	require.Equal(t, relationships.ChangeAdd(h, markers, []Key{C}), relationships.ChangeCombined(h, markers, []Key{C}, nil))
	require.Equal(t, relationships.ChangeRemove(h, markers, []Key{A}), relationships.ChangeCombined(h, markers, nil, []Key{A}))

	ch := relationships.ChangeCombined(h, markers, []Key{C, B}, []Key{A, X})
	require.Equal(t, []Key{C}, ch.Added, "B is there already")
	require.Equal(t, []Key{A}, ch.Removed, "X is not there")
	require.Equal(t, []Entry{at(2, C)}, ch.Puts)
	require.Equal(t, []Entry{at(0, A)}, ch.Deletes)
	require.Equal(t, 3, ch.Next)
	require.Equal(t, 0, ch.CountDelta)
	require.Equal(t, 2, ch.Count)
	require.True(t, ch.Commutative() && ch.Expect.CheckNext, "adds to the head, and holds the next position read")
	after := []Entry{at(1, B), at(2, C)}
	require.Zero(t, new(big.Int).Sub(relationships.Delta(after, nil), relationships.Delta(entries, nil)).Cmp(ch.DigestDelta), "the digest moves from the list read to the list after")
	require.True(t, ch.Digest.Equal(Digest{}.Plus(after...)))
	require.Len(t, ch.Markers, 4, "one marker change per object")
}

func TestRequestsAndResultsLeftTooLongAreDropped(t *testing.T) {
	now := t0.Add(relationships.RequestTTL + time.Second)
	fresh, stale := request("fresh", false, 2*time.Second, A), request("stale", false, 0, B)
	h := Head{Waiting: []Request{stale, fresh}, Done: map[string]Done{"kept": {At: now.Add(-time.Second)}, "left": {At: t0}}}
	require.Equal(t, []Request{fresh}, relationships.Live(h.Waiting, now))
	require.Equal(t, []Request{stale, fresh}, h.Waiting, "Live does not change what it is given")
	require.Equal(t, []string{schema.DonePrefix + "left", schema.WaitingPrefix + "stale"}, relationships.Expired(h, now))
	require.Empty(t, relationships.Expired(Head{Waiting: []Request{fresh}, Done: maps.Clone(map[string]Done{"kept": h.Done["kept"]})}, now))
}
