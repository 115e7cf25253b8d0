package integration_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/migrations"
)

// TestMigrationsTimeToLive checks against DynamoDB Local that up turns on the
// entities table's time to live, on _expires, and no other table's; that it turns it
// on again in a store where it is off, without being asked to update existing
// tables; and that it leaves alone one on another attribute, with a warning.
func TestMigrationsTimeToLive(t *testing.T) {
	ctx := context.Background()
	api := dynamotest.API(t)
	p := newMigrationsProvider(t, api, schema.Billing{})
	n := p.Names()
	enable := "turn on time to live (attribute _expires) on table " + n.Entities

	res, err := p.Up(ctx)
	require.NoError(t, err)
	require.Contains(t, actionStrings(res.Actions), enable)
	require.Equal(t, expiresOn(), timeToLiveOf(t, api, n.Entities))
	for _, name := range []string{n.Relationships, n.IndexEntries} {
		require.Equal(t, types.TimeToLiveStatusDisabled, timeToLiveOf(t, api, name).TimeToLiveStatus, name)
	}

	t.Run("a second up does nothing", func(t *testing.T) {
		plan, err := p.Plan(ctx)
		require.NoError(t, err)
		require.True(t, plan.Empty(), "%v", actionStrings(plan.Actions))
		require.Empty(t, plan.Drift)
		counter := &countingAPI{API: api}
		again, err := newProviderFor(t, counter, n.Prefix, schema.Billing{}).Up(ctx)
		require.NoError(t, err)
		require.False(t, again.Changed())
		require.Zero(t, counter.writes.Load())
	})

	t.Run("turned off, up turns it on again", func(t *testing.T) {
		setTimeToLive(t, api, n.Entities, schema.AttrExpires, false)
		st, err := p.Status(ctx)
		require.NoError(t, err)
		require.False(t, st.UpToDate())
		require.Empty(t, st.Drift)
		require.Equal(t, []string{enable}, actionStrings(st.Pending))

		res, err := p.Up(ctx)
		require.NoError(t, err)
		require.Equal(t, []string{enable}, actionStrings(res.Actions))
		require.Equal(t, expiresOn(), timeToLiveOf(t, api, n.Entities))
		plan, err := p.Plan(ctx)
		require.NoError(t, err)
		require.True(t, plan.Empty(), "%v", actionStrings(plan.Actions))
	})

	t.Run("on another attribute, up warns and leaves it", func(t *testing.T) {
		setTimeToLive(t, api, n.Entities, schema.AttrExpires, false)
		setTimeToLive(t, api, n.Entities, "ttl", true)
		counter := &countingAPI{API: api}
		res, err := newProviderFor(t, counter, n.Prefix, schema.Billing{}).Up(ctx)
		require.NoError(t, err)
		require.False(t, res.Changed())
		require.Zero(t, counter.writes.Load())
		require.Len(t, res.Warnings, 1)
		require.Equal(t, migrations.DriftTimeToLive, res.Warnings[0].Kind)
		require.Contains(t, res.Warnings[0].Detail, "time to live is on attribute ttl, want _expires")
		require.Equal(t, "ttl", aws.ToString(timeToLiveOf(t, api, n.Entities).AttributeName))
	})
}

func expiresOn() *types.TimeToLiveDescription {
	return &types.TimeToLiveDescription{TimeToLiveStatus: types.TimeToLiveStatusEnabled, AttributeName: aws.String(schema.AttrExpires)}
}

func timeToLiveOf(t *testing.T, api *dynamodb.Client, table string) *types.TimeToLiveDescription {
	t.Helper()
	out, err := api.DescribeTimeToLive(context.Background(), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
	require.NoError(t, err)
	return out.TimeToLiveDescription
}

// setTimeToLive turns time to live of table on or off, on attr. DynamoDB Local
// applies it at once, where DynamoDB takes up to an hour.
func setTimeToLive(t *testing.T, api *dynamodb.Client, table, attr string, on bool) {
	t.Helper()
	_, err := api.UpdateTimeToLive(context.Background(), &dynamodb.UpdateTimeToLiveInput{
		TableName:               aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(attr), Enabled: aws.Bool(on)},
	})
	require.NoError(t, err)
}
