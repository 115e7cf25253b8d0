package errs

import (
	"errors"
	"fmt"
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

// shown is the error Map's tests convert errInner to.
type shown struct{ of error }

func (e *shown) Error() string { return "shown: " + e.of.Error() }

func TestMapConvertsTheInnermostErrors(t *testing.T) {
	inner := errors.New("inner")
	other := errors.New("other")
	show := func(err error) error {
		if err == inner {
			return &shown{of: err}
		}
		return err
	}
	tests := []struct {
		name    string
		err     error
		want    string
		changed bool
	}{
		{"nil", nil, "", false},
		{"the error itself", inner, "shown: inner", true},
		{"under two contexts", Wrap(Wrap(inner, "b"), "a"), "ryno: a: b: shown: inner", true},
		{"joined under a context", Wrap(errors.Join(other, Wrap(inner, "b")), "a"), "ryno: a: other\nryno: b: shown: inner", true},
		{"nothing to convert", Wrap(errors.Join(other, io.EOF), "a"), "ryno: a: other\nEOF", false},
		{"a wrapper Map does not know is left whole", fmt.Errorf("x: %w", inner), "x: inner", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Map(tt.err, show)
			if tt.err == nil {
				require.NoError(t, got)
				return
			}
			require.EqualError(t, got, tt.want)
			if !tt.changed {
				require.Same(t, tt.err, got, "an error with nothing to convert is returned as it is")
				return
			}
			var s *shown
			require.ErrorAs(t, got, &s)
			require.Same(t, inner, s.of)
		})
	}
}
