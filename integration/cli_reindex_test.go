package integration_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/cli"
	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// upperTags is the tag index of testIndexes after a change of its map function.
var upperTags = []ryno.Index{
	{Type: "post", Name: "tag", Map: func(e *ryno.Entity, emit func(indexing.Value)) {
		tags, _ := e.Attributes["tags"].([]any)
		for _, tag := range tags {
			emit(indexing.String(strings.ToUpper(fmt.Sprint(tag))))
		}
	}},
	{Type: "person", Name: "email", Map: emitEmail, Project: []string{"name"}},
}

// reindexFixture writes posts and people with testIndexes and returns the store and
// the entities written.
func reindexFixture(t *testing.T, posts int) (*store, []*ryno.Entity) {
	t.Helper()
	s := newIndexedStore(t, nil)
	var entities []*ryno.Entity
	for i := range posts {
		entities = append(entities, post(fmt.Sprintf("p%03d", i), map[string]any{"tags": []string{"go", fmt.Sprint(i % 3)}}))
	}
	entities = append(entities,
		person("ada", map[string]any{"email": "ada@acme.example", "name": "Ada", "age": 36}),
		person("alan", map[string]any{"email": "alan@acme.example", "name": "Alan", "age": 41}))
	for _, e := range entities {
		_, err := s.Set(ctx, e)
		require.NoError(t, err)
	}
	return s, entities
}

// runApp runs the command as an application with indexes builds it.
func runApp(t *testing.T, indexes []ryno.Index, stderr io.Writer, args ...string) (stdout string, code int) {
	t.Helper()
	var out bytes.Buffer
	code = cli.Run(context.Background(), cli.Config{Indexes: indexes}, args, &out, stderr)
	return out.String(), code
}

func TestCLIReindexLeavesTheIndexTableAsAFreshWrite(t *testing.T) {
	isolateAWS(t)
	s, entities := reindexFixture(t, 120)
	args := []string{"reindex", "--endpoint", dynamotest.Endpoint(), "--prefix", s.Names().Prefix, "--scope", "acme"}

	var errOut bytes.Buffer
	out, code := runApp(t, upperTags, &errOut, args...)
	require.Equal(t, 0, code, errOut.String())
	require.Empty(t, errOut.String(), "no progress line when standard error is not a terminal")
	require.Equal(t, "reindexed 2 entities of type person in scope acme: 0 entries written, 2 deleted\n"+
		"reindexed 120 entities of type post in scope acme: 120 entries written, 120 deleted\n", out,
		"the age and score entries of the people deleted; each tag go replaced by GO, the digit tags kept")

	fresh := newStoreOpts(t, nil, ryno.Options{Indexes: upperTags})
	for _, e := range entities {
		_, err := fresh.Set(ctx, e)
		require.NoError(t, err)
	}
	require.Equal(t, indexItems(t, fresh.raw, fresh.Names()), indexItems(t, s.raw, s.Names()))

	out, code = runApp(t, upperTags, &errOut, append(args, "--type", "post")...)
	require.Equal(t, 0, code, errOut.String())
	require.Equal(t, "reindexed 120 entities of type post in scope acme: 0 entries written, 0 deleted\n", out)
}

func TestCLIReindexShowsProgressOnATerminal(t *testing.T) {
	isolateAWS(t)
	s, _ := reindexFixture(t, 150)
	terminal, tty, err := pty.Open()
	require.NoError(t, err)
	t.Cleanup(func() { tty.Close(); terminal.Close() })
	shown := readTerminal(terminal)

	out, code := runApp(t, upperTags, tty, "reindex", "--endpoint", dynamotest.Endpoint(),
		"--prefix", s.Names().Prefix, "--scope", "acme", "--type", "post")
	require.Equal(t, 0, code)
	require.Equal(t, "reindexed 150 entities of type post in scope acme: 150 entries written, 150 deleted\n", out)
	const clear = "\r\x1b[K"
	want := clear + "reindexed 100 entities of type post in scope acme: 100 entries written, 100 deleted" +
		clear + "reindexed 150 entities of type post in scope acme: 150 entries written, 150 deleted" +
		clear
	require.Equal(t, want, shown(len(want)), "a line per page of 100, rewritten in place, cleared at the end")
}

// readTerminal reads what is written to a terminal from its controlling side. The
// function it returns waits until n bytes have come, or a few seconds, and returns
// them.
func readTerminal(terminal io.Reader) func(n int) string {
	chunks := make(chan []byte)
	go func() {
		defer close(chunks)
		for {
			b := make([]byte, 4096)
			n, err := terminal.Read(b)
			if n > 0 {
				chunks <- b[:n]
			}
			if err != nil {
				return
			}
		}
	}()
	return func(n int) string {
		var got []byte
		timeout := time.After(10 * time.Second)
		for len(got) < n {
			select {
			case b, ok := <-chunks:
				if !ok {
					return string(got)
				}
				got = append(got, b...)
			case <-timeout:
				return string(got)
			}
		}
		return string(got)
	}
}

func TestCLIReindexUsageErrors(t *testing.T) {
	isolateAWS(t)
	tests := []struct {
		name    string
		indexes []ryno.Index
		args    []string
		want    string
	}{
		{"the stock command has no indexes", nil, []string{"--scope", "acme"}, "this command has none"},
		{"no scope", upperTags, nil, "missing scope"},
		{"bad scope", upperTags, []string{"--scope", "a\x00b"}, "scope"},
		{"empty type", upperTags, []string{"--scope", "acme", "--type", ""}, "type"},
		{"no prefix", upperTags, []string{"--scope", "acme", "--prefix", ""}, "missing table prefix"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errOut bytes.Buffer
			args := append([]string{"reindex", "--endpoint", dynamotest.Endpoint(), "--prefix", "app"}, tt.args...)
			out, code := runApp(t, tt.indexes, &errOut, args...)
			require.Equal(t, 2, code)
			require.Empty(t, out)
			require.Contains(t, errOut.String(), tt.want)
			require.Contains(t, errOut.String(), "Run 'ryno help reindex' for usage.")
		})
	}
}
