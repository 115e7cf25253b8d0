package numbers

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAddDecimal(t *testing.T) {
	tests := []struct{ a, b, want string }{
		{"1", "1", "2"},
		{"0", "0", "0"},
		{"-5", "5", "0"},
		{"1.5", "2.25", "3.75"},
		{"0.1", "0.2", "0.3"},
		{"-0.1", "0.05", "-0.05"},
		{"1e3", "1", "1001"},
		{"1.5E-2", "1", "1.015"},
		{"12345678901234567890123456789012345678", "1", "12345678901234567890123456789012345679"},
		{"-1", "-0.001", "-1.001"},
		{".5", "5.", "5.5"},
		{"+3", "-10", "-7"},
		{"2.50", "0", "2.5"},
		{"1e-5", "1e-5", "0.00002"},
		{"1e-130", "1e-130", ""}, // checked against the rational sum only
	}
	for _, tt := range tests {
		t.Run(tt.a+"+"+tt.b, func(t *testing.T) {
			got, err := Add(tt.a, tt.b)
			require.NoError(t, err)
			if tt.want != "" {
				require.Equal(t, tt.want, got)
			}
			// The sum equals the exact rational sum.
			x, _ := new(big.Rat).SetString(tt.a)
			y, _ := new(big.Rat).SetString(tt.b)
			z, ok := new(big.Rat).SetString(got)
			require.True(t, ok)
			require.Zero(t, z.Cmp(x.Add(x, y)))
		})
	}
}

func TestAddDecimalRejectsWhatIsNotANumber(t *testing.T) {
	for _, bad := range []string{"", "abc", "1e", "--1", "NaN", "1.2.3"} {
		_, err := Add(bad, "1")
		require.Error(t, err, bad)
		_, err = Add("1", bad)
		require.Error(t, err, bad)
	}
}

func FuzzAddDecimal(f *testing.F) {
	f.Add("1.5", "-2.25")
	f.Add("1e10", "3E-5")
	f.Fuzz(func(t *testing.T, a, b string) {
		got, err := Add(a, b)
		if err != nil {
			return
		}
		x, okx := new(big.Rat).SetString(a)
		y, oky := new(big.Rat).SetString(b)
		if !okx || !oky || len(a) > 40 || len(b) > 40 {
			return
		}
		z, ok := new(big.Rat).SetString(got)
		if !ok || z.Cmp(x.Add(x, y)) != 0 {
			t.Fatalf("%s + %s = %s", a, b, got)
		}
	})
}
