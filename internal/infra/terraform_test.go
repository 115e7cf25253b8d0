package infra

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTerraform(t *testing.T) {
	tests := []struct {
		name  string
		stack Stack
		want  string
	}{
		{
			name:  "on-demand table without indexes",
			stack: Stack{Tables: []Table{simpleTable()}},
			want: `resource "aws_dynamodb_table" "simple" {
  name         = "app_simple"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "pk"

  attribute {
    name = "pk"
    type = "S"
  }
}

output "simple_table_name" {
  description = "the name of table app_simple"
  value       = aws_dynamodb_table.simple.name
}

output "simple_table_arn" {
  description = "the ARN of table app_simple"
  value       = aws_dynamodb_table.simple.arn
}
`,
		},
		{
			name:  "provisioned table with indexes and every setting",
			stack: Stack{Description: "Two lines\nof description", Tables: []Table{fullTable()}},
			want: `# Two lines
# of description

resource "aws_dynamodb_table" "index_entries" {
  name                        = "app_index_entries"
  billing_mode                = "PROVISIONED"
  read_capacity               = 5
  write_capacity              = 7
  hash_key                    = "pk"
  range_key                   = "sk"
  deletion_protection_enabled = true
  stream_enabled              = true
  stream_view_type            = "NEW_AND_OLD_IMAGES"

  attribute {
    name = "pk"
    type = "S"
  }

  attribute {
    name = "sk"
    type = "S"
  }

  attribute {
    name = "n"
    type = "N"
  }

  global_secondary_index {
    name               = "app_by_n"
    hash_key           = "n"
    projection_type    = "INCLUDE"
    non_key_attributes = ["a", "b"]
    read_capacity      = 5
    write_capacity     = 7
  }

  local_secondary_index {
    name            = "app_by_pk_n"
    range_key       = "n"
    projection_type = "KEYS_ONLY"
  }

  point_in_time_recovery {
    enabled = true
  }

  server_side_encryption {
    enabled     = true
    kms_key_arn = "` + testKey + `"
  }

  ttl {
    attribute_name = "expires"
    enabled        = true
  }
}

output "index_entries_table_name" {
  description = "the name of table app_index_entries"
  value       = aws_dynamodb_table.index_entries.name
}

output "index_entries_table_arn" {
  description = "the ARN of table app_index_entries"
  value       = aws_dynamodb_table.index_entries.arn
}
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Terraform(tt.stack)
			require.NoError(t, err)
			require.Equal(t, tt.want, string(got))
			checkTerraformFmt(t, got)
		})
	}
}

func TestTerraformAWSManagedKey(t *testing.T) {
	got, err := Terraform(Stack{Tables: []Table{awsManagedKey(simpleTable())}})
	require.NoError(t, err)
	require.Contains(t, string(got), "\n  server_side_encryption {\n    enabled = true\n  }\n")
	checkTerraformFmt(t, got)
}

func TestHCLString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", `"plain"`},
		{`quote " and \ backslash`, `"quote \" and \\ backslash"`},
		{"template ${x} and %{if}", `"template $${x} and %%{if}"`},
		{"new\nline", `"new\nline"`},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, hclString(tt.in), tt.in)
	}
	require.Equal(t, `["a", "b\"c"]`, hclStrings([]string{"a", `b"c`}))
	require.Equal(t, "[]", hclStrings(nil))
}

// checkTerraformFmt checks with terraform fmt, when terraform is installed, that
// src is formatted as it formats it.
func checkTerraformFmt(t *testing.T, src []byte) {
	t.Helper()
	bin, err := exec.LookPath("terraform")
	if err != nil {
		t.Log("terraform is not installed: the layout is checked against the expected text only")
		return
	}
	path := filepath.Join(t.TempDir(), "main.tf")
	require.NoError(t, os.WriteFile(path, src, 0o600))
	out, err := exec.Command(bin, "fmt", "-check", "-diff", path).CombinedOutput()
	require.NoError(t, err, "terraform fmt would change it:\n%s", out)
}
