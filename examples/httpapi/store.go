package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/rynodb/rynodb/examples/internal/catalog"
	"github.com/rynodb/rynodb/ryno"
)

// config is what the server needs: where to listen, and how to reach its store.
type config struct {
	addr      string
	prefix    string
	endpoint  string
	cursorKey []byte
}

// configFrom reads the configuration from the command line and, for what it does
// not set, the environment through getenv (catalog.EnvPrefix, EnvEndpoint,
// EnvCursorKey). Usage and flag errors go to stderr.
func configFrom(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("httpapi", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.StringVar(&c.addr, "addr", "localhost:8080", "address to listen on")
	fs.StringVar(&c.prefix, "prefix", getenv(catalog.EnvPrefix), "table prefix (env "+catalog.EnvPrefix+")")
	fs.StringVar(&c.endpoint, "endpoint", getenv(catalog.EnvEndpoint), "DynamoDB endpoint, such as http://localhost:8000 (env "+catalog.EnvEndpoint+")")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if c.prefix == "" {
		return config{}, fmt.Errorf("no table prefix: set -prefix or %s", catalog.EnvPrefix)
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
	opts := catalog.Options(c.prefix, c.cursorKey, log)
	// Each call's cost goes to the request it serves: see handle.
	opts.OnCall = addCost
	return ryno.New(api, opts)
}
