package integration_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/creack/pty"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/cli"
	"github.com/rynodb/rynodb/integration/dynamotest"
)

// transferConfig is the application's configuration of the stores of transferUsers.
func transferConfig() cli.Config {
	opts := transferOptions()
	return cli.Config{Indexes: opts.Indexes, Sets: opts.Sets, OrderedSets: opts.OrderedSets}
}

// runTransfer runs the application's ryno with args against s and DynamoDB Local,
// standard error going to stderr.
func runTransfer(t *testing.T, s *store, stderr *os.File, args ...string) (stdout, errOut string, code int) {
	t.Helper()
	var out, errBuf bytes.Buffer
	args = append(args, "--endpoint", dynamotest.Endpoint(), "--prefix", s.Names().Prefix)
	if stderr != nil {
		code = cli.Run(context.Background(), transferConfig(), args, &out, stderr)
		return out.String(), "", code
	}
	code = cli.Run(context.Background(), transferConfig(), args, &out, &errBuf)
	return out.String(), errBuf.String(), code
}

// sortedLines returns the lines of file, sorted.
func sortedLines(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	slices.Sort(lines)
	return lines
}

// TestCLIExportThenImport moves a store into an empty one with ryno export and ryno
// import, piped: plain progress and summaries, the resume file gone at the end, and
// the copy exporting as the original.
func TestCLIExportThenImport(t *testing.T) {
	isolateAWS(t)
	a := transferUsers(t)
	dir := t.TempDir()
	file, again := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	_, errOut, code := runTransfer(t, a, nil, "export", "--out", file, "--segments", "2")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "exported 30 entities with 10 list entries in ")
	require.NotContains(t, errOut, "\x1b", "no escapes when standard error is not a terminal")

	b := newStoreOpts(t, nil, transferOptions())
	resume := filepath.Join(dir, "resume")
	out, errOut, code := runTransfer(t, b, nil, "import", "--in", file, "--resume", resume)
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `^imported 30 lines in [0-9.]+m?s: 30 written, 0 kept as stored, 0 refused; 10 list entries\n$`, out)
	require.NotContains(t, errOut, "\x1b")
	_, err := os.Stat(resume)
	require.ErrorIs(t, err, os.ErrNotExist, "every line done: the resume file is removed")

	_, errOut, code = runTransfer(t, b, nil, "export", "--out", again)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, sortedLines(t, file), sortedLines(t, again))

	out, _, code = runTransfer(t, b, nil, "import", "--in", file)
	require.Equal(t, 0, code)
	require.Contains(t, out, "0 written, 30 kept as stored", "existing entities are kept")

	c := newStoreOpts(t, nil, transferOptions())
	out, errOut, code = runTransfer(t, c, nil, "import", "--in", file, "--exclusive")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "30 written, 0 kept as stored, 0 refused")
	_, errOut, code = runTransfer(t, c, nil, "export", "--out", again)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, sortedLines(t, file), sortedLines(t, again), "an exclusive import gives the same copy")
}

func TestCLIImportNamesBadLinesAndKeepsWhereItStopped(t *testing.T) {
	isolateAWS(t)
	a := transferUsers(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "a.jsonl")
	_, errOut, code := runTransfer(t, a, nil, "export", "--out", file)
	require.Equal(t, 0, code, errOut)
	lines := sortedLines(t, file)
	bad := filepath.Join(dir, "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte(lines[0]+"\nnot json\n"+strings.Join(lines[1:5], "\n")+"\n"), 0o600))

	for _, exclusive := range []bool{false, true} {
		b := newStoreOpts(t, nil, transferOptions())
		args := []string{"import", "--in", bad, "--skip-bad-lines"}
		if exclusive {
			args = append(args, "--exclusive")
		}
		out, errOut, code := runTransfer(t, b, nil, args...)
		require.Equal(t, 1, code, "a refused line fails the run")
		require.Contains(t, errOut, "refused: line 2: ")
		require.Contains(t, out, "5 written, 0 kept as stored, 1 refused")
	}

	c := newStoreOpts(t, nil, transferOptions())
	resume := filepath.Join(dir, "resume")
	_, errOut, code = runTransfer(t, c, nil, "import", "--in", bad, "--resume", resume)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "line 2")
	kept, err := os.ReadFile(resume)
	require.NoError(t, err, "the resume file keeps where it stopped")
	require.Contains(t, []string{"1\n", "2\n"}, string(kept))
}

func TestCLIImportShowsABarOnATerminal(t *testing.T) {
	isolateAWS(t)
	a := transferUsers(t)
	file := filepath.Join(t.TempDir(), "a.jsonl")
	_, errOut, code := runTransfer(t, a, nil, "export", "--out", file)
	require.Equal(t, 0, code, errOut)

	terminal, tty, err := pty.Open()
	require.NoError(t, err)
	t.Cleanup(func() { tty.Close(); terminal.Close() })
	shown := readTerminal(terminal)
	b := newStoreOpts(t, nil, transferOptions())
	out, _, code := runTransfer(t, b, tty, "import", "--in", file)
	require.Equal(t, 0, code)
	require.Contains(t, out, "30 written")
	got := shown(len("\r\x1b[K[========================] 100% imported 1 lines"))
	require.True(t, strings.HasPrefix(got, "\r\x1b[K["), "a bar, drawn in place: %q", got)
	require.Contains(t, got, "%")
	require.Contains(t, got, "lines/s")
}
