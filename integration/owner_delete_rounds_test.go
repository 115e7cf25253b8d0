package integration_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

var ownsWorkspace = []ryno.Owns{{Type: "workspace", Predicate: "channels"}, {Type: "channel", Predicate: "messages"}}

// seedWorkspace creates a workspace owning channels of messages each.
func seedWorkspace(t *testing.T, db *ryno.Client, id string, channels, messages int) ryno.Key {
	t.Helper()
	ws := ryno.Key{Scope: "acme", Type: "workspace", ID: id}
	var chans []ryno.Key
	for c := range channels {
		ch := ryno.Key{Scope: "acme", Type: "channel", ID: fmt.Sprintf("%s-c%d", id, c)}
		chans = append(chans, ch)
		var msgs []ryno.Key
		for m := range messages {
			msg := ryno.Key{Scope: "acme", Type: "message", ID: fmt.Sprintf("%s-m%d", ch.ID, m)}
			msgs = append(msgs, msg)
			_, err := db.Create(ctx, &ryno.Entity{Key: msg})
			require.NoError(t, err)
		}
		_, err := db.Create(ctx, &ryno.Entity{Key: ch}, ryno.ReplaceLists(map[string][]ryno.Key{"messages": msgs}))
		require.NoError(t, err)
	}
	_, err := db.Create(ctx, &ryno.Entity{Key: ws}, ryno.ReplaceLists(map[string][]ryno.Key{"channels": chans}))
	require.NoError(t, err)
	return ws
}

// TestTheRoundsOfADeleteGrowWithTheDepthOfWhatItOwns deletes an entity nothing
// refers to, then workspaces that own channels of messages, at 50 ms of latency per
// request: a leaf takes 5 requests in 3 rounds (the tombstone, the reads of what
// refers to it, the delete), and an owner 3 rounds more than that per level of the
// tree, whatever its width: as many rounds for 4 channels of 5 messages, or 1 of
// 11, as for 1 channel of 1 message (with a margin for DynamoDB Local, which
// serializes writes and so staggers siblings' chains).
func TestTheRoundsOfADeleteGrowWithTheDepthOfWhatItOwns(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Owns: ownsWorkspace})
	deleteOf := func(k ryno.Key) *dynamotest.Counter {
		t.Helper()
		counter := dynamotest.NewCounter(delayed(s.raw, 50*time.Millisecond))
		db, err := ryno.New(counter, ryno.Options{TablePrefix: s.prefix, Owns: ownsWorkspace, MaxConcurrency: 256})
		require.NoError(t, err)
		require.NoError(t, db.Delete(ctx, k))
		return counter
	}

	leaf := pk("leaf")
	createSubjects(t, s.Client, leaf)
	c := deleteOf(leaf)
	require.Equal(t, map[string]int{"UpdateItem": 1, "Query": 3, "DeleteItem": 1}, c.Counts())
	require.Equal(t, 3, c.Depth(), "the tombstone, the reads, the delete")

	const perLevel = 6 // marking: the list, the owner again, the marks; deleting: the list again, the reads, the deletes
	narrow := deleteOf(seedWorkspace(t, s.Client, "narrow", 1, 1))
	require.Equal(t, 3+2*perLevel, narrow.Depth(), "a workspace of 1 channel of 1 message: %v", narrow.Counts())
	for _, size := range [][2]int{{1, 11}, {4, 5}} {
		c := deleteOf(seedWorkspace(t, s.Client, fmt.Sprintf("w%d-%d", size[0], size[1]), size[0], size[1]))
		t.Logf("%d channels of %d messages: %d requests %v in %d rounds", size[0], size[1], c.Total(), c.Counts(), c.Depth())
		require.LessOrEqual(t, c.Depth(), narrow.Depth()+3, "%d channels of %d messages", size[0], size[1])
	}
}
