package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/rynodb/rynodb/examples/internal/catalog"
	"github.com/rynodb/rynodb/ryno"
)

// config is what the function needs to reach its store.
type config struct {
	prefix    string
	endpoint  string
	cursorKey []byte
}

// configFrom reads the configuration from the environment, through getenv
// (catalog.EnvPrefix, EnvEndpoint, EnvCursorKey).
func configFrom(getenv func(string) string) (config, error) {
	c := config{prefix: getenv(catalog.EnvPrefix), endpoint: getenv(catalog.EnvEndpoint)}
	if c.prefix == "" {
		return config{}, fmt.Errorf("%s is not set", catalog.EnvPrefix)
	}
	key, err := catalog.CursorKey(getenv)
	if err != nil {
		return config{}, err
	}
	c.cursorKey = key
	return c, nil
}

// newCatalog returns the store's client for the catalogue, logging to log (nil:
// nowhere). New sends no request.
func newCatalog(api ryno.DynamoDBAPI, c config, log *slog.Logger) (*ryno.Client, error) {
	return ryno.New(api, catalog.Options(c.prefix, c.cursorKey, log))
}

// newHandlerFrom builds the Handler from the environment, once per cold start.
func newHandlerFrom(ctx context.Context, getenv func(string) string, log *slog.Logger) (*Handler, error) {
	c, err := configFrom(getenv)
	if err != nil {
		return nil, err
	}
	api, err := catalog.NewDynamoDB(ctx, c.endpoint)
	if err != nil {
		return nil, err
	}
	db, err := newCatalog(api, c, log)
	if err != nil {
		return nil, err
	}
	return NewHandler(db, log), nil
}
