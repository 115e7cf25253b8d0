// Package integration holds the end-to-end tests of the store, the migrations and the
// CLI, run against DynamoDB Local (see package dynamotest). It has no non-test code.
package integration
