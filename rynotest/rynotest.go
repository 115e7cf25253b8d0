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

// Region and the static credentials a client of this package uses where the
// environment names none (see API).
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

// API returns a DynamoDB client for endpoint with the credentials and region of the
// environment, as the SDK's default configuration reads them: AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY (with AWS_SESSION_TOKEN) when both are set, else AccessKey
// and SecretKey; AWS_REGION, else AWS_DEFAULT_REGION, else Region. DynamoDB Local
// keeps separate data for each access key and region, so a client that a service
// under test builds from the same environment sees the tables this one creates.
func API(endpoint string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       region(),
		BaseEndpoint: aws.String(endpoint),
		Credentials:  staticCredentials(),
		// DynamoDB Local sends no CRC32 header with error responses, which the SDK
		// would report as a checksum mismatch (aws/aws-sdk-go-v2#3545).
		DisableValidateResponseChecksum: true,
	})
}

// region returns the region of the environment, or Region.
func region() string {
	for _, name := range []string{"AWS_REGION", "AWS_DEFAULT_REGION"} {
		if r := os.Getenv(name); r != "" {
			return r
		}
	}
	return Region
}

// staticCredentials returns the credentials of the environment, or AccessKey and
// SecretKey. Like the SDK, it takes a key from the environment only with its secret.
func staticCredentials() credentials.StaticCredentialsProvider {
	id, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
	if id == "" || secret == "" {
		return credentials.NewStaticCredentialsProvider(AccessKey, SecretKey, "")
	}
	return credentials.NewStaticCredentialsProvider(id, secret, os.Getenv("AWS_SESSION_TOKEN"))
}

// Tables creates the store's tables under a prefix no other test uses, with the
// migrations (as `ryno migrate up` does), deletes them when t ends, and returns the
// prefix. mig, at most one, sets the options `ryno migrate up` takes as flags, such
// as migrations.Options{Streams: true} for a test of a stream consumer; Tables sets
// its TablePrefix, and a PollInterval of 20ms when it has none. It sends what
// migrations' Provider.Up sends on a new prefix (a CreateTable per table, DescribeTable
// until each is ACTIVE, the data steps' Scans of the empty tables, the time to live
// and the schema version), and one DeleteTable per table when t ends.
func Tables(t testing.TB, api *dynamodb.Client, mig ...migrations.Options) string {
	t.Helper()
	opts := migrationOptions(t, mig)
	opts.TablePrefix = NewPrefix(t)
	p, err := migrations.NewProvider(api, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dropTables(api, p.Names().Tables(), opts.DeletionProtection) })
	if _, err := p.Up(context.Background()); err != nil {
		t.Fatalf("rynotest: create the tables of %s at %s: %v", opts.TablePrefix, os.Getenv(EndpointEnv), err)
	}
	return opts.TablePrefix
}

// migrationOptions returns the one element of mig, or none, with its defaults.
func migrationOptions(t testing.TB, mig []migrations.Options) migrations.Options {
	t.Helper()
	var opts migrations.Options
	switch len(mig) {
	case 0:
	case 1:
		opts = mig[0]
	default:
		t.Fatalf("rynotest: %d migrations.Options given; give at most one", len(mig))
	}
	if opts.PollInterval == 0 {
		opts.PollInterval = 20 * time.Millisecond
	}
	return opts
}

// dropTables deletes the tables named, turning their deletion protection off first
// when the test turned it on.
func dropTables(api *dynamodb.Client, names []string, protected bool) {
	ctx := context.Background()
	for _, name := range names {
		if protected {
			_, _ = api.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), DeletionProtectionEnabled: aws.Bool(false)})
		}
		_, _ = api.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	}
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
// opts (whose TablePrefix it sets) and the credentials and region of API. The
// tables are created as Tables creates them, with mig, and deleted when t ends:
//
//	db := rynotest.New(t, ryno.Options{}, migrations.Options{Streams: true})
func New(t testing.TB, opts ryno.Options, mig ...migrations.Options) *ryno.Client {
	t.Helper()
	api := API(Endpoint(t))
	opts.TablePrefix = Tables(t, api, mig...)
	db, err := ryno.New(api, opts)
	if err != nil {
		t.Fatal(err)
	}
	return db
}
