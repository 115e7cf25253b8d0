package lists

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

func TestRemoveResultsNamesEachResultAttribute(t *testing.T) {
	tests := []struct {
		name      string
		ids       []string
		wantOp    string
		wantNames map[string]string
	}{
		{"none", nil, "", map[string]string{}},
		{"one", []string{"a"}, " REMOVE #d0", map[string]string{"#d0": schema.DonePrefix + "a"}},
		{"two", []string{"a", "b"}, " REMOVE #d0, #d1",
			map[string]string{"#d0": schema.DonePrefix + "a", "#d1": schema.DonePrefix + "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op, names := removeResults(tt.ids)
			require.Equal(t, tt.wantOp, op)
			require.Equal(t, tt.wantNames, names)
		})
	}
}

func TestResultsReadAreClaimedOldestFirstAndAtMostMaxTakenAtOnce(t *testing.T) {
	list := ID{Subject: store.Key{Scope: "s", Type: "t", ID: "hub"}, Predicate: "follows"}
	other := ID{Subject: list.Subject, Predicate: "likes"}
	r := newResultsRead(time.Hour, func(ID) { t.Error("tidied before the hour") })
	var ids []string
	for i := range maxTaken + 3 {
		ids = append(ids, fmt.Sprint("r", i))
	}
	r.leave(list, ids[:2]...)
	r.leave(list, ids[2:]...)
	r.leave(other, "x")
	require.Equal(t, ids[:maxTaken], r.claim(list))
	require.Equal(t, ids[maxTaken:], r.claim(list))
	require.Empty(t, r.claim(list), "all claimed")
	require.Equal(t, []string{"x"}, r.claim(other), "each list apart")
	require.Empty(t, r.lists, "nothing left to tidy")
}

func TestResultsReadAndNotClaimedAreTidied(t *testing.T) {
	list := ID{Subject: store.Key{Scope: "s", Type: "t", ID: "hub"}, Predicate: "follows"}
	tidied := make(chan ID, 1)
	r := newResultsRead(time.Millisecond, func(l ID) { tidied <- l })
	r.leave(list, "a")
	select {
	case got := <-tidied:
		require.Equal(t, list, got)
	case <-time.After(time.Minute):
		t.Fatal("never tidied")
	}
	require.Equal(t, []string{"a"}, r.claim(list), "tidy claims what it takes off")
}
