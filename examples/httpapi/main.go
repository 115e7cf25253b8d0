// Command httpapi serves a catalogue of articles and their authors over HTTP,
// stored with RynoDB: entities with their version as ETag and If-Match for
// conditional writes, bylines as relationships, articles by tag through an index,
// listings paged with cursors, a health endpoint, and a graceful shutdown.
//
//	httpapi -addr localhost:8080 -prefix catalog [-endpoint http://localhost:8000]
//
// The tables must exist (ryno migrate up --prefix catalog): the server checks them
// at start-up and exits when they are missing or differ. On SIGINT or SIGTERM it
// stops accepting connections and lets the requests in flight complete.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rynodb/rynodb/examples/internal/catalog"
)

// startupTimeout bounds the start-up check of the tables.
const startupTimeout = 10 * time.Second

func main() {
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	cfg, err := configFrom(os.Args[1:], os.Getenv, os.Stderr)
	if err != nil {
		log.Error("configuration", "error", err)
		os.Exit(2)
	}
	// SIGTERM is what a container orchestrator sends before it kills the process.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, log); err != nil {
		log.Error("exit", "error", err)
		os.Exit(1)
	}
}

// run connects to the store, checks its tables, and serves until ctx ends.
func run(ctx context.Context, cfg config, log *slog.Logger) error {
	api, err := catalog.NewDynamoDB(ctx, cfg.endpoint)
	if err != nil {
		return err
	}
	db, err := newCatalog(api, cfg, log)
	if err != nil {
		return err
	}
	// Fail fast on a wrong prefix or tables not migrated, rather than on the first
	// request.
	checkCtx, cancel := context.WithTimeout(ctx, startupTimeout)
	defer cancel()
	if err := db.CheckSchema(checkCtx); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	log.Info("serving", "addr", ln.Addr().String(), "prefix", cfg.prefix)
	err = serve(ctx, newServer(NewAPI(db, log).Handler()), ln)
	log.Info("stopped")
	return err
}
