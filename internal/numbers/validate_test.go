package numbers

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/schema"
)

func TestValidateNumber(t *testing.T) {
	tests := []struct {
		n  string
		ok bool
	}{
		{"0", true}, {"-0", true}, {"0.000", true}, {"42", true}, {"-1.5", true}, {".5", true}, {"5.", true},
		{"1e125", true}, {"9.9999999999999999999999999999999999999e125", true}, {"1e126", false},
		{"1e-130", true}, {"0.1e-129", true}, {"1e-131", false}, {"5e-324", false},
		{"12345678901234567890123456789012345678", true},
		{"123456789012345678901234567890123456789", false},
		{"1234567890123456789012345678901234567800000", true}, // trailing zeros are not significant
		{"9223372036854775807", true}, {"-9223372036854775808", true},
		{"+Inf", false}, {"-Inf", false}, {"NaN", false}, {"", false}, {"1e", false}, {"0x10", false},
		{"1e99999999999999999999", false},
	}
	for _, tt := range tests {
		t.Run(tt.n, func(t *testing.T) {
			err := Validate("n", tt.n)
			if tt.ok {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, schema.ErrInvalid)
			}
		})
	}
}
