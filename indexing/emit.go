package indexing

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/rynodb/rynodb/internal/errs"

	"github.com/rynodb/rynodb/internal/schema"
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

// Emit runs the map function m of index indexName and returns the values it emitted,
// without duplicates, in the order they were first emitted. m calls emit once per
// value; it may call it from several goroutines, but only until it returns: later
// calls are ignored.
//
// Emit fails as a whole, returning no values, when m panics (the panic is recovered)
// or emits a value that cannot be stored in the index (see Value.Validate; the value
// with the index name must also fit DynamoDB's 1024-byte sort key). Partial values
// are never returned: diffed against the stored entries, they would delete the
// entries of the values m did not get to emit. The error is an *EmitError; an invalid
// indexName or a nil m is a *tables.ValidationError.
func Emit(indexName string, m func(emit func(Value))) ([]Value, error) {
	if err := schema.ValidateIndexName(indexName); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, invalid("map function", indexName, "must not be nil")
	}
	c := &collector{index: indexName, seen: make(map[Value]struct{})}
	if err := c.run(m); err != nil {
		return nil, err
	}
	return c.values, nil
}

// collector gathers the values one map function emits.
type collector struct {
	index string

	mu     sync.Mutex
	values []Value
	seen   map[Value]struct{}
	count  int   // values emitted, duplicates included
	err    error // the first invalid value
	closed bool  // the map function returned
}

func (c *collector) run(m func(emit func(Value))) (err error) {
	defer func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.closed = true
		if r := recover(); r != nil {
			err = &EmitError{Index: c.index, Err: ErrPanic, Panic: r, Stack: debug.Stack()}
		} else if c.err != nil {
			err = c.err
		}
	}()
	m(c.emit)
	return nil
}

func (c *collector) emit(v Value) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.err != nil {
		return
	}
	c.count++
	if err := validateIn(c.index, v); err != nil {
		c.err = &EmitError{Index: c.index, Err: errs.Wrap(err, "emitted value %d", c.count)}
		return
	}
	if _, dup := c.seen[v]; dup {
		return
	}
	c.seen[v] = struct{}{}
	c.values = append(c.values, v)
}
