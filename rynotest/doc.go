// Package rynotest gives each test of a service using RynoDB its own tables on
// DynamoDB Local (or any DynamoDB endpoint a test may write to), created with the
// store's migrations under a fresh table prefix and deleted when the test ends.
//
// It starts nothing: point RYNO_DYNAMODB_ENDPOINT at a running DynamoDB Local (for
// instance `docker run -p 8000:8000 amazon/dynamodb-local:3.3.1`, or the project's
// scripts/dynamodb-local.sh) and call New from each test:
//
//	func TestSignup(t *testing.T) {
//		db := rynotest.New(t, ryno.Options{Indexes: myIndexes})
//		// db writes to tables of this test only
//	}
//
// New and Tables take the options of `ryno migrate up` too: a test of a stream
// consumer turns the tables' streams on with
//
//	db := rynotest.New(t, ryno.Options{}, migrations.Options{Streams: true})
//
// DynamoDB Local keeps separate data for each access key and region. The clients
// of this package take both from the environment, as the SDK's default
// configuration does (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION or
// AWS_DEFAULT_REGION), and fall back to Region, AccessKey and SecretKey: a client
// the service under test builds from the same environment sees the same tables.
//
// Without RYNO_DYNAMODB_ENDPOINT, New fails the test with a message saying so: a
// test that cannot reach its database has not passed.
package rynotest
