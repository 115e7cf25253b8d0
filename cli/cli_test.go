package cli

import (
	"bytes"
	"context"
	"io"
	"log"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/migrations"
	"github.com/rynodb/rynodb/ryno"
)

// run runs the CLI with the environment env instead of the process's.
func run(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	r := &runner{stdout: &out, stderr: &errOut, getenv: func(k string) string { return env[k] }}
	code = r.exit(r.run(context.Background(), args))
	return out.String(), errOut.String(), code
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // on stderr, after "ryno: "
		help string // the command named in the hint
	}{
		{"no command", nil, "missing command", ""},
		{"unknown command", []string{"migrations"}, `unknown command "migrations"`, ""},
		{"version with argument", []string{"version", "x"}, `version takes no arguments, got "x"`, ""},
		{"help for nothing", []string{"help", "bogus"}, `no help for "bogus"`, ""},
		{"no migrate command", []string{"migrate"}, "missing migrate command: up, plan, status, down or export", "migrate"},
		{"unknown migrate command", []string{"migrate", "sideways"}, `unknown migrate command "sideways"`, "migrate"},
		{"no prefix", []string{"migrate", "up"}, "missing table prefix: set --prefix or RYNO_TABLE_PREFIX", "migrate up"},
		{"invalid prefix", []string{"migrate", "plan", "--prefix", "my app"}, `invalid table prefix "my app": has ' ' at byte 2`, "migrate plan"},
		{"unknown flag", []string{"migrate", "status", "--prefix", "app", "--yes"}, "flag provided but not defined: -yes", "migrate status"},
		{"flag without value", []string{"migrate", "status", "--prefix"}, "flag needs an argument: -prefix", "migrate status"},
		{"billing flag on down", []string{"migrate", "down", "--prefix", "app", "--billing-mode", "provisioned"}, "flag provided but not defined: -billing-mode", "migrate down"},
		{"extra argument", []string{"migrate", "up", "--prefix", "app", "now"}, `unexpected argument "now"`, "migrate up"},
		{"bad billing mode", []string{"migrate", "up", "--prefix", "app", "--billing-mode", "cheap"}, `--billing-mode must be on-demand or provisioned, not "cheap"`, "migrate up"},
		{"provisioned without capacity", []string{"migrate", "up", "--prefix", "app", "--billing-mode", "provisioned", "--read-capacity", "5"},
			"--billing-mode provisioned needs --read-capacity and --write-capacity of at least 1", "migrate up"},
		{"capacity without provisioned", []string{"migrate", "plan", "--prefix", "app", "--write-capacity", "5"},
			"--read-capacity and --write-capacity need --billing-mode provisioned", "migrate plan"},
		{"bad timeout", []string{"migrate", "status", "--prefix", "app", "--timeout", "0s"}, "--timeout must be positive", "migrate status"},
		{"no segments", []string{"check", "--prefix", "app", "--segments", "0"}, "--segments must be between 1 and 1000", "check"},
		{"too many segments", []string{"check", "--prefix", "app", "--segments", "1001"}, "--segments must be between 1 and 1000", "check"},
		{"reindex in the stock command", []string{"reindex", "--prefix", "app", "--scope", "acme"}, "reindex runs the application's map functions", "reindex"},
		{"bad sse", []string{"migrate", "up", "--prefix", "app", "--sse", "aes"}, `--sse must be aws-owned or kms, not "aes"`, "migrate up"},
		{"kms key without kms", []string{"migrate", "plan", "--prefix", "app", "--kms-key", testKey}, "--kms-key needs --sse kms", "migrate plan"},
		{"kms key not an ARN", []string{"migrate", "status", "--prefix", "app", "--sse", "kms", "--kms-key", "alias/mine"},
			"--kms-key must be the ARN of a KMS key, arn:aws:kms:REGION:ACCOUNT:key/ID", "migrate status"},
		{"update-existing on down", []string{"migrate", "down", "--prefix", "app", "--update-existing"}, "flag provided but not defined: -update-existing", "migrate down"},
		{"export without format", []string{"migrate", "export", "--prefix", "app"}, "missing --format: use cloudformation, terraform, json", "migrate export"},
		{"export to an unknown format", []string{"migrate", "export", "--prefix", "app", "--format", "yaml"},
			`unknown --format "yaml": use cloudformation, terraform, json`, "migrate export"},
		{"export without prefix", []string{"migrate", "export", "--format", "json"}, "missing table prefix: set --prefix or RYNO_TABLE_PREFIX", "migrate export"},
		{"export with an invalid prefix", []string{"migrate", "export", "--prefix", "my app", "--format", "json"}, `invalid table prefix "my app"`, "migrate export"},
		{"export kms key without kms", []string{"migrate", "export", "--prefix", "app", "--format", "terraform", "--kms-key", testKey},
			"--kms-key needs --sse kms", "migrate export"},
		{"export connects to nothing", []string{"migrate", "export", "--prefix", "app", "--format", "json", "--endpoint", "http://localhost:8000"},
			"flag provided but not defined: -endpoint", "migrate export"},
		{"export updates nothing", []string{"migrate", "export", "--prefix", "app", "--format", "json", "--update-existing"},
			"flag provided but not defined: -update-existing", "migrate export"},
		{"export bad billing", []string{"migrate", "export", "--prefix", "app", "--format", "json", "--billing-mode", "provisioned"},
			"--billing-mode provisioned needs --read-capacity and --write-capacity of at least 1", "migrate export"},
		{"policy without prefix", []string{"iam-policy"}, "missing table prefix: set --prefix or RYNO_TABLE_PREFIX", "iam-policy"},
		{"policy with an invalid prefix", []string{"iam-policy", "--prefix", "a/b"}, `invalid table prefix "a/b"`, "iam-policy"},
		{"policy bad account", []string{"iam-policy", "--prefix", "app", "--account", "12345"}, `--account must be a 12-digit AWS account ID, not "12345"`, "iam-policy"},
		{"policy bad region", []string{"iam-policy", "--prefix", "app", "--region", "*"}, `--region must be an AWS region such as us-east-1, not "*"`, "iam-policy"},
		{"policy extra argument", []string{"iam-policy", "--prefix", "app", "now"}, `unexpected argument "now"`, "iam-policy"},
		{"policy has no timeout", []string{"iam-policy", "--prefix", "app", "--timeout", "1s"}, "flag provided but not defined: -timeout", "iam-policy"},
		{"endpoint not a URL", []string{"migrate", "status", "--prefix", "app", "--endpoint", "not a url"},
			`--endpoint must be an http or https URL with a host, such as http://localhost:8000, not "not a url"`, "migrate status"},
		{"endpoint of another scheme", []string{"migrate", "up", "--prefix", "app", "--endpoint", "ftp://localhost:8000"},
			`--endpoint must be an http or https URL with a host, such as http://localhost:8000, not "ftp://localhost:8000"`, "migrate up"},
		{"endpoint without a scheme", []string{"check", "--prefix", "app", "--endpoint", "localhost:8000"},
			`--endpoint must be an http or https URL with a host, such as http://localhost:8000, not "localhost:8000"`, "check"},
		{"endpoint without a host", []string{"migrate", "plan", "--prefix", "app", "--endpoint", "http://"},
			`--endpoint must be an http or https URL with a host, such as http://localhost:8000, not "http://"`, "migrate plan"},
		{"endpoint with a path only", []string{"migrate", "down", "--prefix", "app", "--endpoint", "http:/dynamodb"},
			`--endpoint must be an http or https URL with a host, such as http://localhost:8000, not "http:/dynamodb"`, "migrate down"},
		{"endpoint with a bad port", []string{"migrate", "status", "--prefix", "app", "--endpoint", "http://localhost:port"},
			`--endpoint must be an http or https URL with a host, such as http://localhost:8000, not "http://localhost:port"`, "migrate status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, nil, tt.args...)
			require.Equal(t, ExitUsage, code)
			require.Empty(t, out)
			lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
			require.Len(t, lines, 2, errOut)
			require.True(t, strings.HasPrefix(lines[0], "ryno: "+tt.want), "stderr: %s", errOut)
			require.Equal(t, "Run 'ryno help"+prefixSpace(tt.help)+"' for usage.", lines[1])
		})
	}
}

func TestMalformedEndpointInTheEnvironment(t *testing.T) {
	for _, env := range []string{"AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL"} {
		t.Run(env, func(t *testing.T) {
			out, errOut, code := run(t, map[string]string{env: "ftp://localhost"}, "migrate", "status", "--prefix", "app")
			require.Equal(t, ExitUsage, code)
			require.Empty(t, out)
			require.Contains(t, errOut, "ryno: "+env+` must be an http or https URL with a host, such as http://localhost:8000, not "ftp://localhost"`)
		})
	}
}

func TestMissingRegion(t *testing.T) {
	none := filepath.Join(t.TempDir(), "none")
	t.Setenv("AWS_CONFIG_FILE", none)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", none)
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	t.Setenv("AWS_ENDPOINT_URL", "")
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", "")

	_, errOut, code := run(t, nil, "migrate", "status", "--prefix", "app")
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errOut, "ryno: missing AWS region: set --region or AWS_REGION\n")
}

func TestHelp(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"help", []string{"help"}, []string{"ryno provisions", "Migrate commands:", "  up ", "  down ", "Exit status:"}},
		{"--help", []string{"--help"}, []string{"Migrate commands:"}},
		{"help migrate", []string{"help", "migrate"}, []string{"Migrate commands:"}},
		{"migrate help", []string{"migrate", "help"}, []string{"Migrate commands:"}},
		{"help migrate up", []string{"help", "migrate", "up"}, []string{
			"Usage: ryno migrate up [flags]", "--billing-mode string", "(default on-demand)", "--timeout duration", `access key "local"`}},
		{"migrate down -h", []string{"migrate", "down", "-h"}, []string{"Usage: ryno migrate down [flags]", "--delete-all-data "}},
		{"migrate status --help", []string{"migrate", "status", "--help"}, []string{"Usage: ryno migrate status [flags]"}},
		{"help check", []string{"help", "check"}, []string{"Usage: ryno check [flags]", "--repair "}},
		{"help reindex", []string{"help", "reindex"}, []string{"Usage: ryno reindex [flags]", "--scope scope", "--type type", "cli.Run with Config.Indexes"}},
		{"reindex -h", []string{"reindex", "-h"}, []string{"Usage: ryno reindex [flags]"}},
		{"help lists the new commands", []string{"help"}, []string{"  export ", "  iam-policy ", "ryno migrate export --format", "ryno iam-policy [--account"}},
		{"help migrate export", []string{"help", "migrate", "export"}, []string{
			"Usage: ryno migrate export [flags]", "--format format", "--pitr ", "--deletion-protection ", "--streams ", "--sse string", "--kms-key ARN",
			"--billing-mode string", "Exit status: 0 on success; 2 on"}},
		{"migrate export -h", []string{"migrate", "export", "-h"}, []string{"Usage: ryno migrate export [flags]"}},
		{"help migrate up has the settings", []string{"help", "migrate", "up"}, []string{"--pitr ", "--update-existing ", "--sse string"}},
		{"help iam-policy", []string{"help", "iam-policy"}, []string{
			"Usage: ryno iam-policy [flags]", "--account ID", "--region region", "--migrations ", "dynamodb:PutItem, UpdateItem, DeleteItem and ConditionCheckItem"}},
		{"iam-policy --help", []string{"iam-policy", "--help"}, []string{"Usage: ryno iam-policy [flags]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, nil, tt.args...)
			require.Equal(t, ExitOK, code, errOut)
			require.Empty(t, errOut)
			for _, w := range tt.want {
				require.Contains(t, out, w)
			}
		})
	}
	t.Run("down has no billing flags", func(t *testing.T) {
		out, _, _ := run(t, nil, "help", "migrate", "down")
		require.NotContains(t, out, "--billing-mode")
	})
	for _, args := range [][]string{{"help", "migrate", "export"}, {"help", "iam-policy"}} {
		t.Run(strings.Join(args[1:], " ")+" connects to nothing", func(t *testing.T) {
			out, _, _ := run(t, nil, args...)
			require.NotContains(t, out, "--endpoint")
			require.NotContains(t, out, "--timeout")
			require.NotContains(t, out, "Credentials and region")
		})
	}
}

func TestVersion(t *testing.T) {
	out, errOut, code := run(t, nil, "version")
	require.Equal(t, ExitOK, code, errOut)
	require.Regexp(t, `^ryno \S+, schema version 4\n$`, out)
}

func TestParsePrecedence(t *testing.T) {
	up := findMigrateCommand("up")
	tests := []struct {
		name   string
		env    map[string]string
		args   []string
		prefix string
	}{
		{"flag", nil, []string{"--prefix", "flag"}, "flag"},
		{"environment", map[string]string{EnvTablePrefix: "env"}, nil, "env"},
		{"flag over environment", map[string]string{EnvTablePrefix: "env"}, []string{"--prefix", "flag"}, "flag"},
		{"single dash", nil, []string{"-prefix=flag"}, "flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &runner{getenv: func(k string) string { return tt.env[k] }}
			s, err := r.parse(up, tt.args)
			require.NoError(t, err)
			require.Equal(t, tt.prefix, s.prefix)
			require.Equal(t, defaultTimeout, s.timeout)
			require.Equal(t, defaultBillingMode, s.billingMode)
		})
	}
}

func TestBilling(t *testing.T) {
	tests := []struct {
		s    settings
		want schema.Billing
	}{
		{settings{billingMode: "on-demand"}, schema.Billing{}},
		{settings{billingMode: "PAY_PER_REQUEST"}, schema.Billing{}},
		{settings{billingMode: "provisioned", readCapacity: 2, writeCapacity: 3},
			schema.Billing{Mode: types.BillingModeProvisioned, ReadCapacity: 2, WriteCapacity: 3}},
		{settings{billingMode: "PROVISIONED", readCapacity: 1, writeCapacity: 1},
			schema.Billing{Mode: types.BillingModeProvisioned, ReadCapacity: 1, WriteCapacity: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.s.billingMode, func(t *testing.T) {
			got, err := tt.s.billing()
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
			require.NoError(t, got.Validate())
		})
	}
}

func TestIsLoopback(t *testing.T) {
	tests := []struct {
		endpoint string
		want     bool
	}{
		{"http://localhost:8000", true},
		{"http://127.0.0.1:8000", true},
		{"http://127.0.0.2", true},
		{"http://[::1]:8000", true},
		{"https://dynamodb.us-east-1.amazonaws.com", false},
		{"http://10.0.0.1:8000", false},
		{"http://localhost.example.com", false},
		{"localhost:8000", false}, // no scheme: not a URL the SDK accepts either
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.endpoint, func(t *testing.T) {
			require.Equal(t, tt.want, isLoopback(tt.endpoint))
		})
	}
}

func TestCount(t *testing.T) {
	require.Equal(t, "1 table", count(1, "table"))
	require.Equal(t, "3 tables", count(3, "table"))
	require.Equal(t, "0 actions", count(0, "action"))
	require.Equal(t, "1 entity", count(1, "entity"))
	require.Equal(t, "2 entities", count(2, "entity"))
}

func TestCheckSummary(t *testing.T) {
	const checked = "checked 5 relationship and 2 index entries: "
	tests := []struct {
		p    ryno.CheckProgress
		want string
	}{
		{ryno.CheckProgress{}, "no orphans"},
		{ryno.CheckProgress{Orphans: 1}, "1 orphan found; run with --repair to delete them"},
		{ryno.CheckProgress{Orphans: 3, Repaired: 3}, "3 orphans found, 3 deleted"},
		{ryno.CheckProgress{Orphans: 3, Repaired: 2, Kept: 1}, "3 orphans found, 2 deleted, 1 kept as their entity exists by now"},
		{ryno.CheckProgress{Traces: 2}, "2 traces of writes cut off found (--repair finishes them); no orphans"},
		{ryno.CheckProgress{Traces: 1, Finished: 1, Orphans: 4, Repaired: 4}, "1 trace of writes cut off found, 1 finished; 4 orphans found, 4 deleted"},
	}
	for _, tt := range tests {
		tt.p.Relationships, tt.p.IndexEntries = 5, 2
		require.Equal(t, checked+tt.want, checkSummary(tt.p))
	}
}

func TestProgressLineOnlyOnATerminal(t *testing.T) {
	for _, terminal := range []bool{false, true} {
		var errOut bytes.Buffer
		r := &runner{stderr: &errOut, isTerminal: func(io.Writer) bool { return terminal }}
		p := r.progressLine()
		p.clear() // nothing shown yet: writes nothing
		p.show("one")
		p.show("two")
		p.clear()
		p.clear()
		want := ""
		if terminal {
			want = "\r\x1b[Kone\r\x1b[Ktwo\r\x1b[K"
		}
		require.Equal(t, want, errOut.String(), "terminal: %v", terminal)
	}
}

// failingCreates stands in for DynamoDB in front of migrate up: it creates tables
// at once, ACTIVE, except that its create numbered failAt fails.
type failingCreates struct {
	migrations.API // nil: other operations are not expected

	mu      sync.Mutex
	created map[string]bool
	creates int
	failAt  int
}

func (f *failingCreates) DescribeTable(_ context.Context, in *dynamodb.DescribeTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.created[aws.ToString(in.TableName)] {
		return nil, &types.ResourceNotFoundException{Message: aws.String("Requested resource not found")}
	}
	return &dynamodb.DescribeTableOutput{Table: &types.TableDescription{TableName: in.TableName, TableStatus: types.TableStatusActive}}, nil
}

func (f *failingCreates) CreateTable(_ context.Context, in *dynamodb.CreateTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.creates++; f.creates == f.failAt {
		return nil, &types.LimitExceededException{Message: aws.String("too many tables")}
	}
	f.created[aws.ToString(in.TableName)] = true
	return &dynamodb.CreateTableOutput{}, nil
}

func TestUpSaysWhatItLeftUndone(t *testing.T) {
	var out, errOut bytes.Buffer
	r := &runner{stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
	p, err := migrations.NewProvider(&failingCreates{created: map[string]bool{}, failAt: 2}, migrations.Options{
		TablePrefix: "app", PollInterval: time.Millisecond, Logger: log.New(&out, "", 0)})
	require.NoError(t, err)

	code := r.exit(runUp(context.Background(), r, p, &settings{}))
	require.Equal(t, ExitError, code)
	require.Equal(t, "create table app_entities_master (GSI app_entities_by_type, GSI app_entities_by_type_shard, GSI app_entities_inline_1, GSI app_entities_inline_2)\n"+
		"create table app_relationship_entries (GSI app_incoming_relationships, GSI app_incoming_shard, LSI app_relationships_by_object)\n", out.String())
	lines := strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n")
	require.Equal(t, []string{
		"up stopped; done:",
		"  create table app_entities_master (GSI app_entities_by_type, GSI app_entities_by_type_shard, GSI app_entities_inline_1, GSI app_entities_inline_2)",
		"not done:",
		"  create table app_relationship_entries (GSI app_incoming_relationships, GSI app_incoming_shard, LSI app_relationships_by_object)",
		"  create table app_index_entries (GSI app_index_lookup)",
		"  turn on time to live (attribute _expires) on table app_entities_master",
		"  run migration 2: build the heads and markers of relationship lists written before them",
		"  run migration 3: give every relationship entry its _reverse_key, the sort key of the reverse index replacing reverse_relationships",
		"  record schema version 4",
		`run "ryno migrate up" again to do the rest once the cause below is fixed`,
	}, lines[:len(lines)-1])
	require.Regexp(t, `^ryno: create table app_relationship_entries .*too many tables`, lines[len(lines)-1])
}

// TestAnEndpointFromTheEnvironmentIsUsedEvenWhenTheSDKIgnoresIt sets the endpoint
// in AWS_ENDPOINT_URL_DYNAMODB with AWS_IGNORE_CONFIGURED_ENDPOINT_URLS on: the run
// treats the endpoint as local (region and credentials for DynamoDB Local), so its
// client must send there, not to the SDK's AWS endpoint.
func TestAnEndpointFromTheEnvironmentIsUsedEvenWhenTheSDKIgnoresIt(t *testing.T) {
	t.Setenv("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "true")
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", "http://localhost:8000")
	t.Setenv("AWS_REGION", "")
	env := map[string]string{"AWS_ENDPOINT_URL_DYNAMODB": "http://localhost:8000"}
	r := &runner{getenv: func(k string) string { return env[k] }}
	client, err := r.newClient(context.Background(), &command{name: "status"}, &settings{})
	require.NoError(t, err)
	require.Equal(t, "http://localhost:8000", aws.ToString(client.Options().BaseEndpoint))
	require.Equal(t, localRegion, client.Options().Region)
}
