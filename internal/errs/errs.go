package errs

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/rynodb/rynodb/tables"
)

// Prefix starts every error message the module returns.
const Prefix = "ryno: "

// Message returns err's message without its "ryno: " prefix, for embedding in
// another message that has one.
func Message(err error) string { return strings.TrimPrefix(err.Error(), Prefix) }

// Wrap returns err with what the call was doing, or nil for no error: a
// *tables.CallError, which errors.Is and errors.As see through.
func Wrap(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return &tables.CallError{Op: fmt.Sprintf(format, args...), Err: err}
}

// New returns an error whose message is the formatted text after the prefix.
func New(format string, args ...any) error {
	return fmt.Errorf(Prefix+format, args...)
}

var (
	// ErrNotFound matches the error of an entity that does not exist. Package ryno
	// exports it.
	ErrNotFound = errors.New(Prefix + "entity not found")
	// ErrConflict matches the error of a write that found the store other than it
	// expected. Package ryno exports it.
	ErrConflict = errors.New(Prefix + "conflicting write")
	// ErrExists matches the error of a Create whose entity exists, and of a value
	// of a unique index another entity holds. It wraps ErrConflict, so it matches it
	// too; the precision .0 keeps ErrConflict's message out of its own.
	ErrExists = fmt.Errorf(Prefix+"entity already exists%.0w", ErrConflict)
	// ErrUnknownIndex matches the error of a write of an entity last written by a
	// client maintaining indexes this one does not register.
	ErrUnknownIndex = errors.New(Prefix + "entity is indexed by indexes this client does not register")
	// ErrUnreadable matches the error of an entity item the store holds but cannot
	// read, such as one whose _created is no time. Package ryno exports it.
	ErrUnreadable = errors.New(Prefix + "stored entity cannot be read")
	// ErrHasRelationships matches the error of a transaction deleting an entity
	// that holds relationship entries, or that entries point at which the
	// transaction does not remove.
	ErrHasRelationships = errors.New(Prefix + "the entity has relationship entries; delete it with Delete, outside a transaction")
)

// Map returns err with f applied to the innermost error of its chain of Wrap
// contexts, and to each error it joins (errors.Join): the errors a layer returns become those the caller shows, each
// context kept. f returns its argument for an error it does not convert.
func Map(err error, f func(error) error) error {
	if err == nil {
		return nil
	}
	switch e := err.(type) {
	case *tables.CallError:
		inner := Map(e.Err, f)
		if inner == e.Err {
			return err
		}
		return &tables.CallError{Op: e.Op, Err: inner}
	case interface{ Unwrap() []error }:
		if reflect.TypeOf(err) != joinType {
			break
		}
		inner := e.Unwrap()
		mapped := make([]error, len(inner))
		changed := false
		for i, ie := range inner {
			mapped[i] = Map(ie, f)
			changed = changed || mapped[i] != ie
		}
		if changed {
			return errors.Join(mapped...)
		}
		return err
	}
	return f(err)
}

// joinType is the type of the errors errors.Join returns, which Map rebuilds.
var joinType = reflect.TypeOf(errors.Join(errors.New("")))
