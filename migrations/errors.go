package migrations

import (
	"errors"
	"fmt"
	"strings"
)

var (
	// ErrDrift matches every *DriftError with errors.Is.
	ErrDrift = errors.New("ryno: schema drift")

	// ErrNotConfirmed is returned by Down, before any request is sent, when
	// DownOptions.ConfirmDataLoss is false.
	ErrNotConfirmed = errors.New("ryno: deleting the tables destroys all their data; confirm it with ConfirmDataLoss")

	// ErrProtected matches every *ProtectedError with errors.Is.
	ErrProtected = errors.New("ryno: deletion protection is on")
)

// ProtectedError is returned by Down, before it deletes anything, when tables have
// deletion protection on. Turning it off is left to the operator, on purpose: for
// example aws dynamodb update-table --table-name NAME --no-deletion-protection-enabled.
type ProtectedError struct {
	Tables []string // the protected tables
}

func (e *ProtectedError) Error() string {
	return ErrProtected.Error() + " for " + strings.Join(e.Tables, ", ") + "; turn it off to delete them"
}

// Is reports whether target is ErrProtected.
func (e *ProtectedError) Is(target error) bool { return target == ErrProtected }

// DriftError reports drift of SeverityError. Up returns it before changing anything
// when the tables have such drift, and stops with it when the tables or the recorded
// version change under it while it runs.
type DriftError struct {
	Drift []Drift
}

func (e *DriftError) Error() string {
	var b strings.Builder
	b.WriteString(ErrDrift.Error())
	for i, d := range e.Drift {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(d.String())
	}
	if len(e.Drift) > 1 {
		fmt.Fprintf(&b, " (%d errors)", len(e.Drift))
	}
	return b.String()
}

// Is reports whether target is ErrDrift.
func (e *DriftError) Is(target error) bool { return target == ErrDrift }
