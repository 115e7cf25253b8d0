package catalog

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

// Environment variables both services read.
const (
	EnvPrefix    = "RYNO_TABLE_PREFIX"         // the tables' prefix, as given to ryno migrate up; required
	EnvEndpoint  = "AWS_ENDPOINT_URL_DYNAMODB" // another DynamoDB endpoint, such as DynamoDB Local; optional
	EnvCursorKey = "RYNO_CURSOR_KEY"           // 32 random bytes, base64, sealing cursors; optional
)

// CursorKey returns the key that seals listing cursors, read from EnvCursorKey
// through getenv; nil when it is not set.
func CursorKey(getenv func(string) string) ([]byte, error) {
	s := getenv(EnvCursorKey)
	if s == "" {
		return nil, nil
	}
	key, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%s is not base64: %w", EnvCursorKey, err)
	}
	return key, nil
}

// NewDynamoDB returns a DynamoDB client configured as the AWS SDK finds it
// (credentials, region: a server's instance role, a function's role), with
// endpoint instead of AWS's when set.
func NewDynamoDB(ctx context.Context, endpoint string) (*dynamodb.Client, error) {
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

// Options returns the store's options for the catalogue: its tables' prefix, the
// key sealing cursors (nil: plain cursors) and its indexes. The store logs
// throttling, lost responses and partial failures to log (nil: nowhere).
func Options(prefix string, cursorKey []byte, log *slog.Logger) ryno.Options {
	return ryno.Options{
		TablePrefix: prefix,
		CursorKey:   cursorKey,
		Indexes:     indexes,
		// A byline names authors that exist: checked in the write's transaction.
		CheckObjects: true,
		Logger:       log,
	}
}
