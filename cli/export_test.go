package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/migrations"
)

const testKey = "arn:aws:kms:us-east-1:111122223333:key/1234abcd"

// TestExport checks that the flags reach migrations.Export: the output is exactly
// what it writes for the options the flags stand for.
func TestExport(t *testing.T) {
	tests := []struct {
		name string
		args []string
		opts migrations.Options
		fmt  migrations.Format
	}{
		{"terraform", []string{"--format", "terraform"}, migrations.Options{TablePrefix: "app"}, migrations.FormatTerraform},
		{"cloudformation with every setting",
			[]string{"--format", "cloudformation", "--pitr", "--deletion-protection", "--streams", "--sse", "kms", "--kms-key", testKey},
			migrations.Options{TablePrefix: "app", PointInTimeRecovery: true, DeletionProtection: true, Streams: true,
				Encryption: migrations.Encryption{Type: migrations.EncryptionKMS, KMSKey: testKey}},
			migrations.FormatCloudFormation},
		{"json provisioned with the AWS managed key",
			[]string{"--format", "json", "--billing-mode", "provisioned", "--read-capacity", "2", "--write-capacity", "3", "--sse", "KMS"},
			migrations.Options{TablePrefix: "app", Billing: provisionedBilling(2, 3), Encryption: migrations.Encryption{Type: migrations.EncryptionKMS}},
			migrations.FormatJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, nil, append([]string{"migrate", "export", "--prefix", "app"}, tt.args...)...)
			require.Equal(t, ExitOK, code, errOut)
			require.Empty(t, errOut)
			want, err := migrations.Export(tt.opts, tt.fmt)
			require.NoError(t, err)
			require.Equal(t, string(want), out)
		})
	}
	t.Run("prefix from the environment", func(t *testing.T) {
		out, errOut, code := run(t, map[string]string{EnvTablePrefix: "envapp"}, "migrate", "export", "--format", "json")
		require.Equal(t, ExitOK, code, errOut)
		require.True(t, json.Valid([]byte(out)))
		require.True(t, strings.Contains(out, `"envapp_entities_master"`))
	})
}

func provisionedBilling(read, write int64) schema.Billing {
	return schema.Billing{Mode: types.BillingModeProvisioned, ReadCapacity: read, WriteCapacity: write}
}
