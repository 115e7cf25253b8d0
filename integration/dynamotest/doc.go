// Package dynamotest runs tests against DynamoDB Local.
//
// A test package starts one DynamoDB Local container for all its tests from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(dynamotest.Main(m)) }
//
// and each test then asks for a client and a fresh set of tables:
//
//	api := dynamotest.API(t)
//	prefix := dynamotest.Tables(t, api)
//
// The container is started with testcontainers-go from the image named by
// RYNO_DYNAMODB_IMAGE (default amazon/dynamodb-local:3.3.1). RYNO_DYNAMODB_ENDPOINT
// points the tests at an endpoint that is already running instead. When neither works,
// the package's tests are skipped with one line, unless RYNO_REQUIRE_DYNAMODB is set
// (as `make test` does), in which case they fail.
package dynamotest
