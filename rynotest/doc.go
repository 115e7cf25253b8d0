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
// Without the variable, New fails the test with a message saying so: a test that
// cannot reach its database has not passed.
package rynotest
