package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/migrations"
)

const millisecond = time.Millisecond

func printDrift(w io.Writer, drift []migrations.Drift) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, d := range drift {
		fmt.Fprintf(tw, "  %s\t%s\n", d.Severity, d)
	}
	tw.Flush()
}

func printActions(w io.Writer, actions []migrations.Action) {
	for _, a := range actions {
		fmt.Fprintf(w, "  %s\n", a)
	}
}

func printStatus(w io.Writer, st *migrations.Status) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TABLE / INDEX\tKIND\tSTATE\tBILLING")
	for _, t := range st.Tables {
		row(tw, t.Name, "table", string(t.State), billingName(t.BillingMode))
		for _, ix := range t.Indexes {
			note := ""
			if ix.Extra {
				note = "(not in the schema)"
			}
			row(tw, "  "+ix.Name, string(ix.Kind), string(ix.State), note)
		}
	}
	tw.Flush()

	fmt.Fprintf(w, "\nschema version: %s recorded, %d current\n", versionString(st.RecordedVersion), st.TargetVersion)
	if len(st.Drift) == 0 {
		fmt.Fprintln(w, "drift: none")
	} else {
		fmt.Fprintln(w, "drift:")
		printDrift(w, st.Drift)
	}
	if len(st.Pending) > 0 {
		fmt.Fprintln(w, "pending:")
		printActions(w, st.Pending)
	}

	switch {
	case len(st.Errors()) > 0:
		fmt.Fprintf(w, "%s: up refuses to run until they are resolved\n", count(len(st.Errors()), "drift error"))
	case st.Newer():
		fmt.Fprintf(w, "schema version %d is newer than this release's %d; it keeps this release working, which reads and writes it but does not migrate it\n",
			st.RecordedVersion, st.TargetVersion)
	case len(st.Pending) > 0:
		fmt.Fprintln(w, `not up to date: run "ryno migrate up"`)
	case !st.UpToDate():
		fmt.Fprintln(w, `tables or indexes are still changing; "ryno migrate up" waits for them`)
	default:
		fmt.Fprintln(w, "up to date")
	}
}

// row writes cells as one tabwriter line, leaving out empty trailing cells, which
// would only pad the line with spaces.
func row(w io.Writer, cells ...string) {
	for len(cells) > 0 && cells[len(cells)-1] == "" {
		cells = cells[:len(cells)-1]
	}
	fmt.Fprintln(w, strings.Join(cells, "\t"))
}

func billingName(m types.BillingMode) string {
	switch m {
	case types.BillingModePayPerRequest:
		return "on-demand"
	case types.BillingModeProvisioned:
		return "provisioned"
	}
	return string(m)
}

func versionString(v int) string {
	if v == 0 {
		return "none"
	}
	return strconv.Itoa(v)
}

// count returns "1 action", "2 actions", "0 entries".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if stem, ok := strings.CutSuffix(noun, "y"); ok {
		noun = stem + "ie"
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
