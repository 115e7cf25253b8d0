// Package batching is the store's batch engine: it sends any number of reads and
// writes as BatchGetItem and BatchWriteItem requests, within DynamoDB's limits (100
// keys and 16 MB a read, 25 items a write, no key twice in one request), chunks in
// parallel up to a bound, and retries what DynamoDB leaves unprocessed, or refuses
// for throttling, with full-jitter backoff until it is done or the retry budget or
// the context ends. It never drops an item: what it could not finish is named in an
// *Error (ryno.BatchError).
//
// It also holds what the store's other requests share with it: the retry Policy
// (ryno.RetryOptions), the classification of throttling (IsThrottle,
// RetryableCancellation), UntilDone, the retry loop any request can use, Attempts,
// the optimistic loop of a write that may lose races, with Pacer, which spaces its
// attempts, and Parallel, the bounded fan-out of the calls.
//
// It needs only the SDK: it imports nothing of the store but packages schema and
// errs, and package ryno reports its retries through Engine.Retrying.
package batching
