package dynamotest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
	tcdynamodb "github.com/testcontainers/testcontainers-go/modules/dynamodb"
)

// Environment variables read by Main.
const (
	EnvEndpoint = "RYNO_DYNAMODB_ENDPOINT" // use this endpoint instead of starting a container
	EnvImage    = "RYNO_DYNAMODB_IMAGE"    // the DynamoDB Local image to start
	EnvRequire  = "RYNO_REQUIRE_DYNAMODB"  // fail, never skip, when DynamoDB Local is unavailable
)

// DefaultImage is the DynamoDB Local image started when EnvImage is not set.
const DefaultImage = "amazon/dynamodb-local:3.3.1"

// startTimeout bounds starting the container; the image must already be present or
// pullable.
const startTimeout = 3 * time.Minute

// endpoint is the URL of the DynamoDB Local serving this test binary; set by Main.
var endpoint string

// Main makes DynamoDB Local available, runs the tests and stops the container it
// started. It returns the exit code for os.Exit.
func Main(m *testing.M) int {
	flag.Parse()
	if !testing.Verbose() {
		tclog.SetDefault(tclog.NewNoopLogger())
	}
	ep, stop, err := start()
	if err != nil {
		if os.Getenv(EnvRequire) != "" {
			fmt.Fprintf(os.Stderr, "FAIL: DynamoDB Local is unavailable: %v\n", err)
			return 1
		}
		fmt.Fprintf(os.Stderr, "SKIP: integration tests need DynamoDB Local: Docker with the image %s "+
			"(`make test` prepares one), or %s; %v\n", imageName(), EnvEndpoint, err)
		return 0
	}
	defer stop()
	endpoint = ep
	return m.Run()
}

// Endpoint returns the URL of DynamoDB Local; it is empty outside Main.
func Endpoint() string { return endpoint }

func start() (ep string, stop func(), err error) {
	if ep := os.Getenv(EnvEndpoint); ep != "" {
		return ep, func() {}, nil
	}
	image := imageName()
	// The reaper image cannot be pulled where no registry answers, and the host must be
	// loopback: in a container, testcontainers would otherwise dial the default gateway.
	setDefaultEnv("TESTCONTAINERS_RYUK_DISABLED", "true")
	setDefaultEnv("TESTCONTAINERS_HOST_OVERRIDE", "localhost")

	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	ctr, err := tcdynamodb.Run(ctx, image,
		testcontainers.WithCmdArgs("-inMemory", "-disableTelemetry"))
	stop = func() {
		if ctr != nil {
			_ = testcontainers.TerminateContainer(ctr)
		}
	}
	if err != nil {
		stop()
		return "", nil, err
	}
	hostPort, err := ctr.ConnectionString(ctx)
	if err != nil {
		stop()
		return "", nil, err
	}
	return "http://" + hostPort, stop, nil
}

func imageName() string {
	if image := os.Getenv(EnvImage); image != "" {
		return image
	}
	return DefaultImage
}

func setDefaultEnv(key, value string) {
	if _, ok := os.LookupEnv(key); !ok {
		os.Setenv(key, value)
	}
}
