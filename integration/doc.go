// Package integration holds the end-to-end tests of the store, the migrations and the
// CLI, run against DynamoDB Local (see package dynamotest). It has no non-test code.
//
// A test that spends seconds on DynamoDB Local on tables of its own calls
// dynamotest.Parallel, so that the package's run overlaps them: it runs in parallel
// on an access key of a small pool, and so on a DynamoDB Local database (and thread)
// other than the sequential tests' one. A test stays sequential when its
// assertions measure time or concurrency against the machine's pace (waves of
// requests, a budget of attempts under the default backoff, a request left in
// flight, sleeps that order calls, a bounded wait for DynamoDB Local to build an
// index), or when it sets the environment (t.Setenv).
package integration
