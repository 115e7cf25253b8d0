package dynamotest

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/rynodb/rynodb/rynotest"
)

// Region and static credentials used for DynamoDB Local where the environment
// names none: those of package rynotest, which DynamoDB Local keeps apart from any
// other.
const (
	Region    = rynotest.Region
	AccessKey = rynotest.AccessKey
	SecretKey = rynotest.SecretKey
)

// NewAPI returns a DynamoDB client for endpoint with rynotest's credentials and
// region: the environment's, or the constants above.
func NewAPI(endpoint string) *dynamodb.Client { return rynotest.API(endpoint) }

// API returns a client for the DynamoDB Local started by Main, with the access key
// of t (see Parallel).
func API(t testing.TB) *dynamodb.Client {
	t.Helper()
	if endpoint == "" {
		t.Fatal("dynamotest: no endpoint; call dynamotest.Main from TestMain")
	}
	return apiFor(t, endpoint)
}

// NewPrefix returns a table prefix no other test uses.
func NewPrefix(t testing.TB) string { return rynotest.NewPrefix(t) }

// Tables creates the store's tables under a fresh prefix with the migrations, as
// `ryno migrate up` does, deletes them when the test ends, and returns the prefix.
func Tables(t testing.TB, api *dynamodb.Client) string { return rynotest.Tables(t, api) }
