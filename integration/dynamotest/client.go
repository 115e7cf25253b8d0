package dynamotest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/rynodb/rynodb/migrations"
)

// Region and static credentials used for DynamoDB Local. Without -sharedDb, DynamoDB
// Local keeps separate data per access key and region, so everything uses these.
const (
	Region    = "us-east-1"
	AccessKey = "local"
	SecretKey = "local"
)

// NewAPI returns a DynamoDB client for endpoint with the static test credentials.
func NewAPI(endpoint string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       Region,
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider(AccessKey, SecretKey, ""),
		// DynamoDB Local sends no CRC32 header with error responses, which the SDK
		// would report as a checksum mismatch (aws/aws-sdk-go-v2#3545).
		DisableValidateResponseChecksum: true,
	})
}

// API returns a client for the DynamoDB Local started by Main.
func API(t testing.TB) *dynamodb.Client {
	t.Helper()
	if endpoint == "" {
		t.Fatal("dynamotest: no endpoint; call dynamotest.Main from TestMain")
	}
	return NewAPI(endpoint)
}

// NewPrefix returns a table prefix no other test uses.
func NewPrefix(t testing.TB) string {
	t.Helper()
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "t" + hex.EncodeToString(b)
}

// Tables creates the store's tables under a fresh prefix with the migrations, as
// `ryno migrate up` does, deletes them when the test ends, and returns the prefix.
func Tables(t testing.TB, api *dynamodb.Client) string {
	t.Helper()
	prefix := NewPrefix(t)
	p, err := migrations.NewProvider(api, migrations.Options{TablePrefix: prefix, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, name := range p.Names().Tables() {
			_, _ = api.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		}
	})
	if _, err := p.Up(context.Background()); err != nil {
		t.Fatalf("create the tables of %s: %v", prefix, err)
	}
	return prefix
}
