package migrations

import "fmt"

// Severity says whether a Drift stops Up.
type Severity int

// The severities of Drift.
const (
	// SeverityWarning is reported; Up proceeds (and waits, for tables not yet ACTIVE).
	SeverityWarning Severity = iota + 1
	// SeverityError makes Up refuse to change anything: the store would not work as
	// designed, and Up cannot repair it without deleting data.
	SeverityError
)

func (s Severity) String() string {
	switch s {
	case SeverityWarning:
		return "warning"
	case SeverityError:
		return "error"
	}
	return fmt.Sprintf("Severity(%d)", int(s))
}

// DriftKind classifies a Drift.
type DriftKind int

// The kinds of Drift, with the severity they are reported at.
const (
	DriftKeySchema     DriftKind = iota + 1 // a table's or index's key schema differs (error)
	DriftAttributeType                      // a key attribute is defined with another type (error)
	DriftProjection                         // an index projects other attributes (error)
	DriftMissingIndex                       // an LSI is missing; DynamoDB creates LSIs only with their table (error)
	DriftIndexType                          // an index exists as the other kind, GSI for LSI or the reverse (error)
	DriftVersion                            // the recorded version is newer than CurrentVersion (error)
	DriftState                              // not ACTIVE: a warning while CREATING or UPDATING, else an error
	DriftBilling                            // the billing mode or capacity differs from Options.Billing (warning)
	DriftExtraIndex                         // an index the schema does not define (warning)

	// A table lacks a setting Options ask for: point-in-time recovery, deletion
	// protection, or the encryption (warnings; with Options.UpdateExisting, Up
	// applies them instead).
	DriftRecovery
	DriftDeletionProtection
	DriftEncryption
	DriftStream // the table lacks the stream Options.Streams asks for, or has another kind (warning)

	// The entities table's time to live is on another attribute than _expires, or
	// being turned off, which Up cannot change (warning). Turned off, it is no drift:
	// Up turns it on.
	DriftTimeToLive
)

var driftKindNames = map[DriftKind]string{
	DriftKeySchema:     "key-schema",
	DriftAttributeType: "attribute-type",
	DriftProjection:    "projection",
	DriftMissingIndex:  "missing-index",
	DriftIndexType:     "index-type",
	DriftVersion:       "version",
	DriftState:         "state",
	DriftBilling:       "billing",
	DriftExtraIndex:    "extra-index",

	DriftRecovery:           "point-in-time-recovery",
	DriftDeletionProtection: "deletion-protection",
	DriftEncryption:         "encryption",
	DriftStream:             "stream",
	DriftTimeToLive:         "time-to-live",
}

func (k DriftKind) String() string {
	if s, ok := driftKindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("DriftKind(%d)", int(k))
}

// A Drift is one difference between the live tables and the schema.
type Drift struct {
	Kind     DriftKind
	Severity Severity
	Table    string // the table concerned
	Index    string // the index concerned, if any
	Detail   string // what differs, such as "projection is KEYS_ONLY, want ALL"
}

// String returns "table: detail" or "table index name: detail".
func (d Drift) String() string {
	where := d.Table
	if d.Index != "" {
		where += " index " + d.Index
	}
	return where + ": " + d.Detail
}

func filterDrift(drift []Drift, s Severity) []Drift {
	var out []Drift
	for _, d := range drift {
		if d.Severity == s {
			out = append(out, d)
		}
	}
	return out
}
