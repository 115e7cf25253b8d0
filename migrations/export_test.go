package migrations

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/schema"
)

func TestExportJSONIsWhatUpSends(t *testing.T) {
	tests := []struct {
		name string
		opts Options
	}{
		{"defaults", Options{TablePrefix: "app"}},
		{"provisioned", Options{TablePrefix: "app", Billing: provisioned}},
		{"every setting", Options{TablePrefix: "app", PointInTimeRecovery: true, DeletionProtection: true, Streams: true,
			Encryption: Encryption{Type: EncryptionKMS, KMSKey: testKey}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Export(tt.opts, FormatJSON)
			require.NoError(t, err)
			// DynamoDB's JSON names its members as the SDK names its fields.
			var got struct {
				CreateTable             []*dynamodb.CreateTableInput
				UpdateContinuousBackups []*dynamodb.UpdateContinuousBackupsInput
				UpdateTimeToLive        []*dynamodb.UpdateTimeToLiveInput
			}
			require.NoError(t, json.Unmarshal(out, &got))
			n := testNames(t)
			require.Equal(t, tt.opts.definitions(n), got.CreateTable)
			var recovery []*dynamodb.UpdateContinuousBackupsInput
			if tt.opts.PointInTimeRecovery {
				for _, name := range n.Tables() {
					recovery = append(recovery, recoveryInput(name))
				}
			}
			require.Equal(t, recovery, got.UpdateContinuousBackups)
			require.Equal(t, []*dynamodb.UpdateTimeToLiveInput{timeToLiveAction(n.Entities, schema.AttrExpires).UpdateTimeToLive},
				got.UpdateTimeToLive)
		})
	}
}

func TestExportFormats(t *testing.T) {
	n := testNames(t)
	for _, f := range []Format{FormatCloudFormation, FormatTerraform, FormatJSON} {
		t.Run(string(f), func(t *testing.T) {
			out, err := Export(Options{TablePrefix: "app"}, f)
			require.NoError(t, err)
			for _, name := range []string{n.Entities, n.EntitiesByType, n.EntitiesInline[0], n.EntitiesInline[1], n.Relationships, n.ReverseRelationships,
				n.RelationshipsByObject, n.IndexEntries, n.IndexLookup} {
				require.Contains(t, string(out), `"`+name+`"`)
			}
			if f != FormatTerraform {
				require.True(t, json.Valid(out))
			}
		})
	}
}

func TestExportRefuses(t *testing.T) {
	tests := []struct {
		name   string
		opts   Options
		format Format
		field  string
	}{
		{"unknown format", Options{TablePrefix: "app"}, "yaml", "Format"},
		{"no prefix", Options{}, FormatTerraform, "TablePrefix"},
		{"bad prefix", Options{TablePrefix: "my app"}, FormatTerraform, "TablePrefix"},
		{"bad billing", Options{TablePrefix: "app", Billing: schema.Billing{Mode: types.BillingModeProvisioned}}, FormatJSON, "Billing"},
		{"key without KMS", Options{TablePrefix: "app", Encryption: Encryption{KMSKey: testKey}}, FormatCloudFormation, "Encryption.KMSKey"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Export(tt.opts, tt.format)
			var ve *schema.ValidationError
			require.ErrorAs(t, err, &ve)
			require.Equal(t, tt.field, ve.Field)
			require.True(t, strings.HasPrefix(err.Error(), "ryno: "), err.Error())
		})
	}
}
