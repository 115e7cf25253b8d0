package migrations

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/schema"
)

// The settings are tested against fakeAPI: DynamoDB Local 3.3.1 does not support
// point-in-time recovery and ignores encryption (see fakeAPI). Deletion protection,
// which it supports, is also tested in the integration module.

const testKey = "arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"

var kms = Encryption{Type: EncryptionKMS}

func TestEncryptionValidation(t *testing.T) {
	tests := []struct {
		name  string
		enc   Encryption
		field string // "" when valid
	}{
		{"AWS owned", Encryption{}, ""},
		{"AWS managed KMS key", kms, ""},
		{"customer managed key", Encryption{Type: EncryptionKMS, KMSKey: testKey}, ""},
		{"multi-Region key", Encryption{Type: EncryptionKMS, KMSKey: "arn:aws-us-gov:kms:us-gov-west-1:111122223333:key/mrk-1234abcd"}, ""},
		{"key without KMS", Encryption{KMSKey: testKey}, "Encryption.KMSKey"},
		{"alias", Encryption{Type: EncryptionKMS, KMSKey: "alias/mine"}, "Encryption.KMSKey"},
		{"alias ARN", Encryption{Type: EncryptionKMS, KMSKey: "arn:aws:kms:us-east-1:111122223333:alias/mine"}, "Encryption.KMSKey"},
		{"key ID", Encryption{Type: EncryptionKMS, KMSKey: "1234abcd-12ab-34cd-56ef-1234567890ab"}, "Encryption.KMSKey"},
		{"unknown type", Encryption{Type: "AES256"}, "Encryption.Type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewProvider(newFakeAPI(0), Options{TablePrefix: "app", Encryption: tt.enc})
			if tt.field == "" {
				require.NoError(t, err)
				return
			}
			var ve *schema.ValidationError
			require.ErrorAs(t, err, &ve)
			require.Equal(t, tt.field, ve.Field)
		})
	}
}

func TestDefinitionsCarryTheSettings(t *testing.T) {
	n := testNames(t)
	for _, def := range (Options{DeletionProtection: true, Streams: true, Encryption: Encryption{Type: EncryptionKMS, KMSKey: testKey}}).definitions(n) {
		require.True(t, aws.ToBool(def.DeletionProtectionEnabled))
		require.True(t, aws.ToBool(def.StreamSpecification.StreamEnabled))
		require.Equal(t, types.StreamViewTypeNewAndOldImages, def.StreamSpecification.StreamViewType)
		require.Equal(t, types.SSETypeKms, def.SSESpecification.SSEType)
		require.Equal(t, testKey, aws.ToString(def.SSESpecification.KMSMasterKeyId))
	}
	for _, def := range (Options{}).definitions(n) {
		require.Nil(t, def.DeletionProtectionEnabled, "the defaults leave CreateTable as DynamoDB defaults it")
		require.Nil(t, def.SSESpecification)
		require.Nil(t, def.StreamSpecification)
	}
}

func TestDiffSettings(t *testing.T) {
	n := testNames(t)
	const entities = "app_entities_master"
	tests := []struct {
		name     string
		opts     Options
		live     func(*types.TableDescription) // applied to the entities table
		recovery *bool                         // the entities table's, when read
		actions  []string
		drift    []string
	}{
		{name: "nothing asked, table has it all", opts: Options{},
			live: func(d *types.TableDescription) {
				d.DeletionProtectionEnabled = aws.Bool(true)
				d.SSEDescription = sseDescription(kms.specification())
			}, recovery: aws.Bool(true)},
		{name: "all asked, table has it all",
			opts: Options{DeletionProtection: true, Encryption: kms, PointInTimeRecovery: true},
			live: func(d *types.TableDescription) {}, recovery: aws.Bool(true)},
		{name: "deletion protection missing", opts: Options{DeletionProtection: true},
			live:  func(d *types.TableDescription) { d.DeletionProtectionEnabled = aws.Bool(false) },
			drift: []string{"warning deletion-protection " + entities + " "}},
		{name: "deletion protection missing, update existing", opts: Options{DeletionProtection: true, UpdateExisting: true},
			live:    func(d *types.TableDescription) { d.DeletionProtectionEnabled = nil },
			actions: []string{"enable-deletion-protection " + entities + "  0"}},
		{name: "KMS wanted, AWS owned key", opts: Options{Encryption: kms},
			live:  func(d *types.TableDescription) { d.SSEDescription = nil },
			drift: []string{"warning encryption " + entities + " "}},
		{name: "KMS wanted, KMS being disabled", opts: Options{Encryption: kms, UpdateExisting: true},
			live: func(d *types.TableDescription) {
				d.SSEDescription = &types.SSEDescription{SSEType: types.SSETypeKms, Status: types.SSEStatusDisabling}
			},
			actions: []string{"set-encryption " + entities + "  0"}},
		{name: "KMS wanted, any key will do", opts: Options{Encryption: kms},
			live: func(d *types.TableDescription) {
				d.SSEDescription = sseDescription(&types.SSESpecification{Enabled: aws.Bool(true), KMSMasterKeyId: aws.String(testKey)})
			}},
		{name: "another customer managed key", opts: Options{Encryption: Encryption{Type: EncryptionKMS, KMSKey: testKey}},
			live:  func(d *types.TableDescription) { d.SSEDescription = sseDescription(kms.specification()) },
			drift: []string{"warning encryption " + entities + " "}},
		{name: "stream missing", opts: Options{Streams: true},
			live:  func(d *types.TableDescription) { d.StreamSpecification = nil },
			drift: []string{"warning stream " + entities + " "}},
		{name: "stream off, update existing", opts: Options{Streams: true, UpdateExisting: true},
			live: func(d *types.TableDescription) {
				d.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(false)}
			},
			actions: []string{"enable-stream " + entities + "  0"}},
		{name: "stream of another kind is reported, never changed", opts: Options{Streams: true, UpdateExisting: true},
			live: func(d *types.TableDescription) {
				d.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}
			},
			drift: []string{"warning stream " + entities + " "}},
		{name: "a stream nobody asked for is no drift", opts: Options{},
			live: func(d *types.TableDescription) { d.StreamSpecification = streamSpecification() }},
		{name: "recovery off", opts: Options{PointInTimeRecovery: true},
			live: func(d *types.TableDescription) {}, recovery: aws.Bool(false),
			drift: []string{"warning point-in-time-recovery " + entities + " "}},
		{name: "recovery off, update existing", opts: Options{PointInTimeRecovery: true, UpdateExisting: true},
			live: func(d *types.TableDescription) {}, recovery: aws.Bool(false),
			actions: []string{"enable-point-in-time-recovery " + entities + "  0"}},
		{name: "recovery not read", opts: Options{PointInTimeRecovery: true, UpdateExisting: true},
			live: func(d *types.TableDescription) {}},
		{name: "all missing, update existing",
			opts: Options{DeletionProtection: true, Encryption: kms, PointInTimeRecovery: true, UpdateExisting: true},
			live: func(d *types.TableDescription) {
				d.DeletionProtectionEnabled = aws.Bool(false)
				d.SSEDescription = nil
			}, recovery: aws.Bool(false),
			actions: []string{
				"enable-deletion-protection " + entities + "  0",
				"set-encryption " + entities + "  0",
				"enable-point-in-time-recovery " + entities + "  0",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The other tables match what is asked, so only the entities table differs.
			live := liveAll(tt.opts.definitions(n))
			tt.live(live[entities])
			s := &snapshot{live: live, version: CurrentVersion}
			if tt.recovery != nil {
				s.recovery = map[string]bool{entities: *tt.recovery, n.Relationships: true, n.IndexEntries: true}
			}
			want := target{tables: tt.opts.definitions(n), recovery: tt.opts.PointInTimeRecovery, updateExisting: tt.opts.UpdateExisting}
			p := diff(want, s, allMigrations())
			require.Equal(t, tt.actions, actionStrings(p.Actions))
			require.Equal(t, tt.drift, driftStrings(p.Drift))
			for _, a := range p.Actions {
				require.True(t, a.UpdateTable != nil || a.UpdateContinuousBackups != nil, "%s sends no request", a)
				require.Equal(t, entities, a.Table)
			}
		})
	}
}

func TestSettingsActionStrings(t *testing.T) {
	n := testNames(t)
	opts := Options{DeletionProtection: true, Encryption: Encryption{Type: EncryptionKMS, KMSKey: testKey},
		PointInTimeRecovery: true, Streams: true, UpdateExisting: true}
	s := &snapshot{live: liveAll(Options{}.definitions(n)), version: CurrentVersion,
		recovery: map[string]bool{n.Entities: false}}
	p := diff(target{tables: opts.definitions(n)[:1], recovery: true, updateExisting: true}, s, allMigrations())
	var got []string
	for _, a := range p.Actions {
		got = append(got, a.String())
	}
	require.Equal(t, []string{
		"enable deletion protection on table app_entities_master",
		"encrypt table app_entities_master with KMS key " + testKey,
		"enable a stream of new and old images on table app_entities_master",
		"enable point-in-time recovery on table app_entities_master",
	}, got)
	p.Actions[1].UpdateTable.SSESpecification = kms.specification()
	require.Equal(t, "encrypt table app_entities_master with the AWS managed KMS key", p.Actions[1].String())
}

func TestUpCreatesTablesWithTheSettings(t *testing.T) {
	for _, busy := range []int{0, 3} {
		t.Run(fmt.Sprintf("tables busy for %d polls", busy), func(t *testing.T) {
			ctx := context.Background()
			api := newFakeAPI(busy)
			api.backupsUnavailable = 2 // as DynamoDB does just after CreateTable
			opts := Options{TablePrefix: "app", PollInterval: time.Millisecond,
				DeletionProtection: true, Encryption: Encryption{Type: EncryptionKMS, KMSKey: testKey}, PointInTimeRecovery: true, Streams: true}
			p, err := NewProvider(api, opts)
			require.NoError(t, err)

			res, err := p.Up(ctx)
			require.NoError(t, err)
			require.Equal(t, []string{
				"create-table app_entities_master  0",
				"create-table app_relationship_entries  0",
				"create-table app_index_entries  0",
				"enable-point-in-time-recovery app_entities_master  0",
				"enable-time-to-live app_entities_master  0",
				"enable-point-in-time-recovery app_relationship_entries  0",
				"enable-point-in-time-recovery app_index_entries  0",
				"run-migration app_entities_master  2",
				"run-migration app_entities_master  3",
				"record-version app_entities_master  4",
			}, actionStrings(res.Actions))
			require.Equal(t, 5, api.count("UpdateContinuousBackups"), "two refusals waited out, then one per table")
			for _, name := range p.Names().Tables() {
				tbl := api.tables[name]
				require.True(t, tbl.recovery, name)
				require.True(t, aws.ToBool(tbl.desc.DeletionProtectionEnabled), name)
				require.Equal(t, testKey, aws.ToString(tbl.desc.SSEDescription.KMSMasterKeyArn), name)
				require.Equal(t, types.StreamViewTypeNewAndOldImages, tbl.desc.StreamSpecification.StreamViewType, name)
			}

			st, err := p.Status(ctx)
			require.NoError(t, err)
			require.True(t, st.UpToDate(), "status after up: %+v", st)
			require.Empty(t, st.Drift)
			require.Equal(t, 1+3, api.count("DescribeContinuousBackups"),
				"up asks once, before it creates the tables; status reads recovery once per table")

			writes := api.writes()
			again, err := p.Up(ctx)
			require.NoError(t, err)
			require.False(t, again.Changed())
			require.Equal(t, writes, api.writes(), "a second up must not write")
		})
	}
}

func TestUpUpdatesExistingTablesOnlyWhenAsked(t *testing.T) {
	ctx := context.Background()
	api := newFakeAPI(2)
	plain, _ := newTestProvider(t, api, onDemand)
	_, err := plain.Up(ctx)
	require.NoError(t, err)

	opts := Options{TablePrefix: "app", PollInterval: time.Millisecond,
		DeletionProtection: true, Encryption: kms, PointInTimeRecovery: true, Streams: true}
	p, err := NewProvider(api, opts)
	require.NoError(t, err)
	writes := api.writes()
	res, err := p.Up(ctx)
	require.NoError(t, err)
	require.False(t, res.Changed())
	require.Len(t, res.Warnings, 12, "four settings missing on three tables: %v", res.Warnings)
	require.Contains(t, res.Warnings[0].String(), "app_entities_master: deletion protection is off, want on; up changes existing tables only when asked")
	require.Equal(t, writes, api.writes(), "without UpdateExisting, up leaves existing tables alone")

	opts.UpdateExisting = true
	p, err = NewProvider(api, opts)
	require.NoError(t, err)
	plan, err := p.Plan(ctx)
	require.NoError(t, err)
	require.Empty(t, plan.Drift)
	require.Len(t, plan.Actions, 12)
	res, err = p.Up(ctx)
	require.NoError(t, err)
	require.Len(t, res.Actions, 12)
	require.Equal(t, 9, api.count("UpdateTable"), "one UpdateTable per setting and table")

	st, err := p.Status(ctx)
	require.NoError(t, err)
	require.True(t, st.UpToDate())
	require.Empty(t, st.Drift)

	st, err = plain.Status(ctx)
	require.NoError(t, err)
	require.Empty(t, st.Drift, "more protection than asked for is not drift")
}

func TestDownRefusesProtectedTables(t *testing.T) {
	ctx := context.Background()
	api := newFakeAPI(0)
	p, err := NewProvider(api, Options{TablePrefix: "app", DeletionProtection: true, PollInterval: time.Millisecond})
	require.NoError(t, err)
	plain, _ := newTestProvider(t, api, onDemand)
	_, err = plain.Up(ctx)
	require.NoError(t, err)
	api.tables["app_index_entries"].desc.DeletionProtectionEnabled = aws.Bool(true)

	_, err = p.Down(ctx, DownOptions{ConfirmDataLoss: true})
	require.ErrorIs(t, err, ErrProtected)
	var pe *ProtectedError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, []string{"app_index_entries"}, pe.Tables)
	require.EqualError(t, err, "ryno: deletion protection is on for app_index_entries; turn it off to delete them")
	require.Zero(t, api.count("DeleteTable"), "nothing deleted: a store is not left half deleted")
}

func TestRecoveryOnAnEndpointWithoutIt(t *testing.T) {
	api := &noBackups{newFakeAPI(0)}
	p, err := NewProvider(api, Options{TablePrefix: "app", PointInTimeRecovery: true, PollInterval: time.Millisecond})
	require.NoError(t, err)
	_, err = p.Plan(context.Background())
	require.ErrorContains(t, err, "this endpoint does not support point-in-time recovery (DynamoDB Local does not)")
	res, err := p.Up(context.Background())
	require.ErrorContains(t, err, "this endpoint does not support point-in-time recovery (DynamoDB Local does not)")
	require.Nil(t, res)
	require.Zero(t, api.writes(), "up finds it out before it creates a table")
	require.Empty(t, api.tables)

	plain, _ := newTestProvider(t, api.fakeAPI, onDemand)
	_, err = plain.Up(context.Background())
	require.NoError(t, err)
	_, err = p.Status(context.Background())
	require.Regexp(t, `^ryno: describe continuous backups of table app_\w+: this endpoint does not support point-in-time recovery`, err.Error())
	writes := api.writes()
	_, err = p.Up(context.Background())
	require.ErrorContains(t, err, "this endpoint does not support point-in-time recovery")
	require.Equal(t, writes, api.writes())
}

func TestCheckDoesNotReadRecovery(t *testing.T) {
	api := newFakeAPI(0)
	plain, _ := newTestProvider(t, api, onDemand)
	_, err := plain.Up(context.Background())
	require.NoError(t, err)
	st, err := Check(context.Background(), api, Options{TablePrefix: "app", PointInTimeRecovery: true})
	require.NoError(t, err)
	require.True(t, st.UpToDate())
	require.Zero(t, api.count("DescribeContinuousBackups"))
}

// noBackups answers as DynamoDB Local 3.3.1 does, which has no continuous backups.
type noBackups struct{ *fakeAPI }

var errUnknownOperation = &smithy.GenericAPIError{Code: "UnknownOperationException", Message: "An unknown operation was requested."}

func (noBackups) DescribeContinuousBackups(context.Context, *dynamodb.DescribeContinuousBackupsInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeContinuousBackupsOutput, error) {
	return nil, errUnknownOperation
}

func (noBackups) UpdateContinuousBackups(context.Context, *dynamodb.UpdateContinuousBackupsInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateContinuousBackupsOutput, error) {
	return nil, errUnknownOperation
}
