// Package cli implements the ryno command: provisioning the DynamoDB tables of a
// RynoDB store with package migrations (ryno migrate), finding and repairing orphan
// entries (ryno check) and rebuilding index entries (ryno reindex).
//
// Main runs the stock command of cmd/ryno. Reindex runs the map functions of the
// application's indexes, which only the application has, so an application offers it
// from its own binary with Run and Config.Indexes:
//
//	func main() {
//		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
//		code := cli.Run(ctx, cli.Config{Indexes: app.Indexes}, os.Args[1:], os.Stdout, os.Stderr)
//		stop()
//		os.Exit(code)
//	}
//
// Run and Main never exit the process, so tests can run them with their own arguments
// and writers. Settings take the first of: a flag, an environment variable, a default.
package cli
