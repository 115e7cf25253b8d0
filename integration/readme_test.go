package integration_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/migrations"
)

// quickstart matches the README's quickstart: the Go block after the heading that
// is a whole program, and the output the README says it prints.
var (
	quickstartBlock  = regexp.MustCompile("(?s)\n## Quickstart\n.*?\n```go\n(package main\n.*?)```\n")
	quickstartPrints = regexp.MustCompile("(?s)\n## Quickstart\n.*?It prints `([^`]+)`")
)

// TestTheREADMEQuickstartRuns runs the quickstart as the README shows it, read
// from README.md now, not a copy: `go run` of the block in a directory of this
// module (the "_" keeps it out of ./...), against DynamoDB Local, after the tables
// the README creates with `ryno migrate up --prefix myapp`. The program finds
// DynamoDB Local as the README says, from the SDK's environment; an access key of
// its own keeps its "myapp" tables apart from any other test's.
func TestTheREADMEQuickstartRuns(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	require.NoError(t, err)
	block := quickstartBlock.FindSubmatch(readme)
	require.NotNil(t, block, "README.md has a Quickstart section with a Go program")
	prints := quickstartPrints.FindSubmatch(readme)
	require.NotNil(t, prints, "README.md says what the quickstart prints")

	dir, err := os.MkdirTemp(".", "_readme_quickstart")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), block[1], 0o644))

	key := make([]byte, 8)
	_, err = rand.Read(key)
	require.NoError(t, err)
	accessKey := "readme" + hex.EncodeToString(key) // DynamoDB Local takes letters and digits
	const secret, region = "local", "us-east-1"
	api := dynamodb.New(dynamodb.Options{
		Region:                          region,
		BaseEndpoint:                    aws.String(dynamotest.Endpoint()),
		Credentials:                     credentials.NewStaticCredentialsProvider(accessKey, secret, ""),
		DisableValidateResponseChecksum: true,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	p, err := migrations.NewProvider(api, migrations.Options{TablePrefix: "myapp", PollInterval: 20 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() {
		for _, name := range p.Names().Tables() {
			_, _ = api.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		}
	})
	_, err = p.Up(ctx)
	require.NoError(t, err)

	cmd := exec.CommandContext(ctx, "go", "run", ".")
	cmd.Dir = dir
	cmd.Env = append(withoutAWS(os.Environ()),
		"AWS_ENDPOINT_URL_DYNAMODB="+dynamotest.Endpoint(), "AWS_REGION="+region,
		"AWS_ACCESS_KEY_ID="+accessKey, "AWS_SECRET_ACCESS_KEY="+secret,
		"AWS_CONFIG_FILE="+os.DevNull, "AWS_SHARED_CREDENTIALS_FILE="+os.DevNull, "AWS_EC2_METADATA_DISABLED=true")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "go run of the README's quickstart: %s", stderr.String())
	require.Equal(t, string(prints[1])+"\n", stdout.String(), "what the README says the quickstart prints")
}

// withoutAWS returns env without the AWS SDK's settings, so that the program sees
// only those the test gives it.
func withoutAWS(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "AWS_") {
			out = append(out, kv)
		}
	}
	return out
}
