package integration_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

var errLost = errors.New("connection reset after the request was sent")

// lostStore returns a store whose requests go through faults.
func lostStore(t *testing.T, opts ryno.Options) (*store, *dynamotest.Faults) {
	t.Helper()
	var faults *dynamotest.Faults
	s := newStoreOpts(t, func(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
		faults = dynamotest.NewFaults(api)
		return faults
	}, opts)
	return s, faults
}

func lose(context.Context) error { return errLost }

func TestAWriteWhoseResponseIsLostRecognisesItself(t *testing.T) {
	tests := []struct {
		name    string
		indexes []ryno.Index
		op      string // the request whose response is lost
	}{
		{"one PutItem", nil, "PutItem"},
		{"one transaction", mixedIndexes, "TransactWriteItems"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, faults := lostStore(t, ryno.Options{Indexes: tt.indexes})
			e, err := s.Create(ctx, person("ada", map[string]any{"email": "ada@example.com", "age": 36}))
			require.NoError(t, err)

			faults.LoseResponses(tt.op, 1, lose)
			e.Attributes["email"] = "countess@example.com"
			updated, err := s.Update(ctx, e)
			require.NoError(t, err, "the write landed: it is not a conflict with itself")
			require.Equal(t, int64(2), updated.Version, "applied once")

			got, err := s.Get(ctx, e.Key, ryno.Consistent())
			require.NoError(t, err)
			require.Equal(t, int64(2), got.Version)
			require.Equal(t, "countess@example.com", got.Attributes["email"])
			requireIndexExact(t, s)
		})
	}
}

func TestASetWithoutAVersionWhoseResponseIsLostAppliesOnce(t *testing.T) {
	for _, existing := range []bool{false, true} {
		t.Run(map[bool]string{false: "a new entity", true: "an existing one"}[existing], func(t *testing.T) {
			s, faults := lostStore(t, ryno.Options{})
			want := int64(1)
			if existing {
				_, err := s.Create(ctx, person("ada", map[string]any{"email": "ada@example.com"}))
				require.NoError(t, err)
				want = 2
			}
			faults.LoseResponses("UpdateItem", 1, lose)
			set, err := s.Set(ctx, person("ada", map[string]any{"email": "countess@example.com"}))
			require.NoError(t, err, "the update landed: sent again, it finds its own write")
			require.Equal(t, want, set.Version, "applied once")
			got, err := s.Get(ctx, set.Key, ryno.Consistent())
			require.NoError(t, err)
			require.Equal(t, want, got.Version)
			require.Equal(t, "countess@example.com", got.Attributes["email"])
		})
	}
}

func TestAPatchWhoseResponseIsLostAddsOnce(t *testing.T) {
	s, faults := lostStore(t, ryno.Options{})
	k := person("counter", nil).Key
	_, err := s.Create(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"n": 0}})
	require.NoError(t, err)

	faults.LoseResponses("UpdateItem", 1, lose)
	e, err := s.Patch(ctx, k, ryno.Patch{Add: map[string]any{"n": 5}})
	require.NoError(t, err)
	require.Equal(t, json.Number("5"), e.Attributes["n"])
	require.Equal(t, int64(5), counterOf(t, s.Client, k), "added once")
}

func TestALostResponseWithAnotherWriterMeanwhileIsAnUnknownOutcome(t *testing.T) {
	s, faults := lostStore(t, ryno.Options{})
	e, err := s.Create(ctx, person("ada", map[string]any{"v": 1}))
	require.NoError(t, err)
	other := newClientOn(t, s, ryno.Options{})

	// The Update lands, then another writer changes the entity before the response
	// (lost) could tell.
	faults.LoseResponses("PutItem", 1, func(ctx context.Context) error {
		_, err := other.Patch(ctx, e.Key, ryno.Patch{Set: map[string]any{"v": 3}})
		require.NoError(t, err)
		return errLost
	})
	e.Attributes["v"] = 2
	_, err = s.Update(ctx, e)
	require.ErrorIs(t, err, ryno.ErrOutcomeUnknown)
	require.NotErrorIs(t, err, ryno.ErrConflict, "it may have landed: not reported as refused")

	got, err := s.Get(ctx, e.Key, ryno.Consistent())
	require.NoError(t, err)
	require.Equal(t, int64(3), got.Version, "the Update, then the other writer")
}

func TestADeleteWhoseTombstoneResponseIsLostCompletes(t *testing.T) {
	s, faults := lostStore(t, ryno.Options{Indexes: mixedIndexes})
	e, err := s.Create(ctx, person("ada", map[string]any{"email": "ada@example.com", "age": 36}))
	require.NoError(t, err)

	faults.LoseResponses("UpdateItem", 1, lose)
	require.NoError(t, s.Delete(ctx, e.Key))
	_, err = s.Get(ctx, e.Key)
	require.ErrorIs(t, err, ryno.ErrNotFound)
	require.Empty(t, entityItems(t, s.raw, s.Names()), "the item is gone, not left as a tombstone")
	requireIndexExact(t, s)
}
