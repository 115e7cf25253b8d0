package schema

import (
	"errors"
	"fmt"

	"github.com/rynodb/rynodb/internal/errs"
)

// ErrInvalid matches every *ValidationError with errors.Is.
var ErrInvalid = errors.New("invalid input")

// ValidationError reports input rejected before any request is sent.
type ValidationError struct {
	Field  string // what was checked, such as "Key.ID", "TablePrefix" or "Attributes.name"
	Value  string // the rejected value, if it helps to show it
	Reason string // why it was rejected
}

// maxShownValue bounds how much of a rejected value an error message repeats.
const maxShownValue = 64

func (e *ValidationError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("%sinvalid %s: %s", errs.Prefix, e.Field, e.Reason)
	}
	v := e.Value
	if len(v) > maxShownValue {
		v = v[:maxShownValue] + "..."
	}
	return fmt.Sprintf("%sinvalid %s %q: %s", errs.Prefix, e.Field, v, e.Reason)
}

// Is reports whether target is ErrInvalid.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalid }
