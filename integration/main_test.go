package integration_test

import (
	"os"
	"testing"

	"github.com/rynodb/rynodb/integration/dynamotest"
)

// workers are the processes the test binary runs instead of tests, by the
// environment variable holding their spec: files built with tags add theirs.
var workers = map[string]func(spec string) int{
	crashWorkerEnv:  runCrashWorker,  // a process of the crash test
	importWorkerEnv: runImportWorker, // a process of the import kill test
}

func TestMain(m *testing.M) {
	for env, run := range workers {
		if spec := os.Getenv(env); spec != "" {
			os.Exit(run(spec)) // a worker process, not a test run
		}
	}
	os.Exit(dynamotest.Main(m))
}
