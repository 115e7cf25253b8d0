package indexentries_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/schema"
)

// requireInvalid asserts that err is a *schema.ValidationError whose message contains
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
