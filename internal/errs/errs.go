// Package errs gives every error message of the module one "ryno: " prefix, however
// many layers wrap it on the way to the caller.
package errs

import (
	"fmt"
	"strings"
)

// Prefix starts every error message the module returns.
const Prefix = "ryno: "

// Message returns err's message without its "ryno: " prefix, for embedding in
// another message that has one.
func Message(err error) string { return strings.TrimPrefix(err.Error(), Prefix) }

// contextError says what a call was doing when err happened.
type contextError struct {
	doing string
	err   error
}

func (e *contextError) Error() string { return Prefix + e.doing + ": " + Message(e.err) }

func (e *contextError) Unwrap() error { return e.err }

// Wrap returns err with what the call was doing, or nil for no error. errors.Is and
// errors.As see through it.
func Wrap(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return &contextError{doing: fmt.Sprintf(format, args...), err: err}
}

// New returns an error whose message is the formatted text after the prefix.
func New(format string, args ...any) error {
	return fmt.Errorf(Prefix+format, args...)
}
