package integration_test

import (
	"os"
	"testing"

	"github.com/rynodb/rynodb/integration/dynamotest"
)

func TestMain(m *testing.M) {
	if spec := os.Getenv(crashWorkerEnv); spec != "" {
		os.Exit(runCrashWorker(spec)) // a process of the crash test, not a test run
	}
	if spec := os.Getenv(importWorkerEnv); spec != "" {
		os.Exit(runImportWorker(spec)) // a process of the import kill test
	}
	os.Exit(dynamotest.Main(m))
}
