package relationships_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/relationships"
	"github.com/rynodb/rynodb/tables"
)

func TestValidatePredicate(t *testing.T) {
	tests := []struct {
		predicate string
		ok        bool
	}{
		{"follows", true},
		{"a:b%c", true},
		{"", false},
		{"new\nline", false},
		{strings.Repeat("x", 1024), false},
	}
	for _, tt := range tests {
		err := relationships.ValidatePredicate(tt.predicate)
		if tt.ok {
			require.NoError(t, err, tt.predicate)
			continue
		}
		require.ErrorIs(t, err, tables.ErrInvalid, tt.predicate)
	}
}
