package rynotest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/rynodb/rynodb/migrations"
	"github.com/rynodb/rynodb/ryno"
)

// EndpointEnv names the environment variable holding the endpoint tests write to,
// such as http://localhost:8000.
const EndpointEnv = "RYNO_DYNAMODB_ENDPOINT"

// Region and the static credentials every client of this package uses. DynamoDB
// Local keeps separate data for each access key and region, so tests and the
// services they start must use the same ones.
const (
	Region    = "us-east-1"
	AccessKey = "local"
	SecretKey = "local"
)

// Endpoint returns the endpoint of EndpointEnv, or fails t.
func Endpoint(t testing.TB) string {
	t.Helper()
	endpoint := os.Getenv(EndpointEnv)
	if endpoint == "" {
		t.Fatalf("rynotest: %s is not set: start DynamoDB Local and set it, such as %s=http://localhost:8000", EndpointEnv, EndpointEnv)
	}
	return endpoint
}

// API returns a DynamoDB client for endpoint with Region and the static credentials.
func API(endpoint string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       Region,
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider(AccessKey, SecretKey, ""),
		// DynamoDB Local sends no CRC32 header with error responses, which the SDK
		// would report as a checksum mismatch (aws/aws-sdk-go-v2#3545).
		DisableValidateResponseChecksum: true,
	})
}

// Tables creates the store's tables under a prefix no other test uses, with the
// migrations (as `ryno migrate up` does), deletes them when t ends, and returns the
// prefix.
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
		t.Fatalf("rynotest: create the tables of %s at %s: %v", prefix, os.Getenv(EndpointEnv), err)
	}
	return prefix
}

// NewPrefix returns a table prefix no other test uses: "t" and 12 random hex digits.
func NewPrefix(t testing.TB) string {
	t.Helper()
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "t" + hex.EncodeToString(b)
}

// New returns a client on tables of t's own, at the endpoint of EndpointEnv, with
// opts (whose TablePrefix it sets). The tables are deleted when t ends.
func New(t testing.TB, opts ryno.Options) *ryno.Client {
	t.Helper()
	api := API(Endpoint(t))
	opts.TablePrefix = Tables(t, api)
	db, err := ryno.New(api, opts)
	if err != nil {
		t.Fatal(err)
	}
	return db
}
