package migrations

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Status describes the store's tables and indexes as they are now.
type Status struct {
	RecordedVersion int // the schema version recorded in the store; 0 when none is
	TargetVersion   int // CurrentVersion

	Tables  []TableStatus // the schema's tables, in creation order
	Drift   []Drift       // differences from the schema
	Pending []Action      // what Up would do
}

// UpToDate reports whether the store needs nothing: no pending action, no drift error,
// no newer schema version, and every table and index ACTIVE.
func (s *Status) UpToDate() bool {
	if len(s.Pending) > 0 || len(s.Errors()) > 0 || s.Newer() {
		return false
	}
	for _, t := range s.Tables {
		if t.State != StateActive {
			return false
		}
		for _, ix := range t.Indexes {
			if ix.State != StateActive {
				return false
			}
		}
	}
	return true
}

// Newer reports whether a newer release migrated the store: one that this program
// reads and writes when the record keeps it working (a warning, else a drift
// error), and never migrates.
func (s *Status) Newer() bool { return s.RecordedVersion > s.TargetVersion }

// Errors returns the drift of SeverityError.
func (s *Status) Errors() []Drift { return filterDrift(s.Drift, SeverityError) }

// Warnings returns the drift of SeverityWarning.
func (s *Status) Warnings() []Drift { return filterDrift(s.Drift, SeverityWarning) }

// State is the state of a table or index: StateMissing, or the status DynamoDB
// reports, such as "CREATING" or "ACTIVE".
type State string

// States with a meaning of their own.
const (
	StateMissing State = "MISSING"
	StateActive  State = "ACTIVE"
)

// TableStatus describes one table.
type TableStatus struct {
	Name        string
	State       State
	BillingMode types.BillingMode // empty when the table is missing
	Indexes     []IndexStatus     // the schema's indexes, then any others the table has
}

// IndexKind tells global and local secondary indexes apart.
type IndexKind string

// The kinds of secondary index.
const (
	GlobalIndex IndexKind = "GSI"
	LocalIndex  IndexKind = "LSI"
)

// IndexStatus describes one secondary index. An LSI has no state of its own in
// DynamoDB; it is reported with its table's.
type IndexStatus struct {
	Name  string
	Kind  IndexKind
	State State
	Extra bool // the index is not in the schema
}

// tableStatuses describes the wanted tables as found in live. It performs no I/O.
func tableStatuses(want []*dynamodb.CreateTableInput, live map[string]*types.TableDescription) []TableStatus {
	out := make([]TableStatus, 0, len(want))
	for _, w := range want {
		l := live[aws.ToString(w.TableName)]
		ts := TableStatus{Name: aws.ToString(w.TableName), State: StateMissing}
		if l != nil {
			ts.State = State(l.TableStatus)
			ts.BillingMode = liveBillingMode(l)
		}
		ts.Indexes = indexStatuses(w, l, ts.State)
		out = append(out, ts)
	}
	return out
}

func indexStatuses(w *dynamodb.CreateTableInput, l *types.TableDescription, tableState State) []IndexStatus {
	var out []IndexStatus
	seen := map[string]bool{}
	gsiState := func(name string) State {
		if l == nil {
			return StateMissing
		}
		if g := findGSI(l, name); g != nil {
			return State(g.IndexStatus)
		}
		return StateMissing
	}
	lsiState := func(name string) State {
		if l == nil || findLSI(l, name) == nil {
			return StateMissing
		}
		return tableState
	}
	for _, g := range w.GlobalSecondaryIndexes {
		name := aws.ToString(g.IndexName)
		seen[name] = true
		out = append(out, IndexStatus{Name: name, Kind: GlobalIndex, State: gsiState(name)})
	}
	for _, x := range w.LocalSecondaryIndexes {
		name := aws.ToString(x.IndexName)
		seen[name] = true
		out = append(out, IndexStatus{Name: name, Kind: LocalIndex, State: lsiState(name)})
	}
	if l == nil {
		return out
	}
	for _, g := range l.GlobalSecondaryIndexes {
		if name := aws.ToString(g.IndexName); !seen[name] {
			out = append(out, IndexStatus{Name: name, Kind: GlobalIndex, State: State(g.IndexStatus), Extra: true})
		}
	}
	for _, x := range l.LocalSecondaryIndexes {
		if name := aws.ToString(x.IndexName); !seen[name] {
			out = append(out, IndexStatus{Name: name, Kind: LocalIndex, State: tableState, Extra: true})
		}
	}
	return out
}
