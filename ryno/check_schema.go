package ryno

import (
	"context"
	"slices"
	"strings"

	"github.com/rynodb/rynodb/migrations"
)

// CheckSchema reports whether the store's tables and indexes exist and match what
// this version of the package expects, reusing the drift check of `ryno migrate`.
// It returns nil, or a *SchemaError that matches ErrTableNotFound when a table is
// missing and ErrSchemaMismatch when an index is missing or differs, or the data
// awaits a migration. It only reads, cheaply enough for a cold start or a health
// endpoint: it sends one DescribeTable per table in parallel, then one GetItem of the
// recorded schema version (4 requests in 2 rounds).
func (c *Client) CheckSchema(ctx context.Context) (err error) {
	ctx, call, err := c.begin(ctx, "CheckSchema")
	defer call.end(&err)
	if err != nil {
		return err
	}
	st, err := migrations.Check(ctx, c.core.API, migrations.Options{TablePrefix: c.opts.TablePrefix})
	if err != nil {
		return wrap(err, "check the schema of %s", c.opts.TablePrefix)
	}
	if e := schemaError(c.opts.TablePrefix, st); e != nil {
		return e
	}
	return nil
}

// SchemaError is what CheckSchema found wrong with the store's tables. `ryno migrate
// up` creates what is missing and runs pending migrations; Drift it cannot repair.
type SchemaError struct {
	TablePrefix string
	Missing     []string            // tables that do not exist
	Drift       []migrations.Drift  // differences that stop `ryno migrate up`
	Pending     []migrations.Action // what `ryno migrate up` would do to the tables that exist
}

func (e *SchemaError) Error() string {
	var parts []string
	for _, t := range e.Missing {
		parts = append(parts, "table "+t+" not found")
	}
	for _, d := range e.Drift {
		parts = append(parts, d.String())
	}
	for _, a := range e.Pending {
		parts = append(parts, "not done: "+a.String())
	}
	return "ryno: the tables of store " + e.TablePrefix + " do not match this version: " +
		strings.Join(parts, "; ") + "; run `ryno migrate status` for details"
}

// Is reports whether target is ErrTableNotFound, when a table is missing, or
// ErrSchemaMismatch, when anything else differs.
func (e *SchemaError) Is(target error) bool {
	switch target {
	case ErrTableNotFound:
		return len(e.Missing) > 0
	case ErrSchemaMismatch:
		return len(e.Drift)+len(e.Pending) > 0
	}
	return false
}

// schemaError returns what in st stops the store from working, or nil.
func schemaError(prefix string, st *migrations.Status) *SchemaError {
	e := &SchemaError{TablePrefix: prefix, Drift: st.Errors()}
	for _, t := range st.Tables {
		if t.State == migrations.StateMissing {
			e.Missing = append(e.Missing, t.Name)
		}
	}
	for _, a := range st.Pending {
		// Steps on a missing table follow from creating it.
		if !slices.Contains(e.Missing, a.Table) {
			e.Pending = append(e.Pending, a)
		}
	}
	if len(e.Missing)+len(e.Drift)+len(e.Pending) == 0 {
		return nil
	}
	return e
}
