package migrations

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// target is what a Plan brings the store to.
type target struct {
	tables         []*dynamodb.CreateTableInput // in creation order; the first holds the version record
	recovery       bool                         // point-in-time recovery wanted
	updateExisting bool                         // apply the settings to existing tables
	retired        map[string][]string          // GSIs of earlier versions to delete, by table
	timeToLive     map[string]string            // the time-to-live attribute wanted, by table
}

// diff compares the wanted tables with the live ones in s and plans what Up must do.
// migs are the versions up to the target. diff performs no I/O.
func diff(t target, s *snapshot, migs []migration) *Plan {
	p := &Plan{RecordedVersion: s.version, TargetVersion: latest(migs)}
	var settings []Action // after every table and index exists: Up waits for them first
	var retire []Action   // after the data steps, which fill the indexes replacing them
	for _, w := range t.tables {
		name := aws.ToString(w.TableName)
		l := s.live[name]
		if l == nil {
			p.Actions = append(p.Actions, Action{Kind: ActionCreateTable, Table: name, CreateTable: w})
			if t.recovery {
				settings = append(settings, Action{Kind: ActionEnableRecovery, Table: name, UpdateContinuousBackups: recoveryInput(name)})
			}
			if attr := t.timeToLive[name]; attr != "" {
				settings = append(settings, timeToLiveAction(name, attr))
			}
			continue
		}
		td := tableDiff{want: w, live: l, target: t, recovery: s.recoveryOf(name), timeToLive: s.timeToLive[name]}
		td.compare()
		p.Actions = append(p.Actions, td.actions...)
		p.Drift = append(p.Drift, td.drift...)
		settings = append(settings, td.settings...)
		retire = append(retire, td.retire...)
	}
	p.Actions = append(p.Actions, settings...)
	if len(t.tables) > 0 {
		p.planVersion(aws.ToString(t.tables[0].TableName), migs, s.compatible)
	}
	p.Actions = append(p.Actions, retire...)
	return p
}

// planVersion adds the data steps and version record a store at p.RecordedVersion
// needs, or the drift of a version newer than the target: an error, or a warning
// when the record says programs of the target version still work at it
// (compatible, 0 when it says nothing). versionTable holds the record.
func (p *Plan) planVersion(versionTable string, migs []migration, compatible int) {
	switch {
	case p.RecordedVersion > p.TargetVersion && compatible > 0 && compatible <= p.TargetVersion:
		p.Drift = append(p.Drift, Drift{Kind: DriftVersion, Severity: SeverityWarning, Table: versionTable,
			Detail: fmt.Sprintf("recorded schema version %d is newer than %d, the newest this program knows; "+
				"it keeps programs of version %d and later working, so this one reads and writes the store, but cannot migrate it",
				p.RecordedVersion, p.TargetVersion, compatible)})
	case p.RecordedVersion > p.TargetVersion:
		p.Drift = append(p.Drift, Drift{Kind: DriftVersion, Severity: SeverityError, Table: versionTable,
			Detail: fmt.Sprintf("recorded schema version %d is newer than %d, the newest this program knows; use a newer release",
				p.RecordedVersion, p.TargetVersion)})
	case p.RecordedVersion < p.TargetVersion:
		for _, m := range migs {
			if m.Version > p.RecordedVersion && m.run != nil {
				p.Actions = append(p.Actions, Action{Kind: ActionRunMigration, Table: versionTable,
					Version: m.Version, Description: m.Description})
			}
		}
		p.Actions = append(p.Actions, Action{Kind: ActionRecordVersion, Table: versionTable, Version: p.TargetVersion})
	}
}

// tableDiff compares one existing table with its definition.
type tableDiff struct {
	want       *dynamodb.CreateTableInput
	live       *types.TableDescription
	target     target
	recovery   *bool                        // whether the live table has point-in-time recovery; nil when not read
	timeToLive *types.TimeToLiveDescription // the live table's time to live; nil when not read

	actions  []Action // creations of indexes
	settings []Action // settings applied to the table
	retire   []Action // deletions of retired indexes
	drift    []Drift
}

func (t *tableDiff) name() string { return aws.ToString(t.want.TableName) }

func (t *tableDiff) add(kind DriftKind, s Severity, index, format string, args ...any) {
	t.drift = append(t.drift, Drift{Kind: kind, Severity: s, Table: t.name(), Index: index,
		Detail: fmt.Sprintf(format, args...)})
}

func (t *tableDiff) compare() {
	t.compareState()
	if !sameKeySchema(t.want.KeySchema, t.live.KeySchema) {
		t.add(DriftKeySchema, SeverityError, "", "key schema is %s, want %s",
			formatKeySchema(t.live.KeySchema), formatKeySchema(t.want.KeySchema))
	}
	t.compareAttributeTypes()
	t.compareBilling()
	t.compareGSIs()
	t.compareLSIs()
	t.findExtraIndexes()
	t.compareSettings()
	t.compareTimeToLive()
}

func (t *tableDiff) compareState() {
	if s := t.live.TableStatus; s != types.TableStatusActive {
		t.add(DriftState, stateSeverity(string(s)), "", "table is %s", s)
	}
}

// stateSeverity is a warning for states that end in ACTIVE on their own, which Up
// waits for, and an error for the others (DELETING, ARCHIVED, ...).
func stateSeverity(s string) Severity {
	if s == string(types.TableStatusCreating) || s == string(types.TableStatusUpdating) {
		return SeverityWarning
	}
	return SeverityError
}

// compareAttributeTypes checks every wanted attribute that the live table defines:
// DynamoDB defines only key attributes, and a type clash breaks every read and write
// (or, for the key of a missing GSI, its creation).
func (t *tableDiff) compareAttributeTypes() {
	for _, w := range t.want.AttributeDefinitions {
		for _, l := range t.live.AttributeDefinitions {
			if aws.ToString(l.AttributeName) == aws.ToString(w.AttributeName) && l.AttributeType != w.AttributeType {
				t.add(DriftAttributeType, SeverityError, "", "key attribute %s has type %s, want %s",
					aws.ToString(w.AttributeName), l.AttributeType, w.AttributeType)
			}
		}
	}
}

func (t *tableDiff) compareBilling() {
	wantMode, liveMode := t.want.BillingMode, liveBillingMode(t.live)
	if wantMode != liveMode {
		t.add(DriftBilling, SeverityWarning, "", "billing mode is %s, want %s; up does not change it", liveMode, wantMode)
		return
	}
	if liveMode == types.BillingModeProvisioned {
		if d := capacityDiff(t.want.ProvisionedThroughput, t.live.ProvisionedThroughput); d != "" {
			t.add(DriftBilling, SeverityWarning, "", "%s", d)
		}
	}
}

func (t *tableDiff) compareGSIs() {
	for _, w := range t.want.GlobalSecondaryIndexes {
		name := aws.ToString(w.IndexName)
		l := findGSI(t.live, name)
		if l == nil {
			if findLSI(t.live, name) != nil {
				t.add(DriftIndexType, SeverityError, name, "is a local secondary index, want a global one")
				continue
			}
			t.actions = append(t.actions, t.createGSI(w))
			continue
		}
		t.compareIndex(name, w.KeySchema, l.KeySchema, w.Projection, l.Projection)
		if l.IndexStatus != types.IndexStatusActive {
			t.add(DriftState, stateSeverity(string(l.IndexStatus)), name, "index is %s", l.IndexStatus)
		}
		if liveBillingMode(t.live) == types.BillingModeProvisioned && t.want.BillingMode == types.BillingModeProvisioned {
			if d := capacityDiff(w.ProvisionedThroughput, l.ProvisionedThroughput); d != "" {
				t.add(DriftBilling, SeverityWarning, name, "%s", d)
			}
		}
	}
}

func (t *tableDiff) compareLSIs() {
	for _, w := range t.want.LocalSecondaryIndexes {
		name := aws.ToString(w.IndexName)
		l := findLSI(t.live, name)
		switch {
		case l != nil:
			t.compareIndex(name, w.KeySchema, l.KeySchema, w.Projection, l.Projection)
		case findGSI(t.live, name) != nil:
			t.add(DriftIndexType, SeverityError, name, "is a global secondary index, want a local one")
		default:
			t.add(DriftMissingIndex, SeverityError, name,
				"local secondary index is missing; DynamoDB adds one only when it creates the table")
		}
	}
}

func (t *tableDiff) compareIndex(name string, wantKeys, liveKeys []types.KeySchemaElement, wantProj, liveProj *types.Projection) {
	if !sameKeySchema(wantKeys, liveKeys) {
		t.add(DriftKeySchema, SeverityError, name, "key schema is %s, want %s",
			formatKeySchema(liveKeys), formatKeySchema(wantKeys))
	}
	if !sameProjection(wantProj, liveProj) {
		t.add(DriftProjection, SeverityError, name, "projection is %s, want %s",
			formatProjection(liveProj), formatProjection(wantProj))
	}
}

func (t *tableDiff) findExtraIndexes() {
	for _, l := range t.live.GlobalSecondaryIndexes {
		name := aws.ToString(l.IndexName)
		switch {
		case slices.ContainsFunc(t.want.GlobalSecondaryIndexes, func(g types.GlobalSecondaryIndex) bool { return aws.ToString(g.IndexName) == name }),
			slices.ContainsFunc(t.want.LocalSecondaryIndexes, func(g types.LocalSecondaryIndex) bool { return aws.ToString(g.IndexName) == name }):
		case slices.Contains(t.target.retired[t.name()], name) && l.IndexStatus != types.IndexStatusDeleting:
			t.retire = append(t.retire, deleteGSI(t.name(), name))
		case l.IndexStatus != types.IndexStatusDeleting:
			t.add(DriftExtraIndex, SeverityWarning, name, "global secondary index is not in the schema")
		}
	}
	for _, l := range t.live.LocalSecondaryIndexes {
		name := aws.ToString(l.IndexName)
		if !slices.ContainsFunc(t.want.LocalSecondaryIndexes, func(g types.LocalSecondaryIndex) bool { return aws.ToString(g.IndexName) == name }) &&
			!slices.ContainsFunc(t.want.GlobalSecondaryIndexes, func(g types.GlobalSecondaryIndex) bool { return aws.ToString(g.IndexName) == name }) {
			t.add(DriftExtraIndex, SeverityWarning, name, "local secondary index is not in the schema")
		}
	}
}

// deleteGSI returns the UpdateTable action deleting the GSI index of table.
func deleteGSI(table, index string) Action {
	return Action{Kind: ActionDeleteIndex, Table: table, Index: index, UpdateTable: &dynamodb.UpdateTableInput{
		TableName: aws.String(table),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{
			Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String(index)},
		}},
	}}
}

// createGSI returns the UpdateTable action adding g. The billing of the live table
// decides whether the index needs capacity: the wanted capacity when there is one,
// otherwise the table's own.
func (t *tableDiff) createGSI(g types.GlobalSecondaryIndex) Action {
	create := &types.CreateGlobalSecondaryIndexAction{
		IndexName:  g.IndexName,
		KeySchema:  g.KeySchema,
		Projection: g.Projection,
	}
	if liveBillingMode(t.live) == types.BillingModeProvisioned {
		create.ProvisionedThroughput = g.ProvisionedThroughput
		if create.ProvisionedThroughput == nil {
			create.ProvisionedThroughput = tableCapacity(t.live)
		}
	}
	return Action{
		Kind:  ActionCreateIndex,
		Table: t.name(),
		Index: aws.ToString(g.IndexName),
		UpdateTable: &dynamodb.UpdateTableInput{
			TableName:                   t.want.TableName,
			AttributeDefinitions:        attributesOf(t.want.AttributeDefinitions, g.KeySchema),
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: create}},
		},
	}
}

// liveBillingMode returns the billing mode of a live table. DynamoDB omits the summary
// for tables created with provisioned capacity that never changed mode; on-demand
// tables report zero capacity.
func liveBillingMode(l *types.TableDescription) types.BillingMode {
	if l.BillingModeSummary != nil && l.BillingModeSummary.BillingMode != "" {
		return l.BillingModeSummary.BillingMode
	}
	if l.ProvisionedThroughput != nil && aws.ToInt64(l.ProvisionedThroughput.ReadCapacityUnits) > 0 {
		return types.BillingModeProvisioned
	}
	return types.BillingModePayPerRequest
}

func tableCapacity(l *types.TableDescription) *types.ProvisionedThroughput {
	if l.ProvisionedThroughput == nil {
		return nil
	}
	return &types.ProvisionedThroughput{
		ReadCapacityUnits:  l.ProvisionedThroughput.ReadCapacityUnits,
		WriteCapacityUnits: l.ProvisionedThroughput.WriteCapacityUnits,
	}
}

// capacityDiff describes how live capacity differs from the wanted one, or returns "".
func capacityDiff(want *types.ProvisionedThroughput, live *types.ProvisionedThroughputDescription) string {
	if want == nil {
		return ""
	}
	var lr, lw int64
	if live != nil {
		lr, lw = aws.ToInt64(live.ReadCapacityUnits), aws.ToInt64(live.WriteCapacityUnits)
	}
	wr, ww := aws.ToInt64(want.ReadCapacityUnits), aws.ToInt64(want.WriteCapacityUnits)
	if lr == wr && lw == ww {
		return ""
	}
	return fmt.Sprintf("capacity is %d read / %d write, want %d / %d; up does not change it", lr, lw, wr, ww)
}

func findGSI(l *types.TableDescription, name string) *types.GlobalSecondaryIndexDescription {
	for i := range l.GlobalSecondaryIndexes {
		if aws.ToString(l.GlobalSecondaryIndexes[i].IndexName) == name {
			return &l.GlobalSecondaryIndexes[i]
		}
	}
	return nil
}

func findLSI(l *types.TableDescription, name string) *types.LocalSecondaryIndexDescription {
	for i := range l.LocalSecondaryIndexes {
		if aws.ToString(l.LocalSecondaryIndexes[i].IndexName) == name {
			return &l.LocalSecondaryIndexes[i]
		}
	}
	return nil
}

// attributesOf returns the definitions in defs of the attributes in keys.
func attributesOf(defs []types.AttributeDefinition, keys []types.KeySchemaElement) []types.AttributeDefinition {
	var out []types.AttributeDefinition
	for _, k := range keys {
		for _, d := range defs {
			if aws.ToString(d.AttributeName) == aws.ToString(k.AttributeName) {
				out = append(out, d)
			}
		}
	}
	return out
}

// keysMatch reports whether a live table has the wanted key schema and key attribute
// types, so that items can be read from it with the wanted keys.
func keysMatch(want *dynamodb.CreateTableInput, live *types.TableDescription) bool {
	if !sameKeySchema(want.KeySchema, live.KeySchema) {
		return false
	}
	for _, k := range want.KeySchema {
		name := aws.ToString(k.AttributeName)
		if attributeType(want.AttributeDefinitions, name) != attributeType(live.AttributeDefinitions, name) {
			return false
		}
	}
	return true
}

func attributeType(defs []types.AttributeDefinition, name string) types.ScalarAttributeType {
	for _, d := range defs {
		if aws.ToString(d.AttributeName) == name {
			return d.AttributeType
		}
	}
	return ""
}

// sameKeySchema compares key schemas element by element: DynamoDB lists HASH first.
func sameKeySchema(a, b []types.KeySchemaElement) bool {
	return slices.EqualFunc(a, b, func(x, y types.KeySchemaElement) bool {
		return aws.ToString(x.AttributeName) == aws.ToString(y.AttributeName) && x.KeyType == y.KeyType
	})
}

func sameProjection(want, live *types.Projection) bool {
	if want == nil || live == nil {
		return want == live
	}
	if want.ProjectionType != live.ProjectionType {
		return false
	}
	a, b := slices.Sorted(slices.Values(want.NonKeyAttributes)), slices.Sorted(slices.Values(live.NonKeyAttributes))
	return slices.Equal(a, b)
}

// formatKeySchema returns a key schema as "[_id HASH, _scope_type_key RANGE]".
func formatKeySchema(keys []types.KeySchemaElement) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = aws.ToString(k.AttributeName) + " " + string(k.KeyType)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// formatProjection returns "ALL", "KEYS_ONLY" or "INCLUDE [a, b]".
func formatProjection(p *types.Projection) string {
	if p == nil {
		return "none"
	}
	if len(p.NonKeyAttributes) == 0 {
		return string(p.ProjectionType)
	}
	return fmt.Sprintf("%s [%s]", p.ProjectionType, strings.Join(p.NonKeyAttributes, ", "))
}
