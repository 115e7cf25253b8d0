// Package errs gives every error message of the module one "ryno: " prefix, however
// many layers wrap it on the way to the caller (Wrap, Message), and holds what the
// layers share about errors: the sentinels package ryno exports (ErrNotFound,
// ErrConflict, ErrExists, ErrUnknownIndex, ErrHasRelationships), and Map, which
// shows an error in other types with every context and errors.Join around it kept.
//
// Its context errors are package tables' *CallError, the public type a caller sees.
// It imports no other package of this module, and tables none: every other package
// may import it (internal/layers_test.go holds the rule).
package errs
