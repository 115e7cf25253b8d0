package migrations

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/schema"
)

// lines is a Logger that keeps what it receives.
type lines struct {
	mu  sync.Mutex
	all []string
}

func (l *lines) Printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, fmt.Sprintf(format, args...))
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.all, "\n")
}

func newTestProvider(t *testing.T, api API, billing schema.Billing) (*Provider, *lines) {
	t.Helper()
	log := &lines{}
	p, err := NewProvider(api, Options{TablePrefix: "app", Billing: billing, PollInterval: time.Millisecond, Logger: log})
	require.NoError(t, err)
	return p, log
}

func TestNewProviderValidates(t *testing.T) {
	tests := []struct {
		name  string
		opts  Options
		field string
	}{
		{"no prefix", Options{}, "TablePrefix"},
		{"bad prefix", Options{TablePrefix: "my app"}, "TablePrefix"},
		{"provisioned without capacity", Options{TablePrefix: "app", Billing: schema.Billing{Mode: types.BillingModeProvisioned}}, "Billing"},
		{"negative poll interval", Options{TablePrefix: "app", PollInterval: -time.Second}, "PollInterval"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newFakeAPI(0)
			_, err := NewProvider(api, tt.opts)
			require.ErrorIs(t, err, schema.ErrInvalid)
			var ve *schema.ValidationError
			require.ErrorAs(t, err, &ve)
			require.Equal(t, tt.field, ve.Field)
			require.Zero(t, api.total())
		})
	}
	t.Run("nil API", func(t *testing.T) {
		_, err := NewProvider(nil, Options{TablePrefix: "app"})
		require.Error(t, err)
	})
	t.Run("default poll interval", func(t *testing.T) {
		p, err := NewProvider(newFakeAPI(0), Options{TablePrefix: "app"})
		require.NoError(t, err)
		require.Equal(t, defaultPollInterval, p.opts.PollInterval)
		require.Equal(t, "app_entities_master", p.Names().Entities)
	})
}

func TestUp(t *testing.T) {
	for _, busy := range []int{0, 3} {
		t.Run(fmt.Sprintf("tables busy for %d polls", busy), func(t *testing.T) {
			ctx := context.Background()
			api := newFakeAPI(busy)
			p, log := newTestProvider(t, api, onDemand)

			res, err := p.Up(ctx)
			require.NoError(t, err)
			require.True(t, res.Changed())
			require.Equal(t, []string{
				"create-table app_entities_master  0",
				"create-table app_relationship_entries  0",
				"create-table app_index_entries  0",
				"enable-time-to-live app_entities_master  0",
				"run-migration app_entities_master  2",
				"run-migration app_entities_master  3",
				"record-version app_entities_master  4",
			}, actionStrings(res.Actions))
			require.Equal(t, 0, res.RecordedVersion)
			require.Equal(t, 4, res.Version)
			require.Empty(t, res.Warnings)
			require.Equal(t, 3, api.count("CreateTable"))
			require.Equal(t, 2, api.count("Scan"), "each data step scans the empty relationship entries table")
			require.Zero(t, api.count("BatchWriteItem"), "and finds no list to build")
			require.Equal(t, 1, api.count("PutItem"), "the version record only")
			if busy > 0 {
				require.Contains(t, log.String(), "waiting for table app_entities_master to become ACTIVE (table CREATING)")
			} else {
				require.NotContains(t, log.String(), "waiting")
			}
			require.Contains(t, log.String(), "create table app_index_entries (GSI app_index_lookup)")

			st, err := p.Status(ctx)
			require.NoError(t, err)
			require.True(t, st.UpToDate(), "status after up: %+v", st)
			require.Equal(t, CurrentVersion, st.RecordedVersion)

			writes := api.writes()
			again, err := p.Up(ctx)
			require.NoError(t, err)
			require.False(t, again.Changed())
			require.Equal(t, 4, again.RecordedVersion)
			require.Equal(t, 4, again.Version)
			require.Equal(t, 2, api.count("Scan"), "a second up runs no data step")
			require.Equal(t, writes, api.writes(), "a second up must not write")
		})
	}
}

func TestUpReportsTheActionsItLeftUndone(t *testing.T) {
	api := newFakeAPI(0)
	p, _ := newTestProvider(t, api, onDemand)
	api.setFailure("PutItem", errors.New("access denied"))
	res, err := p.Up(context.Background())
	require.ErrorContains(t, err, "access denied")
	require.Equal(t, []string{
		"create-table app_entities_master  0",
		"create-table app_relationship_entries  0",
		"create-table app_index_entries  0",
		"enable-time-to-live app_entities_master  0",
		"run-migration app_entities_master  2",
		"run-migration app_entities_master  3",
	}, actionStrings(res.Actions), "done")
	require.Equal(t, []string{"record-version app_entities_master  4"}, actionStrings(res.Pending), "not done")

	api.setFailure("PutItem", nil)
	res, err = p.Up(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{"run-migration app_entities_master  2", "run-migration app_entities_master  3", "record-version app_entities_master  4"},
		actionStrings(res.Actions), "the data steps run again until the version is recorded")
	require.Empty(t, res.Pending)
}

func TestUpAddsMissingIndexes(t *testing.T) {
	ctx := context.Background()
	api := newFakeAPI(2)
	p, log := newTestProvider(t, api, provisioned)
	for _, def := range schema.Definitions(p.Names(), provisioned) {
		d := describeInput(def)
		d.GlobalSecondaryIndexes = nil
		api.put(d)
	}
	api.setVersion(p.Names().Entities, &types.AttributeValueMemberN{Value: "4"})

	res, err := p.Up(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{
		"create-index app_entities_master app_entities_by_type 0",
		"create-index app_entities_master app_entities_by_type_shard 0",
		"create-index app_entities_master app_entities_inline_1 0",
		"create-index app_entities_master app_entities_inline_2 0",
		"create-index app_relationship_entries app_incoming_relationships 0",
		"create-index app_relationship_entries app_incoming_shard 0",
		"create-index app_index_entries app_index_lookup 0",
		"enable-time-to-live app_entities_master  0",
	}, actionStrings(res.Actions))
	require.Equal(t, 7, api.count("UpdateTable"))
	require.Zero(t, api.count("PutItem"), "the version was already recorded")
	require.Equal(t, []string{
		"create GSI app_entities_by_type on table app_entities_master",
		"waiting for table app_entities_master to become ACTIVE (GSI app_entities_by_type CREATING)",
		"create GSI app_entities_by_type_shard on table app_entities_master",
		"waiting for table app_entities_master to become ACTIVE (GSI app_entities_by_type_shard CREATING)",
		"create GSI app_entities_inline_1 on table app_entities_master",
		"waiting for table app_entities_master to become ACTIVE (GSI app_entities_inline_1 CREATING)",
		"create GSI app_entities_inline_2 on table app_entities_master",
		"waiting for table app_entities_master to become ACTIVE (GSI app_entities_inline_2 CREATING)",
		"create GSI app_incoming_relationships on table app_relationship_entries",
		"waiting for table app_relationship_entries to become ACTIVE (GSI app_incoming_relationships CREATING)",
		"create GSI app_incoming_shard on table app_relationship_entries",
		"waiting for table app_relationship_entries to become ACTIVE (GSI app_incoming_shard CREATING)",
		"create GSI app_index_lookup on table app_index_entries",
		"waiting for table app_index_entries to become ACTIVE (GSI app_index_lookup CREATING)",
		"turn on time to live (attribute _expires) on table app_entities_master",
	}, log.all, "each GSI is ACTIVE before the next action starts")

	st, err := p.Status(ctx)
	require.NoError(t, err)
	require.True(t, st.UpToDate(), "status after up: %+v", st)
}

func TestUpRefusesDrift(t *testing.T) {
	tests := []struct {
		name   string
		change func(p *Provider, api *fakeAPI)
		kind   DriftKind
	}{
		{"key schema", func(p *Provider, api *fakeAPI) {
			api.tables[p.Names().Entities].desc.KeySchema = keys(schema.AttrID, schema.AttrUpdated)
		}, DriftKeySchema},
		{"missing LSI", func(p *Provider, api *fakeAPI) {
			api.tables[p.Names().Relationships].desc.LocalSecondaryIndexes = nil
		}, DriftMissingIndex},
		{"newer version", func(p *Provider, api *fakeAPI) {
			api.setVersion(p.Names().Entities, &types.AttributeValueMemberN{Value: "9"})
		}, DriftVersion},
		{"newer version that keeps this one working", func(p *Provider, api *fakeAPI) {
			api.setVersion(p.Names().Entities, &types.AttributeValueMemberN{Value: "9"})
			api.tables[p.Names().Entities].version[schema.AttrSchemaCompatible] = &types.AttributeValueMemberN{Value: "3"}
		}, DriftVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newFakeAPI(0)
			p, _ := newTestProvider(t, api, onDemand)
			for _, def := range schema.Definitions(p.Names(), onDemand) {
				api.put(describeInput(def))
			}
			api.tables[p.Names().IndexEntries].desc.GlobalSecondaryIndexes = nil // would be added without the drift
			tt.change(p, api)

			res, err := p.Up(context.Background())
			require.Nil(t, res)
			require.ErrorIs(t, err, ErrDrift)
			var de *DriftError
			require.ErrorAs(t, err, &de)
			require.Len(t, de.Drift, 1)
			require.Equal(t, tt.kind, de.Drift[0].Kind)
			require.Contains(t, err.Error(), de.Drift[0].Detail)
			require.Zero(t, api.writes(), "up must not write when there is drift")
		})
	}
}

func TestUpRespectsContext(t *testing.T) {
	api := newFakeAPI(1 << 30) // never ACTIVE
	p, _ := newTestProvider(t, api, onDemand)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()

	res, err := p.Up(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Contains(t, err.Error(), "waiting for table app_entities_master to become ACTIVE (table CREATING)")
	require.Empty(t, res.Actions, "the table was not ACTIVE, so its creation did not complete")
	require.Equal(t, 1, api.count("CreateTable"))
}

func TestUpRunsDataSteps(t *testing.T) {
	ctx := context.Background()
	fake := newFakeAPI(2)
	p, _ := newTestProvider(t, fake, onDemand)
	var ran []int
	fail := errors.New("step failed")
	var failing bool
	step := func(v int) func(context.Context, API, schema.Names) error {
		return func(_ context.Context, _ API, n schema.Names) error {
			for _, name := range n.Tables() {
				require.Empty(t, notActive(fake.tables[name].desc), "data steps run once every table is ACTIVE")
			}
			if failing && v == 3 {
				return fail
			}
			ran = append(ran, v)
			return nil
		}
	}
	p.migrations = []migration{
		{Version: 1, Description: "tables"},
		{Version: 2, Description: "backfill", run: step(2)},
		{Version: 3, Description: "rewrite", run: step(3)},
	}

	failing = true
	res, err := p.Up(ctx)
	require.ErrorIs(t, err, fail)
	require.Equal(t, []int{2}, ran)
	require.Equal(t, 0, res.Version, "no version is recorded when a step fails")
	require.Zero(t, fake.count("PutItem"))

	failing = false
	res, err = p.Up(ctx)
	require.NoError(t, err)
	require.Equal(t, []int{2, 2, 3}, ran, "steps are re-run until the version is recorded")
	require.Equal(t, 3, res.Version)

	res, err = p.Up(ctx)
	require.NoError(t, err)
	require.False(t, res.Changed())
	require.Equal(t, []int{2, 2, 3}, ran)
}

func TestStatusAndPlanOnEmptyStore(t *testing.T) {
	api := newFakeAPI(0)
	p, _ := newTestProvider(t, api, onDemand)
	ctx := context.Background()

	st, err := p.Status(ctx)
	require.NoError(t, err)
	require.False(t, st.UpToDate())
	require.Zero(t, st.RecordedVersion)
	require.Equal(t, CurrentVersion, st.TargetVersion)
	require.Len(t, st.Pending, 7)
	require.Empty(t, st.Drift)
	for _, ts := range st.Tables {
		require.Equal(t, StateMissing, ts.State)
	}
	require.Zero(t, api.count("GetItem"), "no version to read without the entities table")

	plan, err := p.Plan(ctx)
	require.NoError(t, err)
	require.False(t, plan.Empty())
	require.Equal(t, st.Pending, plan.Actions)
	require.Zero(t, api.writes())
}

func TestReadVersionRejectsMalformedRecord(t *testing.T) {
	for _, v := range []types.AttributeValue{
		&types.AttributeValueMemberS{Value: "1"},
		&types.AttributeValueMemberN{Value: "1.5"},
		&types.AttributeValueMemberN{Value: "-1"},
	} {
		t.Run(fmt.Sprintf("%#v", v), func(t *testing.T) {
			api := newFakeAPI(0)
			p, _ := newTestProvider(t, api, onDemand)
			for _, def := range schema.Definitions(p.Names(), onDemand) {
				api.put(describeInput(def))
			}
			api.setVersion(p.Names().Entities, v)
			_, err := p.Plan(context.Background())
			require.ErrorContains(t, err, "read schema version")
		})
	}
}

func TestWriteVersionNeverLowers(t *testing.T) {
	api := newFakeAPI(0)
	p, _ := newTestProvider(t, api, onDemand)
	for _, def := range schema.Definitions(p.Names(), onDemand) {
		api.put(describeInput(def))
	}
	require.NoError(t, p.writeVersion(context.Background(), 2))
	err := p.writeVersion(context.Background(), 1)
	require.ErrorIs(t, err, ErrDrift)
	v, err := p.readVersion(context.Background())
	require.NoError(t, err)
	require.Equal(t, recorded{version: 2, compatible: 2}, v, "the record says which programs still work at it")
}

func TestDown(t *testing.T) {
	ctx := context.Background()

	t.Run("not confirmed", func(t *testing.T) {
		api := newFakeAPI(0)
		p, _ := newTestProvider(t, api, onDemand)
		res, err := p.Down(ctx, DownOptions{})
		require.ErrorIs(t, err, ErrNotConfirmed)
		require.Nil(t, res)
		require.Zero(t, api.total(), "no request without confirmation")
	})

	t.Run("confirmed, twice", func(t *testing.T) {
		api := newFakeAPI(2)
		p, log := newTestProvider(t, api, onDemand)
		_, err := p.Up(ctx)
		require.NoError(t, err)
		api.tables[p.Names().IndexEntries].desc.TableStatus = types.TableStatusUpdating // Down waits for it
		api.tables[p.Names().IndexEntries].pending = 2

		res, err := p.Down(ctx, DownOptions{ConfirmDataLoss: true})
		require.NoError(t, err)
		require.Equal(t, []string{
			"delete-table app_entities_master  0",
			"delete-table app_relationship_entries  0",
			"delete-table app_index_entries  0",
		}, actionStrings(res.Actions))
		require.Empty(t, api.tables)
		require.Contains(t, log.String(), "waiting for table app_entities_master to be deleted (table DELETING)")

		res, err = p.Down(ctx, DownOptions{ConfirmDataLoss: true})
		require.NoError(t, err)
		require.False(t, res.Changed())
		require.Equal(t, 3, api.count("DeleteTable"))
	})

	t.Run("table already being deleted", func(t *testing.T) {
		api := newFakeAPI(2)
		p, _ := newTestProvider(t, api, onDemand)
		d := describeInput(schema.Definitions(p.Names(), onDemand)[0])
		d.TableStatus = types.TableStatusDeleting
		api.put(d)
		api.tables[aws.ToString(d.TableName)].pending = 2

		res, err := p.Down(ctx, DownOptions{ConfirmDataLoss: true})
		require.NoError(t, err)
		require.False(t, res.Changed())
		require.Zero(t, api.count("DeleteTable"))
		require.Empty(t, api.tables)
	})
}
