// Package cli implements the ryno command: provisioning the DynamoDB tables of a
// RynoDB store with package migrations.
//
// Main holds all the logic and never exits the process, so tests can run it with their
// own arguments and writers; cmd/ryno only wires it to os.Args and the signals.
//
// Settings take the first of: a flag, an environment variable, a default.
package cli
