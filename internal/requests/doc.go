// Package requests holds the clients the store's requests pass through on their way
// to DynamoDB, outermost first:
//
//   - Reads retries the single reads DynamoDB throttles (GetItem, Query, Scan), within
//     the retry policy;
//   - Missing turns DynamoDB's ResourceNotFoundException into a *TableNotFoundError
//     naming the table (ryno.TableNotFoundError);
//   - Observed, on an observed client only, records each request, its attempts,
//     throttling, unprocessed items and consumed capacity with the Recorder the
//     request's context carries (package ryno's call).
//
// Each is an API, the method set of ryno.DynamoDBAPI, wrapping another. The package
// needs only the SDK and package batching: it imports nothing of the store above it.
package requests
