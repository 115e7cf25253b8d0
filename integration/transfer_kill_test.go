package integration_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/bulk"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// importWorkerEnv holds the JSON importSpec of an import worker process: the test
// binary started again to import a file, killed with SIGKILL at a chosen request.
const importWorkerEnv = "RYNO_IMPORT_WORKER"

// importSpec is what an import worker does, and when it dies.
type importSpec struct {
	Endpoint, AccessKey, Prefix string
	File                        string // the export to import
	Resume                      string // the file the worker keeps Report.Resume in, and starts from
	KillAt                      int64  // the request (from 1) at which it kills itself
	Seed                        uint64
	Exclusive                   bool // ImportOptions.Exclusive
}

// runImportWorker imports spec.File from the line its resume file names, writing
// the line to resume from after each line done, and returns its exit code unless
// it is killed first.
func runImportWorker(raw string) int {
	var spec importSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "import worker:", err)
		return 2
	}
	k := &killer{at: spec.KillAt, mode: "inflight", rng: rand.New(rand.NewPCG(spec.Seed, 11))}
	api := dynamodb.New(dynamotest.NewAPI(spec.Endpoint).Options(), func(o *dynamodb.Options) {
		o.Credentials = credentials.NewStaticCredentialsProvider(spec.AccessKey, dynamotest.SecretKey, "")
	})
	opts := transferOptions()
	opts.TablePrefix = spec.Prefix
	db, err := ryno.New(dynamotest.Wrap(api, k.hook), opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "import worker:", err)
		return 2
	}
	from := 0
	if b, err := os.ReadFile(spec.Resume); err == nil {
		from, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	f, err := os.Open(spec.File)
	if err != nil {
		fmt.Fprintln(os.Stderr, "import worker:", err)
		return 2
	}
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	report, err := db.Import(ctx, f, bulk.ImportOptions{From: from, Exclusive: spec.Exclusive, Progress: func(r bulk.Report) {
		// Written whole or not at all: a rename replaces the file atomically.
		tmp := spec.Resume + ".tmp"
		if os.WriteFile(tmp, []byte(strconv.Itoa(r.Resume)), 0o600) == nil {
			_ = os.Rename(tmp, spec.Resume)
		}
	}})
	fmt.Printf("from %d: %d lines, %d written, %d kept, %d requests\n", from, report.Lines, report.Written, report.Kept, k.sent.Load())
	if err != nil {
		fmt.Fprintln(os.Stderr, "import worker:", err)
		return 3
	}
	return 0
}

// TestAnImportKilledAtRandomRequestsResumesToTheSameStore imports an export in
// worker processes killed with SIGKILL at random requests, each resuming from the
// line its predecessor left: once one finishes, the copy exports exactly as the
// original, with nothing lost and nothing written twice, and check finds nothing.
// An exclusive import is killed too, between the items of its batches.
func TestAnImportKilledAtRandomRequestsResumesToTheSameStore(t *testing.T) {
	tests := []struct {
		name      string
		fixture   func(*testing.T) *store
		exclusive bool
		requests  int64 // about what an import of the fixture sends
	}{
		{"one line at a time", transferUsers, false, 30},
		{"exclusive", transferNotes, true, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dynamotest.Parallel(t)
			seed := uint64(time.Now().UnixNano())
			if v := os.Getenv("RYNO_KILL_SEED"); v != "" { // to replay a run
				seed, _ = strconv.ParseUint(v, 10, 64)
			}
			t.Logf("seed %d", seed)
			rng := rand.New(rand.NewPCG(seed, 3))
			a := tt.fixture(t)
			lines := export(t, a, bulk.ExportOptions{})
			dir := t.TempDir()
			file := filepath.Join(dir, "export.jsonl")
			require.NoError(t, os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o600))

			b := newStoreOpts(t, nil, transferOptions())
			creds, err := b.raw.Options().Credentials.Retrieve(ctx)
			require.NoError(t, err)
			spec := importSpec{Endpoint: dynamotest.Endpoint(), AccessKey: creds.AccessKeyID, Prefix: b.prefix,
				File: file, Resume: filepath.Join(dir, "resume"), Exclusive: tt.exclusive}
			const kills = 4 // workers killed at random requests; the next one finishes
			for round := 0; ; round++ {
				spec.KillAt, spec.Seed = 0, rng.Uint64()
				if round < kills {
					spec.KillAt = 1 + rng.Int64N(tt.requests*9/10)
				}
				raw, err := json.Marshal(spec)
				require.NoError(t, err)
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), importWorkerEnv+"="+string(raw))
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				err = cmd.Run()
				status, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
				if killed := status.Signaled() && status.Signal() == syscall.SIGKILL; killed && round < kills {
					continue
				}
				// The first worker is killed; a later one may finish before its request.
				require.True(t, round > 0, "worker 0 killed at request %d: %v %s", spec.KillAt, err, out.String())
				require.NoError(t, err, "worker: %s", out.String())
				t.Logf("the last worker: %s", out.String())
				break
			}
			require.Equal(t, lines, export(t, b, bulk.ExportOptions{}), "the copy exports as the original: nothing lost, nothing doubled")
			requireCheckFindsNothing(t, b.Client)
		})
	}
}
