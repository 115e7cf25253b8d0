package errs

import (
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWrapKeepsOnePrefix(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"plain error", io.EOF, "ryno: get a: EOF"},
		{"prefixed error", New("bad %s", "x"), "ryno: get a: bad x"},
		{"wrapped twice", Wrap(New("bad"), "inner"), "ryno: get a: inner: bad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Wrap(tt.err, "get %s", "a")
			require.EqualError(t, err, tt.want)
			require.ErrorIs(t, err, tt.err)
		})
	}
}

func TestWrapNil(t *testing.T) {
	require.NoError(t, Wrap(nil, "get"))
}

func TestNewWraps(t *testing.T) {
	err := New("reading: %w", io.EOF)
	require.EqualError(t, err, "ryno: reading: EOF")
	require.True(t, errors.Is(err, io.EOF))
}
