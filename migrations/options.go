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

	// PointInTimeRecovery turns on point-in-time recovery (continuous backups) for
	// the tables Up creates. Only when it is set do Plan, Status and Up read each
	// table's recovery setting, with one DescribeContinuousBackups per table.
	// DynamoDB Local does not support point-in-time recovery.
	PointInTimeRecovery bool

	// DeletionProtection creates the tables with deletion protection on: DynamoDB
	// then refuses to delete them, and so does Down, until it is turned off.
	DeletionProtection bool

	// Streams creates the tables with a DynamoDB stream of new and old images
	// (NEW_AND_OLD_IMAGES), which package changes reads as typed changes. Each table
	// gets its own stream; a stream costs nothing to have, its reads are billed.
	Streams bool

	// Encryption chooses how the tables Up creates are encrypted at rest. The zero
	// value is DynamoDB's default, a key that AWS owns.
	Encryption Encryption

	// UpdateExisting makes Up also turn on PointInTimeRecovery, DeletionProtection
	// and Streams, and apply Encryption, on existing tables that lack them. Without it, Plan and
	// Status report such a table as drift of SeverityWarning, as they report billing
	// differences, and Up leaves it alone. Up never turns these settings off: a table
	// with more than the options ask for is not drift. The entities table's time to
	// live is not one of these settings: Up turns it on either way (see the package
	// documentation).
	UpdateExisting bool

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
	if err := o.Encryption.Validate(); err != nil {
		return err
	}
	if o.PollInterval < 0 {
		return &schema.ValidationError{Field: "PollInterval", Value: o.PollInterval.String(), Reason: "must not be negative"}
	}
	return nil
}
