package migrations

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Plan is what Up would do, and what differs from the schema.
type Plan struct {
	RecordedVersion int // the schema version recorded in the store; 0 when none is
	TargetVersion   int // the version Up brings the store to: CurrentVersion

	Actions []Action // in the order Up runs them
	Drift   []Drift  // differences from the schema; see Errors and Warnings
}

// Newer reports whether a newer release migrated the store: Up refuses it, even
// when this program still reads and writes it.
func (p *Plan) Newer() bool { return p.RecordedVersion > p.TargetVersion }

// Empty reports whether the plan has no actions: Up has nothing to do.
func (p *Plan) Empty() bool { return len(p.Actions) == 0 }

// Errors returns the drift of SeverityError, which makes Up refuse to run.
func (p *Plan) Errors() []Drift { return filterDrift(p.Drift, SeverityError) }

// Warnings returns the drift of SeverityWarning.
func (p *Plan) Warnings() []Drift { return filterDrift(p.Drift, SeverityWarning) }

// ActionKind says what an Action does.
type ActionKind int

// The kinds of Action.
const (
	ActionCreateTable   ActionKind = iota + 1 // CreateTable with all its indexes
	ActionCreateIndex                         // UpdateTable adding one GSI to an existing table
	ActionRunMigration                        // run the data step of a migration
	ActionRecordVersion                       // record the schema version in the store
	ActionDeleteTable                         // DeleteTable (Down only)

	ActionEnableRecovery           // UpdateContinuousBackups turning on point-in-time recovery
	ActionEnableDeletionProtection // UpdateTable turning on deletion protection
	ActionSetEncryption            // UpdateTable setting the server-side encryption
	ActionDeleteIndex              // UpdateTable deleting a GSI of an earlier schema version
	ActionEnableStream             // UpdateTable turning on a stream of new and old images
	ActionEnableTimeToLive         // UpdateTimeToLive turning on the entities table's time to live
)

var actionKindNames = map[ActionKind]string{
	ActionCreateTable:   "create-table",
	ActionCreateIndex:   "create-index",
	ActionRunMigration:  "run-migration",
	ActionRecordVersion: "record-version",
	ActionDeleteTable:   "delete-table",

	ActionEnableRecovery:           "enable-point-in-time-recovery",
	ActionEnableDeletionProtection: "enable-deletion-protection",
	ActionSetEncryption:            "set-encryption",
	ActionDeleteIndex:              "delete-index",
	ActionEnableStream:             "enable-stream",
	ActionEnableTimeToLive:         "enable-time-to-live",
}

func (k ActionKind) String() string {
	if s, ok := actionKindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("ActionKind(%d)", int(k))
}

// An Action is one step of a Plan or a Result.
type Action struct {
	Kind    ActionKind
	Table   string // the table concerned; for ActionRecordVersion, the table holding the record
	Index   string // ActionCreateIndex and ActionDeleteIndex: the GSI created or deleted
	Version int    // ActionRunMigration and ActionRecordVersion: the schema version

	// Description is the migration's description for ActionRunMigration.
	Description string

	// The request sent: CreateTable for ActionCreateTable; UpdateTable for
	// ActionCreateIndex, ActionDeleteIndex, ActionEnableDeletionProtection,
	// ActionEnableStream and ActionSetEncryption;
	// UpdateContinuousBackups for ActionEnableRecovery; UpdateTimeToLive for
	// ActionEnableTimeToLive; nil otherwise.
	CreateTable             *dynamodb.CreateTableInput
	UpdateTable             *dynamodb.UpdateTableInput
	UpdateContinuousBackups *dynamodb.UpdateContinuousBackupsInput
	UpdateTimeToLive        *dynamodb.UpdateTimeToLiveInput
}

// isSchema reports whether a changes tables rather than data.
func (a Action) isSchema() bool {
	return a.Kind == ActionCreateTable || a.Kind == ActionCreateIndex
}

// String describes the action in a short line, such as
// "create GSI app_index_lookup on table app_index_entries".
func (a Action) String() string {
	switch a.Kind {
	case ActionCreateTable:
		return "create table " + a.Table + indexList(a.CreateTable)
	case ActionCreateIndex:
		return fmt.Sprintf("create GSI %s on table %s", a.Index, a.Table)
	case ActionDeleteIndex:
		return fmt.Sprintf("delete GSI %s of table %s, replaced", a.Index, a.Table)
	case ActionRunMigration:
		return fmt.Sprintf("run migration %d: %s", a.Version, a.Description)
	case ActionRecordVersion:
		return fmt.Sprintf("record schema version %d", a.Version)
	case ActionDeleteTable:
		return "delete table " + a.Table
	case ActionEnableRecovery:
		return "enable point-in-time recovery on table " + a.Table
	case ActionEnableStream:
		return "enable a stream of new and old images on table " + a.Table
	case ActionEnableDeletionProtection:
		return "enable deletion protection on table " + a.Table
	case ActionSetEncryption:
		return "encrypt table " + a.Table + " with " + keyName(a.UpdateTable)
	case ActionEnableTimeToLive:
		return fmt.Sprintf("turn on time to live (attribute %s) on table %s", timeToLiveAttribute(a.UpdateTimeToLive), a.Table)
	}
	return fmt.Sprintf("%s %s", a.Kind, a.Table)
}

// keyName names the KMS key an encryption update asks for.
func keyName(in *dynamodb.UpdateTableInput) string {
	if in == nil || in.SSESpecification == nil || in.SSESpecification.KMSMasterKeyId == nil {
		return "the AWS managed KMS key"
	}
	return "KMS key " + aws.ToString(in.SSESpecification.KMSMasterKeyId)
}

// timeToLiveAttribute names the attribute a time-to-live update turns on.
func timeToLiveAttribute(in *dynamodb.UpdateTimeToLiveInput) string {
	if in == nil || in.TimeToLiveSpecification == nil {
		return "none"
	}
	return aws.ToString(in.TimeToLiveSpecification.AttributeName)
}

// indexList returns " (GSI a, LSI b)" for the indexes in in, or "" when it has none.
func indexList(in *dynamodb.CreateTableInput) string {
	if in == nil {
		return ""
	}
	var parts []string
	for _, g := range in.GlobalSecondaryIndexes {
		parts = append(parts, "GSI "+aws.ToString(g.IndexName))
	}
	for _, l := range in.LocalSecondaryIndexes {
		parts = append(parts, "LSI "+aws.ToString(l.IndexName))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
