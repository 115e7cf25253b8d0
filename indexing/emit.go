package indexing

import (
	"errors"
	"fmt"

	"github.com/rynodb/rynodb/internal/errs"
)

// ErrPanic is the Err of an *EmitError when the map function panicked.
var ErrPanic = errors.New("map function panicked")

// EmitError reports a map function that panicked or emitted a value that cannot be
// indexed. errors.Is(err, ErrPanic) tells the first case, errors.Is(err,
// tables.ErrInvalid) the second; a panic with an error value also matches that error.
type EmitError struct {
	Index string // the index whose map function failed
	Err   error  // ErrPanic, or why the emitted value is invalid
	Panic any    // the value the map function panicked with; nil unless Err is ErrPanic
	Stack []byte // the stack of the panic; nil unless Err is ErrPanic
}

// Error names the index and says what went wrong.
func (e *EmitError) Error() string {
	if e.Err == ErrPanic {
		return fmt.Sprintf("%smap function of index %q panicked: %v", errs.Prefix, e.Index, e.Panic)
	}
	return fmt.Sprintf("%smap function of index %q: %s", errs.Prefix, e.Index, errs.Message(e.Err))
}

// Unwrap returns Err and, when the map function panicked with an error, that error.
func (e *EmitError) Unwrap() []error {
	if err, ok := e.Panic.(error); ok {
		return []error{e.Err, err}
	}
	return []error{e.Err}
}
