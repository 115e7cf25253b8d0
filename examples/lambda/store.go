package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/rynodb/rynodb/ryno"
)

// Environment variables the function reads at start-up.
const (
	envPrefix    = "RYNO_TABLE_PREFIX"         // the tables' prefix, as given to ryno migrate up; required
	envEndpoint  = "AWS_ENDPOINT_URL_DYNAMODB" // another DynamoDB endpoint, such as DynamoDB Local; optional
	envCursorKey = "RYNO_CURSOR_KEY"           // 32 random bytes, base64, sealing cursors; optional
)

// config is what the function needs to reach its store.
type config struct {
	prefix    string
	endpoint  string
	cursorKey []byte
}

// configFrom reads the configuration from the environment, through getenv.
func configFrom(getenv func(string) string) (config, error) {
	c := config{prefix: getenv(envPrefix), endpoint: getenv(envEndpoint)}
	if c.prefix == "" {
		return config{}, fmt.Errorf("%s is not set", envPrefix)
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

// newDynamoDB returns a DynamoDB client configured as the AWS SDK finds it: the
// function's role, its region, and the endpoint of DynamoDB Local when one is set.
func newDynamoDB(ctx context.Context, endpoint string) (*dynamodb.Client, error) {
	cfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, err
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
	})
}

// newHandlerFrom builds the Handler from the environment, once per cold start.
func newHandlerFrom(ctx context.Context, getenv func(string) string, log *slog.Logger) (*Handler, error) {
	c, err := configFrom(getenv)
	if err != nil {
		return nil, err
	}
	api, err := newDynamoDB(ctx, c.endpoint)
	if err != nil {
		return nil, fmt.Errorf("load the AWS configuration: %w", err)
	}
	db, err := newCatalog(api, c, log)
	if err != nil {
		return nil, err
	}
	return NewHandler(db, log), nil
}
