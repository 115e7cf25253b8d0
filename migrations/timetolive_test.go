package migrations

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/schema"
)

func TestDiffTimeToLive(t *testing.T) {
	n := testNames(t)
	const enable = "enable-time-to-live app_entities_master  0"
	ttl := func(status types.TimeToLiveStatus, attr string) *types.TimeToLiveDescription {
		d := &types.TimeToLiveDescription{TimeToLiveStatus: status}
		if attr != "" {
			d.AttributeName = aws.String(attr)
		}
		return d
	}
	tests := []struct {
		name    string
		wanted  bool                         // the target wants time to live, as for every Provider but Check's
		live    *types.TimeToLiveDescription // the entities table's; nil when not read
		actions []string
		drift   []string
	}{
		{name: "off: turned on, without UpdateExisting", wanted: true, live: ttl(types.TimeToLiveStatusDisabled, ""), actions: []string{enable}},
		{name: "on", wanted: true, live: ttl(types.TimeToLiveStatusEnabled, schema.AttrExpires)},
		{name: "being turned on", wanted: true, live: ttl(types.TimeToLiveStatusEnabling, schema.AttrExpires)},
		{name: "on another attribute", wanted: true, live: ttl(types.TimeToLiveStatusEnabled, "ttl"),
			drift: []string{"warning time-to-live app_entities_master "}},
		{name: "being turned on on another attribute", wanted: true, live: ttl(types.TimeToLiveStatusEnabling, "ttl"),
			drift: []string{"warning time-to-live app_entities_master "}},
		{name: "being turned off", wanted: true, live: ttl(types.TimeToLiveStatusDisabling, schema.AttrExpires),
			drift: []string{"warning time-to-live app_entities_master "}},
		{name: "a status unknown to this program", wanted: true, live: ttl("PAUSED", schema.AttrExpires),
			drift: []string{"warning time-to-live app_entities_master "}},
		{name: "not read", wanted: true},
		{name: "not wanted, as by Check", live: ttl(types.TimeToLiveStatusDisabled, "")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := target{tables: schema.Definitions(n, onDemand)}
			if tt.wanted {
				want.timeToLive = wantedTimeToLive(n)
			}
			s := &snapshot{live: liveAll(want.tables), version: CurrentVersion}
			if tt.live != nil {
				s.timeToLive = map[string]*types.TimeToLiveDescription{n.Entities: tt.live}
			}
			p := diff(want, s, allMigrations())
			require.Equal(t, tt.actions, actionStrings(p.Actions))
			require.Equal(t, tt.drift, driftStrings(p.Drift))
			for _, d := range p.Drift {
				require.Contains(t, d.Detail, schema.AttrExpires, "the detail names the attribute wanted")
			}
		})
	}
}

func TestDiffTimeToLiveOfANewStore(t *testing.T) {
	n := testNames(t)
	want := target{tables: schema.Definitions(n, onDemand), timeToLive: wantedTimeToLive(n)}
	p := diff(want, &snapshot{}, allMigrations())
	require.Equal(t, []string{
		"create-table app_entities_master  0",
		"create-table app_relationship_entries  0",
		"create-table app_index_entries  0",
		"enable-time-to-live app_entities_master  0",
		"run-migration app_entities_master  2",
		"run-migration app_entities_master  3",
		"record-version app_entities_master  4",
	}, actionStrings(p.Actions), "time to live once the tables exist, on the entities table only")
	a := p.Actions[3]
	require.Equal(t, &dynamodb.UpdateTimeToLiveInput{
		TableName:               aws.String(n.Entities),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(schema.AttrExpires), Enabled: aws.Bool(true)},
	}, a.UpdateTimeToLive)
	require.Nil(t, a.UpdateTable)
	require.Equal(t, "turn on time to live (attribute _expires) on table app_entities_master", a.String())
}

func TestUpTurnsOnTimeToLive(t *testing.T) {
	for _, busy := range []int{0, 3} {
		t.Run(fmt.Sprintf("tables busy for %d polls", busy), func(t *testing.T) {
			ctx := context.Background()
			api := newFakeAPI(busy)
			p, _ := newTestProvider(t, api, onDemand)
			n := p.Names()

			_, err := p.Up(ctx)
			require.NoError(t, err)
			requireTimeToLive(t, api, n)
			require.Equal(t, 1, api.count("UpdateTimeToLive"))
			require.Zero(t, api.count("DescribeTimeToLive"), "a new store has no entities table to ask about")

			plan, err := p.Plan(ctx)
			require.NoError(t, err)
			require.True(t, plan.Empty(), "%v", plan.Actions)
			require.Empty(t, plan.Drift)
			require.Equal(t, 1, api.count("DescribeTimeToLive"), "one request, for the entities table")
			writes := api.writes()
			again, err := p.Up(ctx)
			require.NoError(t, err)
			require.False(t, again.Changed())
			require.Equal(t, writes, api.writes())
		})
	}
}

func TestUpTurnsOnTimeToLiveOfAnExistingStore(t *testing.T) {
	ctx := context.Background()
	api := newFakeAPI(2)
	p, _ := newTestProvider(t, api, onDemand)
	n := p.Names()
	for _, def := range schema.Definitions(n, onDemand) {
		api.put(describeInput(def))
	}
	api.setVersion(n.Entities, &types.AttributeValueMemberN{Value: "4"})

	st, err := p.Status(ctx)
	require.NoError(t, err)
	require.False(t, st.UpToDate())
	require.Empty(t, st.Drift)
	require.Equal(t, []string{"enable-time-to-live app_entities_master  0"}, actionStrings(st.Pending))

	res, err := p.Up(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"enable-time-to-live app_entities_master  0"}, actionStrings(res.Actions))
	requireTimeToLive(t, api, n)

	st, err = p.Status(ctx)
	require.NoError(t, err)
	require.True(t, st.UpToDate(), "%+v", st)
}

// requireTimeToLive checks that the entities table has time to live on _expires
// and that the other tables have none.
func requireTimeToLive(t *testing.T, api *fakeAPI, n schema.Names) {
	t.Helper()
	require.Equal(t, &types.TimeToLiveDescription{TimeToLiveStatus: types.TimeToLiveStatusEnabled, AttributeName: aws.String(schema.AttrExpires)},
		api.tables[n.Entities].ttl)
	require.Nil(t, api.tables[n.Relationships].ttl)
	require.Nil(t, api.tables[n.IndexEntries].ttl)
}

func TestUpLeavesTimeToLiveItCannotChange(t *testing.T) {
	tests := []struct {
		name   string
		status types.TimeToLiveStatus
		attr   string
		detail string
	}{
		{"another attribute", types.TimeToLiveStatusEnabled, "ttl",
			"time to live is on attribute ttl, want _expires; up does not change it, as DynamoDB allows one time-to-live attribute per table"},
		{"being turned off", types.TimeToLiveStatusDisabling, schema.AttrExpires,
			"time to live is being turned off; up can turn it on, on attribute _expires, once DynamoDB has finished disabling it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newFakeAPI(0)
			p, _ := newTestProvider(t, api, onDemand)
			_, err := p.Up(context.Background())
			require.NoError(t, err)
			api.setTimeToLive(p.Names().Entities, tt.status, tt.attr)

			writes := api.writes()
			res, err := p.Up(context.Background())
			require.NoError(t, err)
			require.False(t, res.Changed())
			require.Len(t, res.Warnings, 1)
			require.Equal(t, DriftTimeToLive, res.Warnings[0].Kind)
			require.Contains(t, res.Warnings[0].Detail, tt.detail)
			require.Equal(t, writes, api.writes())
		})
	}
}

func TestUpTakesTimeToLiveTurnedOnMeanwhile(t *testing.T) {
	tests := []struct {
		name string
		attr string // the attribute turned on meanwhile
		err  string // "" when Up succeeds
	}{
		{"on _expires: done", schema.AttrExpires, ""},
		{"on another attribute: an error", "ttl", "TimeToLive is active on a different AttributeName"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := &ttlTurnedOnMeanwhile{fakeAPI: newFakeAPI(0), attr: tt.attr}
			p, _ := newTestProvider(t, api, onDemand)
			res, err := p.Up(context.Background())
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				require.Equal(t, []string{"enable-time-to-live app_entities_master  0"}, actionStrings(res.Pending[:1]))
				return
			}
			require.NoError(t, err)
			require.Contains(t, actionStrings(res.Actions), "enable-time-to-live app_entities_master  0")
			require.Equal(t, CurrentVersion, res.Version)
		})
	}
}

// ttlTurnedOnMeanwhile turns time to live on, on attr, just before each
// UpdateTimeToLive, as another run of Up or an operator may.
type ttlTurnedOnMeanwhile struct {
	*fakeAPI
	attr string
}

func (a *ttlTurnedOnMeanwhile) UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	a.setTimeToLive(aws.ToString(in.TableName), types.TimeToLiveStatusEnabled, a.attr)
	return a.fakeAPI.UpdateTimeToLive(ctx, in, opts...)
}

func TestCheckDoesNotReadTimeToLive(t *testing.T) {
	ctx := context.Background()
	api := newFakeAPI(0)
	st, err := Check(ctx, api, Options{TablePrefix: "app"})
	require.NoError(t, err)
	require.Equal(t, []string{
		"create-table app_entities_master  0",
		"create-table app_relationship_entries  0",
		"create-table app_index_entries  0",
		"run-migration app_entities_master  2",
		"run-migration app_entities_master  3",
		"record-version app_entities_master  4",
	}, actionStrings(st.Pending), "nothing about time to live, which Check cannot read")

	p, _ := newTestProvider(t, api, onDemand)
	for _, def := range p.definitions() {
		api.put(describeInput(def)) // without time to live
	}
	api.setVersion(p.Names().Entities, &types.AttributeValueMemberN{Value: "4"})
	st, err = Check(ctx, api, Options{TablePrefix: "app"})
	require.NoError(t, err)
	require.True(t, st.UpToDate(), "%+v", st)
	require.Zero(t, api.count("DescribeTimeToLive"))
}

func TestTimeToLiveOnAnEndpointWithoutIt(t *testing.T) {
	api := &noTimeToLive{newFakeAPI(0)}
	p, _ := newTestProvider(t, api, onDemand)
	_, err := p.Up(context.Background())
	require.ErrorContains(t, err, "turn on time to live (attribute _expires) on table app_entities_master: "+
		"this endpoint does not support time to live")
	_, err = p.Plan(context.Background())
	require.ErrorContains(t, err, "describe time to live of table app_entities_master: this endpoint does not support time to live")
}

// noTimeToLive answers as an endpoint without time to live would.
type noTimeToLive struct{ *fakeAPI }

func (noTimeToLive) DescribeTimeToLive(context.Context, *dynamodb.DescribeTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	return nil, errUnknownOperation
}

func (noTimeToLive) UpdateTimeToLive(context.Context, *dynamodb.UpdateTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	return nil, errUnknownOperation
}

// Every format exports the entities table's time to live, and only that table's.
func TestExportTimeToLive(t *testing.T) {
	n := testNames(t)
	export := func(f Format) string {
		out, err := Export(Options{TablePrefix: "app"}, f)
		require.NoError(t, err)
		return string(out)
	}

	var tpl struct {
		Resources map[string]struct{ Properties map[string]json.RawMessage }
	}
	require.NoError(t, json.Unmarshal([]byte(export(FormatCloudFormation)), &tpl))
	for id, r := range tpl.Resources {
		spec, ok := r.Properties["TimeToLiveSpecification"]
		if id != "EntitiesTable" {
			require.False(t, ok, "%s has no time to live", id)
			continue
		}
		require.JSONEq(t, `{"AttributeName": "_expires", "Enabled": true}`, string(spec))
	}

	tf := export(FormatTerraform)
	block := "\n  ttl {\n    attribute_name = \"_expires\"\n    enabled        = true\n  }\n}\n"
	require.Equal(t, 1, strings.Count(tf, block), tf)
	entities, _, _ := strings.Cut(tf, `resource "aws_dynamodb_table" "relationships"`)
	require.Contains(t, entities, block, "on the entities table")

	var requests struct {
		UpdateTimeToLive []*dynamodb.UpdateTimeToLiveInput
	}
	require.NoError(t, json.Unmarshal([]byte(export(FormatJSON)), &requests))
	require.Equal(t, []*dynamodb.UpdateTimeToLiveInput{timeToLiveAction(n.Entities, schema.AttrExpires).UpdateTimeToLive},
		requests.UpdateTimeToLive, "the request Up sends")
}
