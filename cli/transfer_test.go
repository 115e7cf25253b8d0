package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/bulk"
)

func TestTransferProgressShowsABarAndTheTimeLeftOnATerminal(t *testing.T) {
	var errOut bytes.Buffer
	r := &runner{stderr: &errOut, isTerminal: func(io.Writer) bool { return true }}
	p := r.transferProgress("imported", "lines", 1000)
	p.start = time.Now().Add(-10 * time.Second)
	p.update(250, bulk.Report{Lines: 50, Bad: 2})
	p.update(300, bulk.Report{Lines: 60}) // within a tenth of a second: not shown
	p.clear()
	const clear = "\r\x1b[K"
	want := clear + "[======>                 ]  25% imported 50 lines, 5 lines/s, 2 refused, 30s left" + clear
	require.Equal(t, want, errOut.String())
}

func TestTransferProgressPrintsPlainLinesElsewhere(t *testing.T) {
	var errOut bytes.Buffer
	r := &runner{stderr: &errOut, isTerminal: func(io.Writer) bool { return false }}
	p := r.transferProgress("exported", "entities", 0)
	p.start = time.Now().Add(-4 * time.Second)
	p.update(40, bulk.Report{Lines: 40})
	p.update(80, bulk.Report{Lines: 80}) // within plainEvery: not printed
	p.clear()
	require.Equal(t, "exported 40 entities, 10 entities/s\n", errOut.String(), "no bar, no escapes, no time left when the total is unknown")
}

func TestResumeFileKeepsTheLineToStartFrom(t *testing.T) {
	name := filepath.Join(t.TempDir(), "resume")
	n, err := readResume(name)
	require.NoError(t, err)
	require.Zero(t, n, "no file: from the start")
	writeResume(name, 42)
	n, err = readResume(name)
	require.NoError(t, err)
	require.Equal(t, 42, n)
	finishResume(name, bulk.Report{Resume: 50}, context.Canceled)
	n, _ = readResume(name)
	require.Equal(t, 50, n, "a run that stopped keeps where")
	finishResume(name, bulk.Report{Resume: 60}, nil)
	_, err = os.Stat(name)
	require.ErrorIs(t, err, os.ErrNotExist, "a run that did every line removes it")

	require.NoError(t, os.WriteFile(name, []byte("soon"), 0o600))
	_, err = readResume(name)
	var usage *usageError
	require.ErrorAs(t, err, &usage)
}

func TestTransferUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"export", "--type", "user"}, "--type needs --scope"},
		{[]string{"import"}, "missing --in"},
		{[]string{"import", "--in", "x", "--existing", "sometimes"}, "--existing must be keep, overwrite or newer"},
		{[]string{"export", "--segments", "0"}, "--segments"},
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		code := Run(context.Background(), Config{}, append(tt.args, "--prefix", "app", "--endpoint", "http://127.0.0.1:1"), &out, &errOut)
		require.Equal(t, ExitUsage, code, "%v: %s", tt.args, errOut.String())
		require.Contains(t, errOut.String(), tt.want, tt.args)
		require.Empty(t, out.String())
	}
}

func TestHelpListsExportAndImport(t *testing.T) {
	var out bytes.Buffer
	require.Equal(t, ExitOK, Run(context.Background(), Config{}, []string{"help"}, &out, io.Discard))
	for _, cmd := range []string{"ryno export", "ryno import --in FILE"} {
		require.True(t, strings.Contains(out.String(), cmd), cmd)
	}
}
