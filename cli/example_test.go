package cli_test

import (
	"context"
	"fmt"
	"os"

	"github.com/rynodb/rynodb/cli"
	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/ryno"
)

// An application builds the command into its own binary with its indexes, so that
// reindex can run their map functions: here as "myapp ryno ...".
func ExampleRun() {
	indexes := []ryno.Index{{
		Type: "person",
		Name: "email",
		Map: func(e *ryno.Entity, emit func(indexing.Value)) {
			if email, ok := e.Attributes["email"].(string); ok {
				emit(indexing.String(email))
			}
		},
	}}
	args := []string{"ryno", "reindex", "--prefix", "myapp"} // os.Args[1:] in the application
	if len(args) > 0 && args[0] == "ryno" {
		code := cli.Run(context.Background(), cli.Config{Indexes: indexes}, args[1:], os.Stdout, os.Stdout)
		fmt.Println("exit status", code)
	}
	// Output:
	// ryno: missing scope: set --scope
	// Run 'ryno help reindex' for usage.
	// exit status 2
}

// The stock command has no map functions, so it refuses to reindex.
func ExampleMain() {
	code := cli.Main(context.Background(), []string{"reindex", "--prefix", "myapp", "--scope", "acme"}, os.Stdout, os.Stdout)
	fmt.Println("exit status", code)
	// Output:
	// ryno: reindex runs the application's map functions, and this command has none: run the application's own build of it (cli.Run with Config.Indexes)
	// Run 'ryno help reindex' for usage.
	// exit status 2
}
