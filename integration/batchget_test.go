package integration_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

func TestBatchGetOf250KeysWithDuplicatesAndMissingOnes(t *testing.T) {
	dynamotest.Parallel(t)
	db, counter, _ := newStore(t)
	for i := range 150 {
		_, err := db.Create(ctx, person(fmt.Sprintf("p%03d", i), map[string]any{"i": i}))
		require.NoError(t, err)
	}
	// 250 keys: 150 that exist, 50 duplicates of them, 50 that do not exist.
	var keys []ryno.Key
	for i := range 200 {
		keys = append(keys, person(fmt.Sprintf("p%03d", i%150), nil).Key)
	}
	for i := range 50 {
		keys = append(keys, person(fmt.Sprintf("missing%02d", i), nil).Key)
	}
	counter.Reset()

	got, err := db.BatchGet(ctx, keys)
	require.NoError(t, err)
	require.Len(t, got, len(keys))
	for i, k := range keys {
		if i >= 200 {
			require.Nil(t, got[i], "missing key %d", i)
			continue
		}
		require.NotNil(t, got[i], "key %d", i)
		require.Equal(t, k, got[i].Key, "results are in input order")
	}
	require.NotSame(t, got[0], got[150], "duplicates get their own entity")
	require.Equal(t, map[string]int{"BatchGetItem": 2}, requests(counter), "200 distinct keys: ceil(200/100) requests")
}

func TestBatchGetOfNoKeysSendsNothing(t *testing.T) {
	db, counter, _ := newStore(t)
	got, err := db.BatchGet(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, got)
	require.Zero(t, counter.Total())
}
