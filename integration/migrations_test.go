package integration_test

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/migrations"
	"github.com/rynodb/rynodb/ryno"
)

// newMigrationsProvider returns a provider for a fresh prefix whose tables are deleted
// when the test ends.
func newMigrationsProvider(t *testing.T, api migrations.API, billing schema.Billing) *migrations.Provider {
	t.Helper()
	p, err := migrations.NewProvider(api, migrations.Options{
		TablePrefix:  dynamotest.NewPrefix(t),
		Billing:      billing,
		PollInterval: 50 * time.Millisecond,
	})
	require.NoError(t, err)
	deleteTablesAtEnd(t, p.Names())
	return p
}

func deleteTablesAtEnd(t *testing.T, names schema.Names) {
	t.Helper()
	api := dynamotest.API(t)
	t.Cleanup(func() {
		for _, name := range names.Tables() {
			_, _ = api.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		}
	})
}

// describeTable returns the table's description, or nil when it does not exist.
func describeTable(t *testing.T, name string) *types.TableDescription {
	t.Helper()
	out, err := dynamotest.API(t).DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	var rnf *types.ResourceNotFoundException
	if errors.As(err, &rnf) {
		return nil
	}
	require.NoError(t, err)
	return out.Table
}

// tablesWithPrefix lists the tables whose names start with prefix + "_".
func tablesWithPrefix(t *testing.T, prefix string) []string {
	t.Helper()
	var names []string
	p := dynamodb.NewListTablesPaginator(dynamotest.API(t), &dynamodb.ListTablesInput{})
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		require.NoError(t, err)
		for _, n := range out.TableNames {
			if strings.HasPrefix(n, prefix+"_") {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return names
}

// createTableWithout creates the table of def by hand, without its GSIs.
func createTableWithout(t *testing.T, def *dynamodb.CreateTableInput) {
	t.Helper()
	in := *def
	in.GlobalSecondaryIndexes = nil
	in.AttributeDefinitions = keyAttributes(def.AttributeDefinitions, append(lsiKeys(def), def.KeySchema)...)
	_, err := dynamotest.API(t).CreateTable(context.Background(), &in)
	require.NoError(t, err)
}

// keyAttributes returns the definitions of the attributes keys use: DynamoDB rejects
// definitions of attributes no key uses.
func keyAttributes(defs []types.AttributeDefinition, keys ...[]types.KeySchemaElement) []types.AttributeDefinition {
	var out []types.AttributeDefinition
	for _, d := range defs {
		for _, ks := range keys {
			if slices.ContainsFunc(ks, func(k types.KeySchemaElement) bool {
				return aws.ToString(k.AttributeName) == aws.ToString(d.AttributeName)
			}) {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

func lsiKeys(def *dynamodb.CreateTableInput) [][]types.KeySchemaElement {
	var out [][]types.KeySchemaElement
	for _, l := range def.LocalSecondaryIndexes {
		out = append(out, l.KeySchema)
	}
	return out
}

// wantKey is one key schema of DESIGN.md section 2, written out independently of the
// tables package.
type wantKey struct {
	partition, partitionType string
	sort, sortType           string
}

func requireKeys(t *testing.T, want wantKey, keys []types.KeySchemaElement, attrs []types.AttributeDefinition) {
	t.Helper()
	require.Equal(t, []types.KeySchemaElement{
		{AttributeName: aws.String(want.partition), KeyType: types.KeyTypeHash},
		{AttributeName: aws.String(want.sort), KeyType: types.KeyTypeRange},
	}, keys)
	typeOf := map[string]string{}
	for _, a := range attrs {
		typeOf[aws.ToString(a.AttributeName)] = string(a.AttributeType)
	}
	require.Equal(t, want.partitionType, typeOf[want.partition], "type of %s", want.partition)
	require.Equal(t, want.sortType, typeOf[want.sort], "type of %s", want.sort)
}

func TestMigrationsUp(t *testing.T) {
	ctx := context.Background()
	api := dynamotest.API(t)
	p := newMigrationsProvider(t, api, schema.Billing{})
	prefix := p.Names().Prefix

	res, err := p.Up(ctx)
	require.NoError(t, err)
	require.True(t, res.Changed())
	require.Equal(t, []migrations.ActionKind{
		migrations.ActionCreateTable, migrations.ActionCreateTable, migrations.ActionCreateTable, migrations.ActionEnableTimeToLive,
		migrations.ActionRunMigration, migrations.ActionRunMigration, migrations.ActionRecordVersion,
	}, actionKinds(res.Actions))
	require.Equal(t, 0, res.RecordedVersion)
	require.Equal(t, migrations.CurrentVersion, res.Version)
	require.Empty(t, res.Warnings)

	t.Run("creates exactly the tables of the design", func(t *testing.T) {
		require.Equal(t, []string{prefix + "_entities_master", prefix + "_index_entries", prefix + "_relationship_entries"},
			tablesWithPrefix(t, prefix))
	})

	tests := []struct {
		table  string
		key    wantKey
		gsis   map[string]wantKey
		lsi    string
		lsiKey wantKey
	}{
		{
			table: prefix + "_entities_master", key: wantKey{"_id", "S", "_scope_type_key", "S"},
			gsis: map[string]wantKey{
				prefix + "_entities_by_type":       {"_scope_type_key", "S", "_updated", "S"},
				prefix + "_entities_by_type_shard": {"_type_shard", "S", "_shard_updated", "S"},
				prefix + "_entities_inline_1":      {"_inline1_name", "S", "_inline1_key", "S"},
				prefix + "_entities_inline_2":      {"_inline2_name", "S", "_inline2_key", "S"},
			},
		},
		{
			table: prefix + "_relationship_entries", key: wantKey{"_subject_key", "S", "_predicate_key", "S"},
			gsis: map[string]wantKey{
				prefix + "_incoming_relationships": {"_object_key", "S", "_reverse_key", "S"},
				prefix + "_incoming_shard":         {"_object_shard", "S", "_reverse_key", "S"},
			},
			lsi: prefix + "_relationships_by_object", lsiKey: wantKey{"_subject_key", "S", "_predicate_object_key", "S"},
		},
		{
			table: prefix + "_index_entries", key: wantKey{"_subject_key", "S", "_unique_key", "S"},
			gsis: map[string]wantKey{prefix + "_index_lookup": {"_scope_index_name", "S", "_index_key", "S"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.table, func(t *testing.T) {
			d := describeTable(t, tt.table)
			require.NotNil(t, d)
			require.Equal(t, types.TableStatusActive, d.TableStatus)
			require.NotNil(t, d.BillingModeSummary)
			require.Equal(t, types.BillingModePayPerRequest, d.BillingModeSummary.BillingMode)
			requireKeys(t, tt.key, d.KeySchema, d.AttributeDefinitions)

			require.Len(t, d.GlobalSecondaryIndexes, len(tt.gsis))
			for _, g := range d.GlobalSecondaryIndexes {
				key, ok := tt.gsis[aws.ToString(g.IndexName)]
				require.True(t, ok, "GSI %s", aws.ToString(g.IndexName))
				require.Equal(t, types.IndexStatusActive, g.IndexStatus)
				require.Equal(t, types.ProjectionTypeAll, g.Projection.ProjectionType)
				requireKeys(t, key, g.KeySchema, d.AttributeDefinitions)
			}

			if tt.lsi == "" {
				require.Empty(t, d.LocalSecondaryIndexes)
				return
			}
			require.Len(t, d.LocalSecondaryIndexes, 1)
			l := d.LocalSecondaryIndexes[0]
			require.Equal(t, tt.lsi, aws.ToString(l.IndexName))
			require.Equal(t, types.ProjectionTypeKeysOnly, l.Projection.ProjectionType)
			requireKeys(t, tt.lsiKey, l.KeySchema, d.AttributeDefinitions)
		})
	}

	t.Run("records the version", func(t *testing.T) {
		out, err := api.GetItem(ctx, &dynamodb.GetItemInput{
			TableName: aws.String(p.Names().Entities),
			Key: map[string]types.AttributeValue{
				schema.AttrID:           &types.AttributeValueMemberS{Value: schema.VersionItemID},
				schema.AttrScopeTypeKey: &types.AttributeValueMemberS{Value: schema.VersionItemSortKey},
			},
			ConsistentRead: aws.Bool(true),
		})
		require.NoError(t, err)
		require.Equal(t, &types.AttributeValueMemberN{Value: strconv.Itoa(migrations.CurrentVersion)}, out.Item[schema.AttrSchemaVersion])
		applied, ok := out.Item[schema.AttrSchemaApplied].(*types.AttributeValueMemberS)
		require.True(t, ok)
		_, err = schema.ParseTime(applied.Value)
		require.NoError(t, err)
		_, hasUpdated := out.Item[schema.AttrUpdated]
		require.False(t, hasUpdated, "the record must stay out of the by-type index")

		scan, err := api.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(p.Names().Entities), IndexName: aws.String(p.Names().EntitiesByType)})
		require.NoError(t, err)
		require.Zero(t, scan.Count, "the by-type index must not list the version record")
	})

	t.Run("a second up does nothing", func(t *testing.T) {
		counter := &countingAPI{API: api}
		again, err := newProviderFor(t, counter, prefix, schema.Billing{}).Up(ctx)
		require.NoError(t, err)
		require.False(t, again.Changed())
		require.Empty(t, again.Actions)
		require.Equal(t, migrations.CurrentVersion, again.RecordedVersion)
		require.Equal(t, migrations.CurrentVersion, again.Version)
		require.Zero(t, counter.writes.Load(), "a second up must not write")
	})

	t.Run("status and plan are clean", func(t *testing.T) {
		st, err := p.Status(ctx)
		require.NoError(t, err)
		require.True(t, st.UpToDate(), "%+v", st)
		require.Empty(t, st.Drift)
		require.Empty(t, st.Pending)
		require.Equal(t, migrations.CurrentVersion, st.RecordedVersion)
		require.Len(t, st.Tables, 3)
		for _, ts := range st.Tables {
			require.Equal(t, migrations.StateActive, ts.State, ts.Name)
			require.Equal(t, types.BillingModePayPerRequest, ts.BillingMode)
			for _, ix := range ts.Indexes {
				require.Equal(t, migrations.StateActive, ix.State, ix.Name)
				require.False(t, ix.Extra)
			}
		}

		plan, err := p.Plan(ctx)
		require.NoError(t, err)
		require.True(t, plan.Empty())
		require.Empty(t, plan.Drift)
		require.Equal(t, migrations.CurrentVersion, plan.RecordedVersion)
	})
}

func TestMigrationsUpAddsMissingGSI(t *testing.T) {
	ctx := context.Background()
	p := newMigrationsProvider(t, dynamotest.API(t), schema.Billing{})
	n := p.Names()
	defs := schema.Definitions(n, schema.Billing{})
	createTableWithout(t, defs[0])
	createTableWithout(t, defs[1]) // keeps its LSI, which can only be created with the table

	plan, err := p.Plan(ctx)
	require.NoError(t, err)
	require.Empty(t, plan.Drift)
	require.Equal(t, []string{
		"create GSI " + n.EntitiesByType + " on table " + n.Entities,
		"create GSI " + n.EntitiesByTypeShard + " on table " + n.Entities,
		"create GSI " + n.EntitiesInline[0] + " on table " + n.Entities,
		"create GSI " + n.EntitiesInline[1] + " on table " + n.Entities,
		"create GSI " + n.ReverseRelationships + " on table " + n.Relationships,
		"create GSI " + n.IncomingShard + " on table " + n.Relationships,
		"create table " + n.IndexEntries + " (GSI " + n.IndexLookup + ")",
		"turn on time to live (attribute _expires) on table " + n.Entities,
		"run migration 2: build the heads and markers of relationship lists written before them",
		"run migration 3: give every relationship entry its _reverse_key, the sort key of the reverse index replacing reverse_relationships",
		"record schema version 4",
	}, actionStrings(plan.Actions))

	res, err := p.Up(ctx)
	require.NoError(t, err)
	require.Equal(t, actionStrings(plan.Actions), actionStrings(res.Actions))

	for _, c := range []struct {
		table string
		gsis  []string
	}{
		{n.Entities, []string{n.EntitiesByType, n.EntitiesByTypeShard, n.EntitiesInline[0], n.EntitiesInline[1]}},
		{n.Relationships, []string{n.ReverseRelationships, n.IncomingShard}},
	} {
		d := describeTable(t, c.table)
		var names []string
		for _, g := range d.GlobalSecondaryIndexes {
			names = append(names, aws.ToString(g.IndexName))
			require.Equal(t, types.IndexStatusActive, g.IndexStatus)
			require.Equal(t, types.ProjectionTypeAll, g.Projection.ProjectionType)
		}
		require.ElementsMatch(t, c.gsis, names)
	}
	d := describeTable(t, n.Relationships)
	for _, g := range d.GlobalSecondaryIndexes {
		if aws.ToString(g.IndexName) == n.ReverseRelationships {
			requireKeys(t, wantKey{"_object_key", "S", "_reverse_key", "S"}, g.KeySchema, d.AttributeDefinitions)
		}
	}

	st, err := p.Status(ctx)
	require.NoError(t, err)
	require.True(t, st.UpToDate(), "%+v", st)
}

func TestMigrationsKeySchemaDrift(t *testing.T) {
	ctx := context.Background()
	api := dynamotest.API(t)
	p := newMigrationsProvider(t, api, schema.Billing{})
	n := p.Names()
	_, err := api.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String(n.Entities),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("_id"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("_id"), KeyType: types.KeyTypeHash}},
	})
	require.NoError(t, err)

	t.Run("status reports it", func(t *testing.T) {
		st, err := p.Status(ctx)
		require.NoError(t, err)
		require.False(t, st.UpToDate())
		errs := st.Errors()
		require.Len(t, errs, 1)
		require.Equal(t, migrations.DriftKeySchema, errs[0].Kind)
		require.Equal(t, n.Entities, errs[0].Table)
		require.Contains(t, errs[0].Detail, "_scope_type_key RANGE")
		require.Zero(t, st.RecordedVersion, "no record can be read from a table with other keys")
	})

	t.Run("up refuses and changes nothing", func(t *testing.T) {
		counter := &countingAPI{API: api}
		res, err := newProviderFor(t, counter, n.Prefix, schema.Billing{}).Up(ctx)
		require.Nil(t, res)
		require.ErrorIs(t, err, migrations.ErrDrift)
		var de *migrations.DriftError
		require.ErrorAs(t, err, &de)
		require.Len(t, de.Drift, 1)
		require.Equal(t, migrations.DriftKeySchema, de.Drift[0].Kind)
		require.Zero(t, counter.writes.Load())
		require.Equal(t, []string{n.Entities}, tablesWithPrefix(t, n.Prefix))
		require.Empty(t, describeTable(t, n.Entities).GlobalSecondaryIndexes)
	})
}

func TestMigrationsNewerVersionIsDrift(t *testing.T) {
	ctx := context.Background()
	api := dynamotest.API(t)
	p := newMigrationsProvider(t, api, schema.Billing{})
	_, err := p.Up(ctx)
	require.NoError(t, err)
	_, err = api.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(p.Names().Entities),
		Key: map[string]types.AttributeValue{
			schema.AttrID:           &types.AttributeValueMemberS{Value: schema.VersionItemID},
			schema.AttrScopeTypeKey: &types.AttributeValueMemberS{Value: schema.VersionItemSortKey},
		},
		// As a release of version 7 that keeps no older program working records it.
		UpdateExpression:          aws.String("SET #v = :v, #c = :v"),
		ExpressionAttributeNames:  map[string]string{"#v": schema.AttrSchemaVersion, "#c": schema.AttrSchemaCompatible},
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberN{Value: "7"}},
	})
	require.NoError(t, err)

	st, err := p.Status(ctx)
	require.NoError(t, err)
	require.Equal(t, 7, st.RecordedVersion)
	require.Len(t, st.Errors(), 1)
	require.Equal(t, migrations.DriftVersion, st.Errors()[0].Kind)

	_, err = p.Up(ctx)
	require.ErrorIs(t, err, migrations.ErrDrift)
}

func TestMigrationsProvisionedBilling(t *testing.T) {
	ctx := context.Background()
	api := dynamotest.API(t)
	billing := schema.Billing{Mode: types.BillingModeProvisioned, ReadCapacity: 3, WriteCapacity: 4}
	p := newMigrationsProvider(t, api, billing)
	_, err := p.Up(ctx)
	require.NoError(t, err)

	for _, name := range p.Names().Tables() {
		t.Run(name, func(t *testing.T) {
			d := describeTable(t, name)
			if d.BillingModeSummary != nil {
				require.Equal(t, types.BillingModeProvisioned, d.BillingModeSummary.BillingMode)
			}
			require.Equal(t, int64(3), aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits))
			require.Equal(t, int64(4), aws.ToInt64(d.ProvisionedThroughput.WriteCapacityUnits))
			require.NotEmpty(t, d.GlobalSecondaryIndexes)
			for _, g := range d.GlobalSecondaryIndexes {
				require.Equal(t, int64(3), aws.ToInt64(g.ProvisionedThroughput.ReadCapacityUnits))
				require.Equal(t, int64(4), aws.ToInt64(g.ProvisionedThroughput.WriteCapacityUnits))
			}
		})
	}

	t.Run("status is clean", func(t *testing.T) {
		st, err := p.Status(ctx)
		require.NoError(t, err)
		require.True(t, st.UpToDate(), "%+v", st.Drift)
		for _, ts := range st.Tables {
			require.Equal(t, types.BillingModeProvisioned, ts.BillingMode)
		}
	})

	t.Run("on-demand wanted is a warning", func(t *testing.T) {
		st, err := newProviderFor(t, api, p.Names().Prefix, schema.Billing{}).Status(ctx)
		require.NoError(t, err)
		require.Empty(t, st.Errors())
		require.Len(t, st.Warnings(), 3)
		for _, w := range st.Warnings() {
			require.Equal(t, migrations.DriftBilling, w.Kind)
		}
	})

	t.Run("a GSI added to the provisioned table gets capacity", func(t *testing.T) {
		_, err := api.UpdateTable(ctx, &dynamodb.UpdateTableInput{
			TableName: aws.String(p.Names().IndexEntries),
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{
				{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String(p.Names().IndexLookup)}},
			},
		})
		require.NoError(t, err)
		require.Eventually(t, func() bool {
			return len(describeTable(t, p.Names().IndexEntries).GlobalSecondaryIndexes) == 0
		}, 30*time.Second, 100*time.Millisecond, "the GSI was not deleted")

		res, err := p.Up(ctx)
		require.NoError(t, err)
		require.Equal(t, []string{"create GSI " + p.Names().IndexLookup + " on table " + p.Names().IndexEntries},
			actionStrings(res.Actions))
		g := describeTable(t, p.Names().IndexEntries).GlobalSecondaryIndexes
		require.Len(t, g, 1)
		require.Equal(t, int64(3), aws.ToInt64(g[0].ProvisionedThroughput.ReadCapacityUnits))
	})
}

func TestMigrationsDown(t *testing.T) {
	ctx := context.Background()
	api := dynamotest.API(t)
	p := newMigrationsProvider(t, api, schema.Billing{})
	_, err := p.Up(ctx)
	require.NoError(t, err)

	t.Run("without confirmation sends nothing", func(t *testing.T) {
		counter := &countingAPI{API: api}
		res, err := newProviderFor(t, counter, p.Names().Prefix, schema.Billing{}).Down(ctx, migrations.DownOptions{})
		require.ErrorIs(t, err, migrations.ErrNotConfirmed)
		require.Nil(t, res)
		require.Zero(t, counter.requests.Load())
		require.Len(t, tablesWithPrefix(t, p.Names().Prefix), 3)
	})

	t.Run("with confirmation deletes the tables", func(t *testing.T) {
		res, err := p.Down(ctx, migrations.DownOptions{ConfirmDataLoss: true})
		require.NoError(t, err)
		require.Equal(t, []string{
			"delete table " + p.Names().Entities,
			"delete table " + p.Names().Relationships,
			"delete table " + p.Names().IndexEntries,
		}, actionStrings(res.Actions))
		require.Empty(t, tablesWithPrefix(t, p.Names().Prefix))
	})

	t.Run("twice is fine", func(t *testing.T) {
		res, err := p.Down(ctx, migrations.DownOptions{ConfirmDataLoss: true})
		require.NoError(t, err)
		require.False(t, res.Changed())
	})

	t.Run("status after down", func(t *testing.T) {
		st, err := p.Status(ctx)
		require.NoError(t, err)
		require.Zero(t, st.RecordedVersion)
		require.Len(t, st.Pending, 7)
		for _, ts := range st.Tables {
			require.Equal(t, migrations.StateMissing, ts.State)
		}
	})
}

// seedLegacyEntries writes entries directly to the table, as a version of the store
// before list heads wrote them: no head, no markers.
func seedLegacyEntries(t *testing.T, raw *dynamodb.Client, names schema.Names, entries []relationships.Entry) {
	t.Helper()
	var reqs []types.WriteRequest
	for _, e := range entries {
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: e.Item()}})
	}
	for len(reqs) > 0 {
		n := min(25, len(reqs))
		out, err := raw.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{
			RequestItems: map[string][]types.WriteRequest{names.Relationships: reqs[:n]}})
		require.NoError(t, err)
		require.Empty(t, out.UnprocessedItems)
		reqs = reqs[n:]
	}
}

func TestMigrationsUpBuildsListHeads(t *testing.T) {
	ctx := context.Background()
	s := newStoreWith(t, nil)
	recordVersion(t, s.raw, s.Names(), 1) // a store migrated before list heads
	alice, bob, carol := pk("alice"), pk("bob"), pk("carol")
	createSubjects(t, s.Client, alice, bob)
	rel := func(subject ryno.Key, predicate string, index int, object ryno.Key) relationships.Entry {
		return relationships.Entry{Subject: subject, Predicate: predicate, Index: index, Object: object}
	}
	add := func(t *testing.T, subject ryno.Key, predicate string, objects ...ryno.Key) []ryno.Key {
		t.Helper()
		added, err := s.AddRelationships(ctx, subject, predicate, objects)
		require.NoError(t, err)
		return added
	}

	// alice's follows: bob twice, gaps, and large edge attributes, so that her items
	// span several Scan pages.
	var legacy []relationships.Entry
	for i, o := range pks("f", 30) {
		e := rel(alice, "follows", 3*i+1, o)
		e.Attributes = map[string]types.AttributeValue{"note": str(strings.Repeat("n", 60_000))}
		legacy = append(legacy, e)
	}
	legacy = append(legacy,
		rel(alice, "follows", 0, bob), rel(alice, "follows", 95, bob),
		rel(alice, "likes", 4, carol),
		rel(bob, "follows", 2, alice),
		rel(carol, "follows", 0, alice)) // carol's entity does not exist: her list is built all the same
	seedLegacyEntries(t, s.raw, s.Names(), legacy)
	// A list written with heads is left as it is.
	require.Equal(t, []ryno.Key{carol}, add(t, bob, "knows", carol))
	lists := []struct {
		subject   ryno.Key
		predicate string
	}{{alice, "follows"}, {alice, "likes"}, {bob, "follows"}, {bob, "knows"}, {carol, "follows"}}

	counter := &countingAPI{API: s.raw}
	res, err := newProviderFor(t, counter, s.Names().Prefix, schema.Billing{}).Up(ctx)
	require.NoError(t, err)
	require.Equal(t, []migrations.ActionKind{migrations.ActionRunMigration, migrations.ActionRunMigration, migrations.ActionRecordVersion}, actionKinds(res.Actions))
	require.Equal(t, migrations.CurrentVersion, res.Version)
	require.Greater(t, counter.scans.Load(), int64(1), "alice's items span several Scan pages")
	for _, l := range lists {
		requireListExact(t, s, l.subject, l.predicate)
	}
	head, _, _ := listItems(t, s, alice, "follows")
	require.Equal(t, &types.AttributeValueMemberN{Value: "96"}, head[schema.AttrNext])
	require.Equal(t, &types.AttributeValueMemberN{Value: "32"}, head[schema.AttrCount])

	t.Run("a second up does nothing", func(t *testing.T) {
		again := &countingAPI{API: s.raw}
		res, err := newProviderFor(t, again, s.Names().Prefix, schema.Billing{}).Up(ctx)
		require.NoError(t, err)
		require.False(t, res.Changed())
		require.Zero(t, again.writes.Load())
	})

	t.Run("adding an object of a legacy list adds nothing", func(t *testing.T) {
		require.Empty(t, add(t, alice, "follows", bob, pk("f0007")))
		requireListExact(t, s, alice, "follows")
	})

	t.Run("a new object goes after the highest legacy position", func(t *testing.T) {
		erin := pk("erin")
		require.Equal(t, []ryno.Key{erin}, add(t, alice, "follows", erin))
		requireListExact(t, s, alice, "follows")
		_, _, entries := listItems(t, s, alice, "follows")
		last, err := relationships.FromItem(entries[len(entries)-1])
		require.NoError(t, err)
		require.Equal(t, erin, last.Object)
		require.Equal(t, 96, last.Index)

		require.Equal(t, []ryno.Key{erin}, add(t, bob, "follows", erin))
		requireListExact(t, s, bob, "follows")
		require.Equal(t, []ryno.Key{alice, erin}, objectsOf(t, s.Client, bob, "follows", 10))
	})
}

// recordVersion overwrites the schema version recorded in the store with v.
func recordVersion(t *testing.T, raw *dynamodb.Client, names schema.Names, v int) {
	t.Helper()
	_, err := raw.PutItem(context.Background(), &dynamodb.PutItemInput{
		TableName: aws.String(names.Entities),
		Item: map[string]types.AttributeValue{
			schema.AttrID:            str(schema.VersionItemID),
			schema.AttrScopeTypeKey:  str(schema.VersionItemSortKey),
			schema.AttrSchemaVersion: &types.AttributeValueMemberN{Value: strconv.Itoa(v)},
		},
	})
	require.NoError(t, err)
}

// newProviderFor returns a provider for an existing prefix.
func newProviderFor(t *testing.T, api migrations.API, prefix string, billing schema.Billing) *migrations.Provider {
	t.Helper()
	p, err := migrations.NewProvider(api, migrations.Options{TablePrefix: prefix, Billing: billing, PollInterval: 50 * time.Millisecond})
	require.NoError(t, err)
	return p
}

func actionKinds(as []migrations.Action) []migrations.ActionKind {
	var out []migrations.ActionKind
	for _, a := range as {
		out = append(out, a.Kind)
	}
	return out
}

func actionStrings(as []migrations.Action) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.String())
	}
	return out
}

// countingAPI counts the requests sent through it, the writes among them, and the
// Scan pages read.
type countingAPI struct {
	migrations.API
	requests, writes, scans atomic.Int64
}

func (c *countingAPI) read()  { c.requests.Add(1) }
func (c *countingAPI) write() { c.requests.Add(1); c.writes.Add(1) }

func (c *countingAPI) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	c.write()
	return c.API.CreateTable(ctx, in, opts...)
}

func (c *countingAPI) UpdateTable(ctx context.Context, in *dynamodb.UpdateTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error) {
	c.write()
	return c.API.UpdateTable(ctx, in, opts...)
}

func (c *countingAPI) DeleteTable(ctx context.Context, in *dynamodb.DeleteTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error) {
	c.write()
	return c.API.DeleteTable(ctx, in, opts...)
}

func (c *countingAPI) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.write()
	return c.API.PutItem(ctx, in, opts...)
}

func (c *countingAPI) UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	c.write()
	return c.API.UpdateTimeToLive(ctx, in, opts...)
}

func (c *countingAPI) DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	c.read()
	return c.API.DescribeTimeToLive(ctx, in, opts...)
}

func (c *countingAPI) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	c.read()
	return c.API.DescribeTable(ctx, in, opts...)
}

func (c *countingAPI) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	c.write()
	return c.API.BatchWriteItem(ctx, in, opts...)
}

func (c *countingAPI) Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	c.read()
	c.scans.Add(1)
	return c.API.Scan(ctx, in, opts...)
}

func (c *countingAPI) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	c.write()
	return c.API.UpdateItem(ctx, in, opts...)
}

func (c *countingAPI) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.read()
	return c.API.GetItem(ctx, in, opts...)
}

// createVersion2Tables creates the tables of names as schema version 2 defined them
// (the reverse index keyed by _object_key and _index) and records version 2.
func createVersion2Tables(t *testing.T, raw *dynamodb.Client, names schema.Names) {
	t.Helper()
	defs := schema.Definitions(names, schema.Billing{})
	for _, def := range defs {
		in := *def
		if aws.ToString(def.TableName) == names.Relationships {
			old := in.GlobalSecondaryIndexes[0]
			old.IndexName = aws.String(names.RetiredIndexes()[names.Relationships][0])
			old.KeySchema = []types.KeySchemaElement{
				{AttributeName: aws.String(schema.AttrObjectKey), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String(schema.AttrIndex), KeyType: types.KeyTypeRange},
			}
			in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{old}
			in.AttributeDefinitions = append(keyAttributes(def.AttributeDefinitions, append(lsiKeys(def), def.KeySchema)...),
				types.AttributeDefinition{AttributeName: aws.String(schema.AttrObjectKey), AttributeType: types.ScalarAttributeTypeS},
				types.AttributeDefinition{AttributeName: aws.String(schema.AttrIndex), AttributeType: types.ScalarAttributeTypeN})
		}
		_, err := raw.CreateTable(context.Background(), &in)
		require.NoError(t, err)
	}
	for _, name := range names.Tables() {
		require.NoError(t, dynamodb.NewTableExistsWaiter(raw).Wait(context.Background(),
			&dynamodb.DescribeTableInput{TableName: aws.String(name)}, time.Minute))
	}
	recordVersion(t, raw, names, 2)
}

// stripReverseKeys removes the _reverse_key of the entries of subjects (of every
// entry when there are none): the entries become those a writer of schema version 2
// wrote.
func stripReverseKeys(t *testing.T, raw *dynamodb.Client, names schema.Names, subjects ...ryno.Key) {
	t.Helper()
	out, err := raw.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(names.Relationships), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	require.Empty(t, out.LastEvaluatedKey)
	for _, item := range out.Items {
		if _, ok := item[schema.AttrReverseKey]; !ok {
			continue
		}
		if len(subjects) > 0 && !slices.ContainsFunc(subjects, func(k ryno.Key) bool {
			return item[schema.AttrSubjectKey].(*types.AttributeValueMemberS).Value == k.String()
		}) {
			continue
		}
		_, err := raw.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
			TableName:                aws.String(names.Relationships),
			Key:                      map[string]types.AttributeValue{schema.AttrSubjectKey: item[schema.AttrSubjectKey], schema.AttrPredicateKey: item[schema.AttrPredicateKey]},
			UpdateExpression:         aws.String("REMOVE #rk"),
			ExpressionAttributeNames: map[string]string{"#rk": schema.AttrReverseKey},
		})
		require.NoError(t, err)
	}
}

func TestMigrationsUpFromVersion2ReplacesTheReverseIndex(t *testing.T) {
	ctx := context.Background()
	raw := dynamotest.API(t)
	p := newMigrationsProvider(t, raw, schema.Billing{})
	n := p.Names()
	createVersion2Tables(t, raw, n)
	db, err := ryno.New(raw, ryno.Options{TablePrefix: n.Prefix})
	require.NoError(t, err)
	star, late := pk("star"), pk("late")
	subjects := pks("s", 30)
	createSubjects(t, db, append(slices.Clone(subjects), star, late, pk("other"))...)
	for i, subject := range slices.Backward(subjects) {
		for _, predicate := range []string{"likes", "follows"} {
			objects := []ryno.Key{star}
			if i%3 > 0 {
				objects = []ryno.Key{pk("other"), star} // star at position 1
			}
			_, err := db.AddRelationships(ctx, subject, predicate, objects)
			require.NoError(t, err)
		}
	}
	stripReverseKeys(t, raw, n)

	res, err := p.Up(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{
		"create GSI " + n.ReverseRelationships + " on table " + n.Relationships,
		"create GSI " + n.IncomingShard + " on table " + n.Relationships,
		"turn on time to live (attribute _expires) on table " + n.Entities,
		"run migration 3: give every relationship entry its _reverse_key, the sort key of the reverse index replacing reverse_relationships",
		"record schema version 4",
		"delete GSI " + n.RetiredIndexes()[n.Relationships][0] + " of table " + n.Relationships + ", replaced",
	}, actionStrings(res.Actions))
	d := describeTable(t, n.Relationships)
	require.Len(t, d.GlobalSecondaryIndexes, 2, "the retired index is gone")
	require.ElementsMatch(t, []string{n.ReverseRelationships, n.IncomingShard},
		[]string{aws.ToString(d.GlobalSecondaryIndexes[0].IndexName), aws.ToString(d.GlobalSecondaryIndexes[1].IndexName)})
	st, err := p.Status(ctx)
	require.NoError(t, err)
	require.True(t, st.UpToDate(), "%+v", st)

	reverse := func(t *testing.T) []ryno.Relationship {
		return collect(t, db.AllReverseRelationships(ctx, star, "", ryno.PageOptions{Limit: 7}))
	}
	got := reverse(t)
	require.Len(t, got, 2*len(subjects))
	require.True(t, slices.IsSortedFunc(got, func(a, b ryno.Relationship) int {
		return cmp.Or(strings.Compare(a.Predicate, b.Predicate), strings.Compare(a.Subject.ID, b.Subject.ID))
	}), "by predicate, then subject")
	done, err := db.Check(ctx, ryno.CheckOptions{})
	require.NoError(t, err)
	require.Zero(t, done.Traces+done.Orphans, "%+v", done)

	t.Run("an entry written after by a writer of version 2 is found and repaired by check", func(t *testing.T) {
		_, err := db.AddRelationships(ctx, late, "follows", []ryno.Key{star})
		require.NoError(t, err)
		stripReverseKeys(t, raw, n, late)
		require.Len(t, reverse(t), 2*len(subjects), "the reverse index does not hold it")

		var traces []ryno.Trace
		_, err = db.Check(ctx, ryno.CheckOptions{OnTrace: func(tr ryno.Trace) { traces = append(traces, tr) }})
		require.NoError(t, err)
		require.Len(t, traces, 1)
		require.Equal(t, ryno.TraceUnindexed, traces[0].Kind)
		require.Equal(t, late, traces[0].Key)
		require.Equal(t, "follows", traces[0].Predicate)

		done, err := db.Check(ctx, ryno.CheckOptions{Repair: true})
		require.NoError(t, err)
		require.Equal(t, 1, done.Finished)
		require.Len(t, reverse(t), 2*len(subjects)+1)
		done, err = db.Check(ctx, ryno.CheckOptions{})
		require.NoError(t, err)
		require.Zero(t, done.Traces)
	})
}

// TestMigrationsUpFromVersion3AddsTheInlineIndexes upgrades a store of version 3,
// whose entities table has no inline GSI: Up creates both, records version 4, and
// an inline index works at once.
func TestMigrationsUpFromVersion3AddsTheInlineIndexes(t *testing.T) {
	ctx := context.Background()
	raw := dynamotest.API(t)
	p := newMigrationsProvider(t, raw, schema.Billing{})
	n := p.Names()
	_, err := p.Up(ctx)
	require.NoError(t, err)
	for _, gsi := range n.EntitiesInline {
		deleteGSI(t, raw, n.Entities, gsi)
	}
	recordVersion(t, raw, n, 3)
	db, err := ryno.New(raw, ryno.Options{TablePrefix: n.Prefix, Indexes: issueIndexes(true)})
	require.NoError(t, err)
	_, err = db.Create(ctx, issue("before", "ACME", "open", 2, 1))
	require.NoError(t, err, "a write needs no GSI")
	require.Error(t, db.CheckSchema(ctx), "the missing GSIs are reported")

	res, err := p.Up(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{
		"create GSI " + n.EntitiesInline[0] + " on table " + n.Entities,
		"create GSI " + n.EntitiesInline[1] + " on table " + n.Entities,
		"record schema version 4",
	}, actionStrings(res.Actions))
	st, err := p.Status(ctx)
	require.NoError(t, err)
	require.True(t, st.UpToDate(), "%+v", st)
	require.NoError(t, db.CheckSchema(ctx))

	_, err = db.Create(ctx, issue("after", "ACME", "open", 3, 2))
	require.NoError(t, err)
	var ids []string
	for e, err := range db.AllInIndex(ctx, ryno.ScopedIndex{Scope: "acme", Index: "by-priority"}, indexing.All(), ryno.PageOptions{}) {
		require.NoError(t, err)
		ids = append(ids, e.ID)
	}
	require.Equal(t, []string{"before", "after"}, ids, "the new GSI holds the entity written before it")
}
