package integration_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/cli"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/internal/schema"
)

// isolateAWS clears the AWS settings of the environment, so the CLI falls back to
// DynamoDB Local's defaults: region us-east-1 and the credentials local/local, the
// same the test harness uses, whose tables the test can then inspect.
func isolateAWS(t *testing.T) {
	t.Helper()
	none := filepath.Join(t.TempDir(), "none")
	for _, k := range []string{
		"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE",
		"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB",
		"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
		cli.EnvTablePrefix,
	} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_CONFIG_FILE", none)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", none)
}

// runRyno runs the CLI with args and returns its output and exit status.
func runRyno(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = cli.Main(context.Background(), args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// migrate runs "ryno migrate cmd" against DynamoDB Local with the given prefix.
func migrate(t *testing.T, cmd, prefix string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runRyno(t, append([]string{"migrate", cmd, "--endpoint", dynamotest.Endpoint(), "--prefix", prefix}, args...)...)
}

func cliPrefix(t *testing.T) (string, schema.Names) {
	t.Helper()
	prefix := dynamotest.NewPrefix(t)
	names, err := schema.NewNames(prefix)
	require.NoError(t, err)
	deleteTablesAtEnd(t, names)
	return prefix, names
}

func TestCLIMigrate(t *testing.T) {
	isolateAWS(t)
	prefix, n := cliPrefix(t)

	t.Run("plan on nothing", func(t *testing.T) {
		out, errOut, code := migrate(t, "plan", prefix)
		require.Equal(t, 0, code, errOut)
		require.Equal(t, "up would run (schema version none -> 4):\n"+
			"  create table "+n.Entities+" (GSI "+n.EntitiesByType+", GSI "+n.EntitiesByTypeShard+", GSI "+n.EntitiesInline[0]+", GSI "+n.EntitiesInline[1]+")\n"+
			"  create table "+n.Relationships+" (GSI "+n.ReverseRelationships+", GSI "+n.IncomingShard+", LSI "+n.RelationshipsByObject+")\n"+
			"  create table "+n.IndexEntries+" (GSI "+n.IndexLookup+")\n"+
			"  turn on time to live (attribute _expires) on table "+n.Entities+"\n"+
			"  run migration 2: build the heads and markers of relationship lists written before them\n"+
			"  run migration 3: give every relationship entry its _reverse_key, the sort key of the reverse index replacing reverse_relationships\n"+
			"  record schema version 4\n", out)
		require.Empty(t, tablesWithPrefix(t, prefix), "plan must not create anything")
	})

	t.Run("status on nothing", func(t *testing.T) {
		out, errOut, code := migrate(t, "status", prefix)
		require.Equal(t, 0, code, errOut)
		require.Regexp(t, n.Entities+` +table +MISSING`, out)
		require.Regexp(t, n.IndexLookup+` +GSI +MISSING`, out)
		require.Contains(t, out, "schema version: none recorded, 4 current")
		require.Contains(t, out, `not up to date: run "ryno migrate up"`)
	})

	t.Run("up", func(t *testing.T) {
		out, errOut, code := migrate(t, "up", prefix)
		require.Equal(t, 0, code, errOut)
		require.Empty(t, errOut)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		require.Equal(t, []string{
			"create table " + n.Entities + " (GSI " + n.EntitiesByType + ", GSI " + n.EntitiesByTypeShard + ", GSI " + n.EntitiesInline[0] + ", GSI " + n.EntitiesInline[1] + ")",
			"create table " + n.Relationships + " (GSI " + n.ReverseRelationships + ", GSI " + n.IncomingShard + ", LSI " + n.RelationshipsByObject + ")",
			"create table " + n.IndexEntries + " (GSI " + n.IndexLookup + ")",
			"turn on time to live (attribute _expires) on table " + n.Entities,
			"run migration 2: build the heads and markers of relationship lists written before them",
			"run migration 3: give every relationship entry its _reverse_key, the sort key of the reverse index replacing reverse_relationships",
			"record schema version 4",
		}, withoutWaits(lines[:len(lines)-1]))
		require.Regexp(t, `^schema version 4 is up to date: 7 actions in \S+$`, lines[len(lines)-1])
		require.Len(t, tablesWithPrefix(t, prefix), 3)
	})

	t.Run("up again", func(t *testing.T) {
		out, errOut, code := migrate(t, "up", prefix)
		require.Equal(t, 0, code, errOut)
		require.Equal(t, "schema version 4 is up to date; nothing to do\n", out)
	})

	t.Run("plan when up to date", func(t *testing.T) {
		out, errOut, code := migrate(t, "plan", prefix)
		require.Equal(t, 0, code, errOut)
		require.Equal(t, "schema version 4 is up to date; nothing to do\n", out)
	})

	t.Run("status when up to date", func(t *testing.T) {
		out, errOut, code := migrate(t, "status", prefix)
		require.Equal(t, 0, code, errOut)
		for _, name := range []string{n.Entities, n.Relationships, n.IndexEntries} {
			require.Regexp(t, name+` +table +ACTIVE +on-demand`, out)
		}
		require.Regexp(t, n.EntitiesByType+` +GSI +ACTIVE`, out)
		require.Regexp(t, n.RelationshipsByObject+` +LSI +ACTIVE`, out)
		require.Contains(t, out, "schema version: 4 recorded, 4 current\ndrift: none\nup to date\n")
	})

	t.Run("down without confirmation", func(t *testing.T) {
		out, errOut, code := migrate(t, "down", prefix)
		require.Equal(t, 2, code)
		require.Empty(t, out)
		require.Contains(t, errOut, "ryno: migrate down deletes "+n.Entities)
		require.Contains(t, errOut, "add --delete-all-data to confirm")
		require.Len(t, tablesWithPrefix(t, prefix), 3)
	})

	t.Run("down", func(t *testing.T) {
		out, errOut, code := migrate(t, "down", prefix, "--delete-all-data")
		require.Equal(t, 0, code, errOut)
		require.Contains(t, out, "delete table "+n.Entities+"\n")
		require.Contains(t, out, "delete table "+n.IndexEntries+"\n")
		require.Regexp(t, `deleted 3 tables in \S+\n$`, out)
		require.Empty(t, tablesWithPrefix(t, prefix))
	})

	t.Run("down again", func(t *testing.T) {
		out, errOut, code := migrate(t, "down", prefix, "--delete-all-data")
		require.Equal(t, 0, code, errOut)
		require.Equal(t, "nothing to delete: no table with prefix "+prefix+" exists\n", out)
	})
}

func TestCLIDrift(t *testing.T) {
	isolateAWS(t)
	prefix, n := cliPrefix(t)
	_, err := dynamotest.API(t).CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:   aws.String(n.IndexEntries),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("_subject_key"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("_unique_key"), AttributeType: types.ScalarAttributeTypeN},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("_subject_key"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("_unique_key"), KeyType: types.KeyTypeRange},
		},
	})
	require.NoError(t, err)
	const wantDrift = "key attribute _unique_key has type N, want S"

	t.Run("status", func(t *testing.T) {
		out, _, code := migrate(t, "status", prefix)
		require.Equal(t, 1, code)
		require.Regexp(t, `error +`+n.IndexEntries+`: `+wantDrift, out)
		require.Contains(t, out, "1 drift error: up refuses to run until they are resolved\n")
	})

	t.Run("plan", func(t *testing.T) {
		out, _, code := migrate(t, "plan", prefix)
		require.Equal(t, 1, code)
		require.Contains(t, out, wantDrift)
		require.Contains(t, out, "up would refuse to run")
	})

	t.Run("up", func(t *testing.T) {
		out, errOut, code := migrate(t, "up", prefix)
		require.Equal(t, 1, code)
		require.Empty(t, out)
		require.Contains(t, errOut, "ryno: up changed nothing")
		require.Contains(t, errOut, wantDrift)
		require.Equal(t, []string{n.IndexEntries}, tablesWithPrefix(t, prefix))
	})
}

func TestCLIProvisioned(t *testing.T) {
	isolateAWS(t)
	prefix, n := cliPrefix(t)
	_, errOut, code := migrate(t, "up", prefix, "--billing-mode", "provisioned", "--read-capacity", "2", "--write-capacity", "3")
	require.Equal(t, 0, code, errOut)

	d := describeTable(t, n.Relationships)
	require.Equal(t, int64(2), aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits))
	require.Equal(t, int64(3), aws.ToInt64(d.GlobalSecondaryIndexes[0].ProvisionedThroughput.WriteCapacityUnits))

	t.Run("status with on-demand wanted warns", func(t *testing.T) {
		out, errOut, code := migrate(t, "status", prefix)
		require.Equal(t, 0, code, errOut)
		require.Regexp(t, `warning +`+n.Entities+`: billing mode is PROVISIONED, want PAY_PER_REQUEST`, out)
		require.Contains(t, out, "up to date\n")
	})
}

func TestCLIEnvironment(t *testing.T) {
	isolateAWS(t)
	prefix, n := cliPrefix(t)
	other, _ := cliPrefix(t)

	t.Run("prefix and endpoint from the environment", func(t *testing.T) {
		t.Setenv(cli.EnvTablePrefix, prefix)
		t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", dynamotest.Endpoint())
		out, errOut, code := runRyno(t, "migrate", "plan")
		require.Equal(t, 0, code, errOut)
		require.Contains(t, out, "create table "+n.Entities)
	})

	t.Run("the flag wins over the environment", func(t *testing.T) {
		t.Setenv(cli.EnvTablePrefix, prefix)
		out, errOut, code := migrate(t, "plan", other)
		require.Equal(t, 0, code, errOut)
		require.Contains(t, out, "create table "+other+"_entities_master")
		require.NotContains(t, out, prefix)
	})

	t.Run("timeout", func(t *testing.T) {
		_, errOut, code := migrate(t, "status", prefix, "--timeout", "1ns")
		require.Equal(t, 1, code)
		require.Contains(t, errOut, "(after --timeout 1ns)")
	})
}

// TestCLIPITROnDynamoDBLocal: DynamoDB Local has no point-in-time recovery. Up
// with --pitr finds that out before it creates anything, and says so; plan too.
func TestCLIPITROnDynamoDBLocal(t *testing.T) {
	isolateAWS(t)
	prefix, _ := cliPrefix(t)
	for _, cmd := range []string{"plan", "up"} {
		t.Run(cmd, func(t *testing.T) {
			out, errOut, code := migrate(t, cmd, prefix, "--pitr")
			require.Equal(t, 1, code)
			require.Empty(t, out, "nothing done")
			require.Contains(t, errOut, "this endpoint does not support point-in-time recovery (DynamoDB Local does not)")
			require.Empty(t, tablesWithPrefix(t, prefix), "no table created")
		})
	}
	t.Run("up over existing tables", func(t *testing.T) {
		_, errOut, code := migrate(t, "up", prefix)
		require.Equal(t, 0, code, errOut)
		out, errOut, code := migrate(t, "up", prefix, "--pitr", "--update-existing")
		require.Equal(t, 1, code)
		require.Empty(t, out, "nothing done")
		require.Contains(t, errOut, "this endpoint does not support point-in-time recovery (DynamoDB Local does not)")
	})
}

// TestCLIMalformedEndpoint: an endpoint that is not an http or https URL with a
// host is a wrong command line, refused at once, before any attempt.
func TestCLIMalformedEndpoint(t *testing.T) {
	isolateAWS(t)
	for _, endpoint := range []string{"not a url", "ftp://" + strings.TrimPrefix(dynamotest.Endpoint(), "http://"), "localhost:8000"} {
		t.Run(endpoint, func(t *testing.T) {
			start := time.Now()
			out, errOut, code := runRyno(t, "migrate", "status", "--prefix", "app", "--endpoint", endpoint)
			require.Equal(t, 2, code, errOut)
			require.Empty(t, out)
			require.Contains(t, errOut, "--endpoint must be an http or https URL with a host")
			require.Less(t, time.Since(start), time.Second, "refused before any attempt")
		})
	}
}

func TestCLIUsageErrors(t *testing.T) {
	isolateAWS(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "ryno: missing command"},
		{"unknown command", []string{"migrat"}, `ryno: unknown command "migrat"`},
		{"no migrate command", []string{"migrate"}, "ryno: missing migrate command"},
		{"no prefix", []string{"migrate", "up", "--endpoint", dynamotest.Endpoint()}, "ryno: missing table prefix"},
		{"unknown flag", []string{"migrate", "status", "--prefix", "app", "--force"}, "flag provided but not defined: -force"},
		{"bad billing mode", []string{"migrate", "up", "--prefix", "app", "--billing-mode", "free"}, `--billing-mode must be on-demand or provisioned, not "free"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runRyno(t, tt.args...)
			require.Equal(t, 2, code)
			require.Empty(t, out)
			require.Contains(t, errOut, tt.want)
			require.Contains(t, errOut, "Run 'ryno help")
		})
	}
}

// withoutWaits drops the progress lines about waiting, which depend on timing.
func withoutWaits(lines []string) []string {
	var out []string
	for _, l := range lines {
		if !strings.HasPrefix(l, "waiting for ") {
			out = append(out, l)
		}
	}
	return out
}
