package indexentries

import (
	"runtime/debug"
	"sync"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/schema"
)

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
func Emit(indexName string, m func(emit func(indexing.Value))) ([]indexing.Value, error) {
	if err := schema.ValidateIndexName(indexName); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, invalid("map function", indexName, "must not be nil")
	}
	c := &collector{index: indexName, seen: make(map[indexing.Value]struct{})}
	if err := c.run(m); err != nil {
		return nil, err
	}
	return c.values, nil
}

// collector gathers the values one map function emits.
type collector struct {
	index string

	mu     sync.Mutex
	values []indexing.Value
	seen   map[indexing.Value]struct{}
	count  int   // values emitted, duplicates included
	err    error // the first invalid value
	closed bool  // the map function returned
}

func (c *collector) run(m func(emit func(indexing.Value))) (err error) {
	defer func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.closed = true
		if r := recover(); r != nil {
			err = &indexing.EmitError{Index: c.index, Err: indexing.ErrPanic, Panic: r, Stack: debug.Stack()}
		} else if c.err != nil {
			err = c.err
		}
	}()
	m(c.emit)
	return nil
}

func (c *collector) emit(v indexing.Value) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.err != nil {
		return
	}
	c.count++
	if err := validateIn(c.index, v); err != nil {
		c.err = &indexing.EmitError{Index: c.index, Err: errs.Wrap(err, "emitted value %d", c.count)}
		return
	}
	if _, dup := c.seen[v]; dup {
		return
	}
	c.seen[v] = struct{}{}
	c.values = append(c.values, v)
}
