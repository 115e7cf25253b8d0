package integration_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/migrations"
	"github.com/rynodb/rynodb/ryno"
)

func TestCheckSchemaOfMigratedTables(t *testing.T) {
	s := newStoreWith(t, nil)
	require.NoError(t, s.CheckSchema(ctx))
	got := requests(s.counter)
	require.Equal(t, map[string]int{"DescribeTable": 3, "GetItem": 1}, got)
}

// TestCheckSchemaOfMissingTables points a client at a prefix with no tables, as a
// mistyped TablePrefix does.
func TestCheckSchemaOfMissingTables(t *testing.T) {
	raw := dynamotest.API(t)
	prefix := dynamotest.NewPrefix(t)
	db, err := ryno.New(raw, ryno.Options{TablePrefix: prefix})
	require.NoError(t, err)
	names := db.Names()

	err = db.CheckSchema(ctx)
	require.ErrorIs(t, err, ryno.ErrTableNotFound)
	require.NotErrorIs(t, err, ryno.ErrSchemaMismatch)
	var se *ryno.SchemaError
	require.ErrorAs(t, err, &se)
	require.ElementsMatch(t, names.Tables(), se.Missing)
	require.Empty(t, se.Pending)
	require.Contains(t, err.Error(), names.Entities)
}

// TestMissingTableNamedByEveryCall checks that a request to a missing table fails
// with ErrTableNotFound naming it, also when the request spans several tables and
// DynamoDB does not say which one is missing.
func TestMissingTableNamedByEveryCall(t *testing.T) {
	s := newStoreWith(t, nil)
	ada, err := s.Create(ctx, user("ada", "ada@example.com"))
	require.NoError(t, err)
	bob, err := s.Create(ctx, user("bob", "bob@example.com"))
	require.NoError(t, err)
	names := s.Names()
	_, err = s.raw.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(names.Relationships)})
	require.NoError(t, err)

	calls := map[string]func() error{
		"relationships": func() error {
			_, err := s.Relationships(ctx, ada.Key, "follows", ryno.PageOptions{})
			return err
		},
		"add (a transaction over two tables)": func() error {
			return changed(s.AddRelationships(ctx, ada.Key, "follows", []ryno.Key{bob.Key}))
		},
		"transaction": func() error {
			_, err := s.Transact(ctx, ryno.TxAddRelationships(ada.Key, "follows", []ryno.Key{bob.Key}))
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			err := call()
			require.ErrorIs(t, err, ryno.ErrTableNotFound)
			var tnf *ryno.TableNotFoundError
			require.ErrorAs(t, err, &tnf)
			require.Equal(t, names.Relationships, tnf.Table)
			var rnf *types.ResourceNotFoundException
			require.ErrorAs(t, err, &rnf, "DynamoDB's error stays reachable")
		})
	}

	_, err = s.Get(ctx, ada.Key)
	require.NoError(t, err, "the entities table still serves")
	err = s.CheckSchema(ctx)
	require.ErrorIs(t, err, ryno.ErrTableNotFound)
	var se *ryno.SchemaError
	require.ErrorAs(t, err, &se)
	require.Equal(t, []string{names.Relationships}, se.Missing)
}

// TestCheckSchemaOfDriftedIndex replaces a GSI with one that projects only keys,
// and removes another: the store would read incomplete items or fail its queries.
func TestCheckSchemaOfDriftedIndex(t *testing.T) {
	s := newStoreWith(t, nil)
	names := s.Names()
	deleteGSI(t, s.raw, names.Entities, names.EntitiesByType)
	deleteGSI(t, s.raw, names.IndexEntries, names.IndexLookup)
	def := schema.Definitions(names, schema.Billing{})[0]
	gsi := def.GlobalSecondaryIndexes[0]
	gsi.Projection = &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}
	_, err := s.raw.UpdateTable(ctx, &dynamodb.UpdateTableInput{
		TableName:            aws.String(names.Entities),
		AttributeDefinitions: def.AttributeDefinitions,
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: gsi.IndexName, KeySchema: gsi.KeySchema, Projection: gsi.Projection,
		}}},
	})
	require.NoError(t, err)
	waitActive(t, s.raw, names.Entities)

	err = s.CheckSchema(ctx)
	require.ErrorIs(t, err, ryno.ErrSchemaMismatch)
	require.NotErrorIs(t, err, ryno.ErrTableNotFound)
	var se *ryno.SchemaError
	require.ErrorAs(t, err, &se)
	require.Len(t, se.Drift, 1)
	require.Equal(t, migrations.DriftProjection, se.Drift[0].Kind)
	require.Equal(t, names.EntitiesByType, se.Drift[0].Index)
	require.Len(t, se.Pending, 1)
	require.Equal(t, migrations.ActionCreateIndex, se.Pending[0].Kind)
	require.Equal(t, names.IndexLookup, se.Pending[0].Index)
}

func deleteGSI(t *testing.T, api *dynamodb.Client, table, index string) {
	t.Helper()
	_, err := api.UpdateTable(ctx, &dynamodb.UpdateTableInput{
		TableName: aws.String(table),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{
			IndexName: aws.String(index),
		}}},
	})
	require.NoError(t, err)
	waitActive(t, api, table)
}

// waitActive waits until the table and its GSIs are ACTIVE and no GSI is being
// deleted.
func waitActive(t *testing.T, api *dynamodb.Client, table string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		out, err := api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		require.NoError(t, err)
		if active(out.Table) {
			return
		}
		select {
		case <-ctx.Done():
			require.NoError(t, errors.Join(ctx.Err(), errors.New(table+" did not become ACTIVE")))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func active(d *types.TableDescription) bool {
	if d.TableStatus != types.TableStatusActive {
		return false
	}
	for _, g := range d.GlobalSecondaryIndexes {
		if g.IndexStatus != types.IndexStatusActive {
			return false
		}
	}
	return true
}

// TestCheckSchemaOfUnmigratedData records an older schema version: the tables are
// right, but their data awaits a migration that `ryno migrate up` runs.
func TestCheckSchemaOfUnmigratedData(t *testing.T) {
	s := newStoreWith(t, nil)
	recordVersion(t, s.raw, s.Names(), 1)
	err := s.CheckSchema(ctx)
	require.ErrorIs(t, err, ryno.ErrSchemaMismatch)
	var se *ryno.SchemaError
	require.ErrorAs(t, err, &se)
	require.Empty(t, se.Missing)
	require.Empty(t, se.Drift)
	require.Equal(t, []migrations.ActionKind{migrations.ActionRunMigration, migrations.ActionRunMigration, migrations.ActionRecordVersion}, actionKinds(se.Pending))
}

// TestCheckSchemaOfANewerCompatibleVersion records a schema version newer than this
// release knows, as a newer release's `ryno migrate up` does during a rolling
// deploy: a record that keeps this release's programs working passes CheckSchema,
// and migrate up still refuses it; one that does not fails CheckSchema.
func TestCheckSchemaOfANewerCompatibleVersion(t *testing.T) {
	s := newStoreWith(t, nil)
	record := func(v, compatible int) {
		_, err := s.raw.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.Names().Entities), Item: map[string]types.AttributeValue{
			schema.AttrID:               str(schema.VersionItemID),
			schema.AttrScopeTypeKey:     str(schema.VersionItemSortKey),
			schema.AttrSchemaVersion:    &types.AttributeValueMemberN{Value: fmt.Sprint(v)},
			schema.AttrSchemaCompatible: &types.AttributeValueMemberN{Value: fmt.Sprint(compatible)},
		}})
		require.NoError(t, err)
	}
	next := migrations.CurrentVersion + 1

	record(next, migrations.CurrentVersion)
	require.NoError(t, s.CheckSchema(ctx), "a newer version that keeps this one working")
	st, err := migrations.Check(ctx, s.raw, migrations.Options{TablePrefix: s.Names().Prefix})
	require.NoError(t, err)
	require.Len(t, st.Warnings(), 1, "status says the store is newer")
	_, err = newProviderFor(t, s.raw, s.Names().Prefix, schema.Billing{}).Up(ctx)
	require.ErrorIs(t, err, migrations.ErrDrift, "this release does not migrate a newer store")
	isolateAWS(t)
	out, _, code := migrate(t, "plan", s.Names().Prefix)
	require.Equal(t, 1, code, "plan says what up does: refuse")
	require.Contains(t, out, fmt.Sprintf("up would refuse to run: schema version %d is newer than %d", next, migrations.CurrentVersion))
	out, _, code = migrate(t, "status", s.Names().Prefix)
	require.Equal(t, 0, code, "the store works for this release")
	require.Contains(t, out, "it keeps this release working")
	require.NotContains(t, out, "up to date")

	record(next, next)
	require.ErrorIs(t, s.CheckSchema(ctx), ryno.ErrSchemaMismatch, "a newer version that does not")
}
