// Package check defines what a check of a RynoDB store reports: the orphans it
// finds (entries that refer to an entity that does not exist), the traces of
// writes cut off (Trace), its Progress, and the Options that configure it.
//
// ryno.Client.Check runs a check, and `ryno check` from the command line; package
// ryno names these types again (ryno.CheckOptions is Options, ryno.Orphan is
// Orphan), so that a caller of ryno alone need not import this package. The
// machinery that runs the check reports these same values.
//
// The package performs no I/O.
package check
