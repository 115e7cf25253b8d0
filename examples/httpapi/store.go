package main

import (
	"context"
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/rynodb/rynodb/ryno"
)

// Environment variables the server reads; its flags take precedence.
const (
	envPrefix    = "RYNO_TABLE_PREFIX"         // the tables' prefix, as given to ryno migrate up
	envEndpoint  = "AWS_ENDPOINT_URL_DYNAMODB" // another DynamoDB endpoint, such as DynamoDB Local
	envCursorKey = "RYNO_CURSOR_KEY"           // 32 random bytes, base64, sealing cursors
)

// config is what the server needs: where to listen, and how to reach its store.
type config struct {
	addr      string
	prefix    string
	endpoint  string
	cursorKey []byte
}

// configFrom reads the configuration from the command line and, for what it does
// not set, the environment through getenv. Usage and flag errors go to stderr.
func configFrom(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("httpapi", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.StringVar(&c.addr, "addr", "localhost:8080", "address to listen on")
	fs.StringVar(&c.prefix, "prefix", getenv(envPrefix), "table prefix (env "+envPrefix+")")
	fs.StringVar(&c.endpoint, "endpoint", getenv(envEndpoint), "DynamoDB endpoint, such as http://localhost:8000 (env "+envEndpoint+")")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if c.prefix == "" {
		return config{}, fmt.Errorf("no table prefix: set -prefix or %s", envPrefix)
	}
	if s := getenv(envCursorKey); s != "" {
		key, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return config{}, fmt.Errorf("%s is not base64: %w", envCursorKey, err)
		}
		c.cursorKey = key
	}
	return c, nil
}

// newDynamoDB returns a DynamoDB client configured as the AWS SDK finds it
// (credentials, region), with endpoint instead of AWS's when set.
func newDynamoDB(ctx context.Context, endpoint string) (*dynamodb.Client, error) {
	cfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("load the AWS configuration: %w", err)
	}
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
			// DynamoDB Local sends no CRC32 header with error responses, which the SDK
			// would report as a checksum mismatch (aws/aws-sdk-go-v2#3545).
			o.DisableValidateResponseChecksum = true
		}
	}), nil
}

// newCatalog returns the store's client for the catalogue. New sends no request.
// The store logs throttling, lost responses and partial failures to log (nil:
// nowhere).
func newCatalog(api ryno.DynamoDBAPI, c config, log *slog.Logger) (*ryno.Client, error) {
	return ryno.New(api, ryno.Options{
		TablePrefix: c.prefix,
		CursorKey:   c.cursorKey,
		Indexes:     indexes,
		// A byline names authors that exist: checked in the write's transaction.
		CheckObjects: true,
		Logger:       log,
		// Each call's cost goes to the request it serves: see handle.
		OnCall: addCost,
	})
}
