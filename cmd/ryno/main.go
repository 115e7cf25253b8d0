// Command ryno provisions and checks the DynamoDB tables of a RynoDB store:
//
//	ryno migrate up     --prefix myapp   create what is missing, wait until ACTIVE
//	ryno migrate plan   --prefix myapp   show what up would do
//	ryno migrate status --prefix myapp   show tables, indexes, version and drift
//	ryno migrate down   --prefix myapp --delete-all-data
//	ryno check          --prefix myapp [--repair]   find orphan entries, delete them
//
// Reindexing runs an application's map functions, so it is offered by the
// application's own build of this command (see package cli). Run "ryno help" for the
// flags, the environment variables and the exit statuses.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/rynodb/rynodb/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
