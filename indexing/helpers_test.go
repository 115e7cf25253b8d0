package indexing_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/schema"
)

// requireInvalid asserts that err is a *tables.ValidationError whose message contains
// reason, and returns it.
func requireInvalid(t *testing.T, err error, reason string) *schema.ValidationError {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, schema.ErrInvalid)
	var verr *schema.ValidationError
	require.True(t, errors.As(err, &verr), "%T is not a *schema.ValidationError", err)
	require.Contains(t, err.Error(), reason)
	return verr
}

// requireAscending asserts that the encodings of values strictly increase, byte by
// byte, and that each decodes back to its value.
func requireAscending(t *testing.T, values []indexing.Value) {
	t.Helper()
	for i, v := range values {
		require.NoError(t, v.Validate(), "value %d", i)
		back, err := indexing.ParseValue(v.Encoding())
		require.NoError(t, err, "value %d", i)
		require.Equal(t, v, back, "value %d", i)
		if i > 0 {
			require.Less(t, values[i-1].Encoding(), v.Encoding(), "values %d and %d", i-1, i)
		}
	}
}
