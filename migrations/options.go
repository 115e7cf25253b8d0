package migrations

import (
	"time"

	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/tables"
)

// defaultPollInterval is the pause between checks while waiting for tables and indexes,
// used when Options.PollInterval is zero.
const defaultPollInterval = 2 * time.Second

// Options configures a Provider.
type Options struct {
	// TablePrefix names the store: its tables are TablePrefix_entities_master,
	// TablePrefix_relationship_entries and TablePrefix_index_entries. Required; it must
	// pass tables.ValidatePrefix.
	TablePrefix string

	// Billing applies to the tables and global secondary indexes that Up creates. The
	// zero value is on-demand. Up does not change the billing of existing tables: a
	// difference is reported as a warning. A GSI added to an existing provisioned table
	// gets Billing's capacities, or the table's own when Billing is on-demand.
	Billing tables.Billing

	// PollInterval is the pause between DescribeTable calls while Up waits for tables
	// and indexes to become ACTIVE and while Down waits for tables to disappear. The
	// first check is made at once, so nothing waits where tables are ready immediately,
	// as in DynamoDB Local. Zero means 2s.
	PollInterval time.Duration

	// Logger, when set, receives one line as each action starts and when a wait begins.
	Logger Logger
}

// Logger receives progress lines. *log.Logger satisfies it.
type Logger interface {
	Printf(format string, args ...any)
}

func (o Options) withDefaults() Options {
	if o.PollInterval == 0 {
		o.PollInterval = defaultPollInterval
	}
	return o
}

func (o Options) validate() error {
	if err := schema.ValidatePrefix(o.TablePrefix); err != nil {
		return err
	}
	if err := o.Billing.Validate(); err != nil {
		return err
	}
	if o.PollInterval < 0 {
		return &schema.ValidationError{Field: "PollInterval", Value: o.PollInterval.String(), Reason: "must not be negative"}
	}
	return nil
}
