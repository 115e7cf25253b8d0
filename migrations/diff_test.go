package migrations

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/schema"
)

var (
	onDemand    = schema.Billing{}
	provisioned = schema.Billing{Mode: types.BillingModeProvisioned, ReadCapacity: 5, WriteCapacity: 7}
)

func testNames(t *testing.T) schema.Names {
	t.Helper()
	n, err := schema.NewNames("app")
	require.NoError(t, err)
	return n
}

// liveAll returns the descriptions of the tables defs creates, all ACTIVE.
func liveAll(defs []*dynamodb.CreateTableInput) map[string]*types.TableDescription {
	live := map[string]*types.TableDescription{}
	for _, d := range defs {
		live[aws.ToString(d.TableName)] = describeInput(d)
	}
	return live
}

func keys(partition, sort string) []types.KeySchemaElement {
	return []types.KeySchemaElement{
		{AttributeName: aws.String(partition), KeyType: types.KeyTypeHash},
		{AttributeName: aws.String(sort), KeyType: types.KeyTypeRange},
	}
}

// actionStrings and driftStrings give short forms to compare.
func actionStrings(as []Action) []string {
	var out []string
	for _, a := range as {
		out = append(out, fmt.Sprintf("%s %s %s %d", a.Kind, a.Table, a.Index, a.Version))
	}
	return out
}

func driftStrings(ds []Drift) []string {
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%s %s %s %s", d.Severity, d.Kind, d.Table, d.Index))
	}
	return out
}

func TestDiff(t *testing.T) {
	n := testNames(t)
	const (
		buildHeads  = "run-migration app_entities_master  2"
		reverseKeys = "run-migration app_entities_master  3"
		record      = "record-version app_entities_master  4"
	)

	tests := []struct {
		name     string
		billing  schema.Billing
		recorded int
		compat   int                                           // the recorded version's Compatible
		live     func(live map[string]*types.TableDescription) // changes the all-ACTIVE tables
		actions  []string
		drift    []string
	}{
		{
			name: "nothing exists",
			live: func(live map[string]*types.TableDescription) { clear(live) },
			actions: []string{
				"create-table app_entities_master  0",
				"create-table app_relationship_entries  0",
				"create-table app_index_entries  0",
				buildHeads,
				reverseKeys,
				record,
			},
		},
		{
			name:     "up to date",
			recorded: 4,
		},
		{
			name:    "tables exist, no version recorded",
			actions: []string{buildHeads, reverseKeys, record},
		},
		{
			name:     "version 1 recorded",
			recorded: 1,
			actions:  []string{buildHeads, reverseKeys, record},
		},
		{
			name:     "one table missing",
			recorded: 4,
			live:     func(live map[string]*types.TableDescription) { delete(live, n.Relationships) },
			actions:  []string{"create-table app_relationship_entries  0"},
		},
		{
			name:     "GSI missing",
			recorded: 4,
			live: func(live map[string]*types.TableDescription) {
				live[n.IndexEntries].GlobalSecondaryIndexes = nil
			},
			actions: []string{"create-index app_index_entries app_index_lookup 0"},
		},
		{
			name: "every GSI missing: one action each",
			live: func(live map[string]*types.TableDescription) {
				for _, l := range live {
					l.GlobalSecondaryIndexes = nil
				}
			},
			actions: []string{
				"create-index app_entities_master app_entities_by_type 0",
				"create-index app_entities_master app_entities_by_type_shard 0",
				"create-index app_entities_master app_entities_inline_1 0",
				"create-index app_entities_master app_entities_inline_2 0",
				"create-index app_relationship_entries app_incoming_relationships 0",
				"create-index app_relationship_entries app_incoming_shard 0",
				"create-index app_index_entries app_index_lookup 0",
				buildHeads,
				reverseKeys,
				record,
			},
		},
		{
			name:     "table key schema differs",
			recorded: 4,
			live: func(live map[string]*types.TableDescription) {
				live[n.Entities].KeySchema = keys(schema.AttrID, schema.AttrUpdated)
			},
			drift: []string{"error key-schema app_entities_master "},
		},
		{
			name:     "table without sort key",
			recorded: 4,
			live: func(live map[string]*types.TableDescription) {
				live[n.IndexEntries].KeySchema = keys(schema.AttrSubjectKey, schema.AttrUniqueKey)[:1]
			},
			drift: []string{"error key-schema app_index_entries "},
		},
		{
			name:     "key attribute type differs",
			recorded: 4,
			live: func(live map[string]*types.TableDescription) {
				live[n.Relationships].AttributeDefinitions[0].AttributeType = types.ScalarAttributeTypeB
			},
			drift: []string{"error attribute-type app_relationship_entries "},
		},
		{
			name:     "GSI key schema differs",
			recorded: 4,
			live: func(live map[string]*types.TableDescription) {
				live[n.Entities].GlobalSecondaryIndexes[0].KeySchema = keys(schema.AttrScopeTypeKey, schema.AttrCreated)
			},
			drift: []string{"error key-schema app_entities_master app_entities_by_type"},
		},
		{
			name:     "GSI projection differs",
			recorded: 4,
			live: func(live map[string]*types.TableDescription) {
				live[n.Relationships].GlobalSecondaryIndexes[0].Projection = &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}
			},
			drift: []string{"error projection app_relationship_entries app_incoming_relationships"},
		},
		{
			name:     "LSI projection differs",
			recorded: 4,
			live: func(live map[string]*types.TableDescription) {
				live[n.Relationships].LocalSecondaryIndexes[0].Projection = &types.Projection{
					ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"_index"}}
			},
			drift: []string{"error projection app_relationship_entries app_relationships_by_object"},
		},
		{
			name:     "LSI key schema differs",
			recorded: 4,
			live: func(live map[string]*types.TableDescription) {
				live[n.Relationships].LocalSecondaryIndexes[0].KeySchema = keys(schema.AttrSubjectKey, schema.AttrObjectKey)
			},
			drift: []string{"error key-schema app_relationship_entries app_relationships_by_object"},
		},
		{
			name:     "LSI missing",
			recorded: 4,
			live: func(live map[string]*types.TableDescription) {
				live[n.Relationships].LocalSecondaryIndexes = nil
			},
			drift: []string{"error missing-index app_relationship_entries app_relationships_by_object"},
		},
		{
			name:     "GSI exists as an LSI",
			recorded: 4,
			live: func(live map[string]*types.TableDescription) {
				l := live[n.Entities]
				l.LocalSecondaryIndexes = []types.LocalSecondaryIndexDescription{{IndexName: aws.String(n.EntitiesByType),
					KeySchema: keys(schema.AttrID, schema.AttrUpdated), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}
				l.GlobalSecondaryIndexes = nil
			},
			actions: []string{
				"create-index app_entities_master app_entities_by_type_shard 0",
				"create-index app_entities_master app_entities_inline_1 0",
				"create-index app_entities_master app_entities_inline_2 0",
			},
			drift: []string{"error index-type app_entities_master app_entities_by_type"},
		},
		{
			name:     "LSI exists as a GSI",
			recorded: 4,
			live: func(live map[string]*types.TableDescription) {
				l := live[n.Relationships]
				l.GlobalSecondaryIndexes = append(l.GlobalSecondaryIndexes, types.GlobalSecondaryIndexDescription{
					IndexName: l.LocalSecondaryIndexes[0].IndexName, IndexStatus: types.IndexStatusActive,
					KeySchema: l.LocalSecondaryIndexes[0].KeySchema, Projection: l.LocalSecondaryIndexes[0].Projection})
				l.LocalSecondaryIndexes = nil
			},
			drift: []string{"error index-type app_relationship_entries app_relationships_by_object"},
		},
		{
			name:     "recorded version newer",
			recorded: 5,
			drift:    []string{"error version app_entities_master "},
		},
		{
			name:     "recorded version newer, compatible with this one",
			recorded: 5,
			compat:   CurrentVersion,
			drift:    []string{"warning version app_entities_master "},
		},
		{
			name:     "recorded version newer, compatible with newer ones only",
			recorded: 6,
			compat:   CurrentVersion + 1,
			drift:    []string{"error version app_entities_master "},
		},
		{
			name:     "billing mode differs",
			billing:  provisioned,
			recorded: 4,
			live: func(live map[string]*types.TableDescription) {
				live[n.Entities].BillingModeSummary.BillingMode = types.BillingModePayPerRequest
			},
			drift: []string{"warning billing app_entities_master "},
		},
		{
			name:     "provisioned capacity differs",
			billing:  provisioned,
			recorded: 4,
			live: func(live map[string]*types.TableDescription) {
				live[n.Entities].ProvisionedThroughput.ReadCapacityUnits = aws.Int64(1)
				live[n.IndexEntries].GlobalSecondaryIndexes[0].ProvisionedThroughput.WriteCapacityUnits = aws.Int64(1)
			},
			drift: []string{
				"warning billing app_entities_master ",
				"warning billing app_index_entries app_index_lookup",
			},
		},
		{
			name:     "provisioned table without billing summary",
			billing:  provisioned,
			recorded: 4,
			live: func(live map[string]*types.TableDescription) {
				live[n.Entities].BillingModeSummary = nil
			},
		},
		{
			name:     "extra GSI and LSI",
			recorded: 4,
			live: func(live map[string]*types.TableDescription) {
				l := live[n.Entities]
				l.GlobalSecondaryIndexes = append(l.GlobalSecondaryIndexes, types.GlobalSecondaryIndexDescription{
					IndexName: aws.String("mine"), IndexStatus: types.IndexStatusActive})
				l.LocalSecondaryIndexes = append(l.LocalSecondaryIndexes, types.LocalSecondaryIndexDescription{
					IndexName: aws.String("mine_too")})
			},
			drift: []string{
				"warning extra-index app_entities_master mine",
				"warning extra-index app_entities_master mine_too",
			},
		},
		{
			name:     "table and GSI being created",
			recorded: 4,
			live: func(live map[string]*types.TableDescription) {
				live[n.Entities].TableStatus = types.TableStatusCreating
				live[n.IndexEntries].GlobalSecondaryIndexes[0].IndexStatus = types.IndexStatusCreating
			},
			drift: []string{
				"warning state app_entities_master ",
				"warning state app_index_entries app_index_lookup",
			},
		},
		{
			name:     "table being deleted",
			recorded: 4,
			live: func(live map[string]*types.TableDescription) {
				live[n.IndexEntries].TableStatus = types.TableStatusDeleting
			},
			drift: []string{"error state app_index_entries "},
		},
		{
			name:     "GSI being deleted",
			recorded: 4,
			live: func(live map[string]*types.TableDescription) {
				live[n.IndexEntries].GlobalSecondaryIndexes[0].IndexStatus = types.IndexStatusDeleting
			},
			drift: []string{"error state app_index_entries app_index_lookup"},
		},
		{
			name:     "missing GSI whose key attribute has another type",
			recorded: 4,
			live: func(live map[string]*types.TableDescription) {
				l := live[n.Entities]
				l.GlobalSecondaryIndexes = nil
				for i, a := range l.AttributeDefinitions {
					if aws.ToString(a.AttributeName) == schema.AttrUpdated {
						l.AttributeDefinitions[i].AttributeType = types.ScalarAttributeTypeN
					}
				}
			},
			actions: []string{
				"create-index app_entities_master app_entities_by_type 0",
				"create-index app_entities_master app_entities_by_type_shard 0",
				"create-index app_entities_master app_entities_inline_1 0",
				"create-index app_entities_master app_entities_inline_2 0",
			},
			drift: []string{"error attribute-type app_entities_master "},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := schema.Definitions(n, tt.billing)
			live := liveAll(schema.Definitions(n, tt.billing))
			if tt.live != nil {
				tt.live(live)
			}
			p := diff(target{tables: want}, &snapshot{live: live, version: tt.recorded, compatible: tt.compat}, allMigrations())
			require.Equal(t, tt.actions, actionStrings(p.Actions))
			require.Equal(t, tt.drift, driftStrings(p.Drift))
			require.Equal(t, tt.recorded, p.RecordedVersion)
			require.Equal(t, CurrentVersion, p.TargetVersion)
			for _, d := range p.Drift {
				require.NotEmpty(t, d.Detail, "drift %s has no detail", d.Kind)
			}
		})
	}
}

func TestDiffCreateTableSendsTheDefinition(t *testing.T) {
	n := testNames(t)
	want := schema.Definitions(n, onDemand)
	p := diff(target{tables: want}, &snapshot{}, allMigrations())
	require.Len(t, p.Actions, 6)
	for i, def := range want {
		require.Same(t, def, p.Actions[i].CreateTable)
		require.Nil(t, p.Actions[i].UpdateTable)
	}
	require.Equal(t, "create table app_relationship_entries (GSI app_incoming_relationships, GSI app_incoming_shard, LSI app_relationships_by_object)",
		p.Actions[1].String())
	require.Equal(t, "run migration 2: build the heads and markers of relationship lists written before them", p.Actions[3].String())
	require.Equal(t, "run migration 3: give every relationship entry its _reverse_key, the sort key of the reverse index replacing reverse_relationships", p.Actions[4].String())
	require.Equal(t, "record schema version 4", p.Actions[5].String())
}

func TestDiffCreateIndexRequest(t *testing.T) {
	n := testNames(t)
	capacity := func(r, w int64) *types.ProvisionedThroughput {
		return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(w)}
	}
	tests := []struct {
		name       string
		want, live schema.Billing
		throughput *types.ProvisionedThroughput
	}{
		{name: "on-demand table", want: onDemand, live: onDemand, throughput: nil},
		{name: "provisioned table", want: provisioned, live: provisioned, throughput: capacity(5, 7)},
		{name: "provisioned table, on-demand wanted", want: onDemand,
			live: schema.Billing{Mode: types.BillingModeProvisioned, ReadCapacity: 3, WriteCapacity: 4}, throughput: capacity(3, 4)},
		{name: "on-demand table, provisioned wanted", want: provisioned, live: onDemand, throughput: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			live := liveAll(schema.Definitions(n, tt.live))
			live[n.Entities].GlobalSecondaryIndexes = nil
			p := diff(target{tables: schema.Definitions(n, tt.want)}, &snapshot{live: live, version: CurrentVersion}, allMigrations())
			require.Len(t, p.Actions, 4)
			require.Equal(t, []string{
				"create-index app_entities_master app_entities_by_type 0",
				"create-index app_entities_master app_entities_by_type_shard 0",
				"create-index app_entities_master app_entities_inline_1 0",
				"create-index app_entities_master app_entities_inline_2 0",
			}, actionStrings(p.Actions))
			a := p.Actions[0]
			require.Equal(t, "create GSI app_entities_by_type on table app_entities_master", a.String())
			require.Nil(t, a.CreateTable)
			u := a.UpdateTable
			require.Equal(t, n.Entities, aws.ToString(u.TableName))
			require.Equal(t, []types.AttributeDefinition{
				{AttributeName: aws.String(schema.AttrScopeTypeKey), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: aws.String(schema.AttrUpdated), AttributeType: types.ScalarAttributeTypeS},
			}, u.AttributeDefinitions)
			require.Len(t, u.GlobalSecondaryIndexUpdates, 1)
			c := u.GlobalSecondaryIndexUpdates[0].Create
			require.NotNil(t, c)
			require.Equal(t, n.EntitiesByType, aws.ToString(c.IndexName))
			require.Equal(t, keys(schema.AttrScopeTypeKey, schema.AttrUpdated), c.KeySchema)
			require.Equal(t, types.ProjectionTypeAll, c.Projection.ProjectionType)
			require.Equal(t, tt.throughput, c.ProvisionedThroughput)
		})
	}
}

func TestDiffDataSteps(t *testing.T) {
	n := testNames(t)
	step := func(context.Context, API, schema.Names) error { return nil }
	migs := []migration{
		{Version: 1, Description: "tables"},
		{Version: 2, Description: "backfill", run: step},
		{Version: 3, Description: "add a GSI"},
		{Version: 4, Description: "rewrite keys", run: step},
	}
	tests := []struct {
		recorded int
		actions  []string
	}{
		{0, []string{"run-migration app_entities_master  2", "run-migration app_entities_master  4", "record-version app_entities_master  4"}},
		{2, []string{"run-migration app_entities_master  4", "record-version app_entities_master  4"}},
		{3, []string{"run-migration app_entities_master  4", "record-version app_entities_master  4"}},
		{4, nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("recorded %d", tt.recorded), func(t *testing.T) {
			want := schema.Definitions(n, onDemand)
			p := diff(target{tables: want}, &snapshot{live: liveAll(want), version: tt.recorded}, migs)
			require.Equal(t, tt.actions, actionStrings(p.Actions))
			require.Empty(t, p.Drift)
			require.Equal(t, 4, p.TargetVersion)
		})
	}
}

func TestMigrationsList(t *testing.T) {
	migs := allMigrations()
	require.NotEmpty(t, migs)
	for i, m := range migs {
		require.Equal(t, i+1, m.Version, "versions must run 1, 2, 3, ... without gaps")
		require.NotEmpty(t, m.Description)
	}
	require.Equal(t, CurrentVersion, latest(migs))
	require.Nil(t, migs[0].run, "version 1 only creates tables")
	require.NotNil(t, migs[1].run, "version 2 builds the heads of lists")

	migs[0].Description = "changed"
	require.NotEqual(t, "changed", allMigrations()[0].Description, "Migrations must return a copy")
}

func TestTableStatuses(t *testing.T) {
	n := testNames(t)
	want := schema.Definitions(n, onDemand)
	live := liveAll(want)
	delete(live, n.IndexEntries)
	live[n.Entities].GlobalSecondaryIndexes[0].IndexStatus = types.IndexStatusCreating
	live[n.Relationships].TableStatus = types.TableStatusUpdating
	live[n.Relationships].GlobalSecondaryIndexes = append(live[n.Relationships].GlobalSecondaryIndexes,
		types.GlobalSecondaryIndexDescription{IndexName: aws.String("mine"), IndexStatus: types.IndexStatusActive})

	got := tableStatuses(want, live)
	require.Equal(t, []TableStatus{
		{Name: n.Entities, State: StateActive, BillingMode: types.BillingModePayPerRequest, Indexes: []IndexStatus{
			{Name: n.EntitiesByType, Kind: GlobalIndex, State: "CREATING"},
			{Name: n.EntitiesByTypeShard, Kind: GlobalIndex, State: StateActive},
			{Name: n.EntitiesInline[0], Kind: GlobalIndex, State: StateActive},
			{Name: n.EntitiesInline[1], Kind: GlobalIndex, State: StateActive},
		}},
		{Name: n.Relationships, State: "UPDATING", BillingMode: types.BillingModePayPerRequest, Indexes: []IndexStatus{
			{Name: n.ReverseRelationships, Kind: GlobalIndex, State: StateActive},
			{Name: n.IncomingShard, Kind: GlobalIndex, State: StateActive},
			{Name: n.RelationshipsByObject, Kind: LocalIndex, State: "UPDATING"},
			{Name: "mine", Kind: GlobalIndex, State: StateActive, Extra: true},
		}},
		{Name: n.IndexEntries, State: StateMissing, Indexes: []IndexStatus{
			{Name: n.IndexLookup, Kind: GlobalIndex, State: StateMissing},
		}},
	}, got)
}

func TestStrings(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{SeverityWarning.String(), "warning"},
		{SeverityError.String(), "error"},
		{Severity(0).String(), "Severity(0)"},
		{DriftMissingIndex.String(), "missing-index"},
		{DriftKind(99).String(), "DriftKind(99)"},
		{ActionCreateIndex.String(), "create-index"},
		{ActionEnableTimeToLive.String(), "enable-time-to-live"},
		{DriftTimeToLive.String(), "time-to-live"},
		{Action{Kind: ActionEnableTimeToLive, Table: "t"}.String(), "turn on time to live (attribute none) on table t"},
		{ActionKind(99).String(), "ActionKind(99)"},
		{Action{Kind: ActionDeleteTable, Table: "app_index_entries"}.String(), "delete table app_index_entries"},
		{Action{Kind: ActionRunMigration, Version: 2, Description: "backfill"}.String(), "run migration 2: backfill"},
		{Drift{Table: "t", Index: "i", Detail: "projection is ALL, want KEYS_ONLY"}.String(), "t index i: projection is ALL, want KEYS_ONLY"},
		{Drift{Table: "t", Detail: "table is DELETING"}.String(), "t: table is DELETING"},
		{formatKeySchema(keys("a", "b")), "[a HASH, b RANGE]"},
		{formatProjection(&types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"x", "y"}}), "INCLUDE [x, y]"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			require.Equal(t, tt.want, tt.got)
		})
	}
}
