package dynamotest

import (
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// parallelKeys is the number of access keys handed out to parallel tests. DynamoDB
// Local keeps a database for each access key and serves each with one thread of its
// own, which bounds a run on one key; a few keys spread the parallel tests over a few
// threads.
const parallelKeys = 4

var keys struct {
	mu     sync.Mutex
	next   int
	byTest map[string]string // the access key of each parallel test, by its name
}

// Parallel marks t as a test that runs in parallel with others (t.Parallel) and
// hands it the next access key of a small pool in turn. API(t), with t or any of its
// subtests, then returns a client with that key: the test's tables live in the
// database of that key, apart from those of the sequential tests, which keep
// rynotest's credentials. A test whose tables something else reads with the default
// credentials (the CLI, a worker process) must not call Parallel.
func Parallel(t *testing.T) {
	t.Helper()
	keys.mu.Lock()
	if keys.byTest == nil {
		keys.byTest = map[string]string{}
	}
	keys.byTest[t.Name()] = "parallel" + strconv.Itoa(keys.next%parallelKeys) // letters and digits only
	keys.next++
	keys.mu.Unlock()
	t.Parallel()
}

// accessKey returns the access key Parallel handed to t or to the test t is a
// subtest of, and false for a test that did not call Parallel.
func accessKey(t testing.TB) (string, bool) {
	keys.mu.Lock()
	defer keys.mu.Unlock()
	for name := t.Name(); ; {
		if key, ok := keys.byTest[name]; ok {
			return key, true
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			return "", false
		}
		name = name[:i]
	}
}

// apiFor returns a client for endpoint with the access key of t: the one Parallel
// handed it, or rynotest's.
func apiFor(t testing.TB, endpoint string) *dynamodb.Client {
	key, ok := accessKey(t)
	if !ok {
		return NewAPI(endpoint)
	}
	return dynamodb.New(NewAPI(endpoint).Options(), func(o *dynamodb.Options) {
		o.Credentials = credentials.NewStaticCredentialsProvider(key, SecretKey, "")
	})
}
