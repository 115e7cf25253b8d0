//go:build bulkbench

package integration_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/bulk"
	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// TestBulkReport (make bench-bulk) measures export and import against raw
// requests doing the same work in the same run: the import of a file of N entities
// with 10 list entries each against a raw loader writing the same items with
// BatchWriteItem, the export against a raw parallel Scan of the same tables, and the
// peak memory of import and export processes at N/10 and N. RYNO_BULK_ENTITIES sets
// N (default 10,000).
const bulkEntitiesEnv = "RYNO_BULK_ENTITIES"

// bulkWorkerEnv holds the JSON bulkSpec of a process of the report: an import or an
// export, whose peak memory the report reads when it ends.
const bulkWorkerEnv = "RYNO_BULK_WORKER"

func init() { workers[bulkWorkerEnv] = runBulkWorker }

type bulkSpec struct {
	Endpoint, Prefix string
	Op               string // "import" or "export"
	File             string // read by import, written by export
	Exclusive        bool   // ImportOptions.Exclusive
	Sets             bool   // the client declares the lists of the file sets
}

func runBulkWorker(raw string) int {
	var spec bulkSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "bulk worker:", err)
		return 2
	}
	opts := ryno.Options{TablePrefix: spec.Prefix, MaxConcurrency: 16}
	if spec.Sets {
		opts.Sets = []string{"links"}
	}
	db, err := ryno.New(dynamotest.NewAPI(spec.Endpoint), opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bulk worker:", err)
		return 2
	}
	ctx := context.Background()
	var report bulk.Report
	switch spec.Op {
	case "import":
		f, err := os.Open(spec.File)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bulk worker:", err)
			return 2
		}
		defer f.Close()
		report, err = db.Import(ctx, f, bulk.ImportOptions{Exclusive: spec.Exclusive})
		if err == nil && report.Written != report.Lines {
			err = fmt.Errorf("%d lines, %d written", report.Lines, report.Written)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bulk worker:", err)
			return 3
		}
	case "export":
		f, err := os.Create(spec.File)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bulk worker:", err)
			return 2
		}
		w := bufio.NewWriterSize(f, 1<<20)
		if report, err = db.Export(ctx, w, bulk.ExportOptions{Segments: 4}); err == nil {
			err = w.Flush()
		}
		f.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, "bulk worker:", err)
			return 3
		}
	}
	fmt.Printf("%d lines\n", report.Lines)
	return 0
}

// bulkRun is one measured process: how long it took and its peak resident memory.
type bulkRun struct {
	took  time.Duration
	maxKB int64
}

func runBulkProcess(t *testing.T, spec bulkSpec) bulkRun {
	t.Helper()
	raw, err := json.Marshal(spec)
	require.NoError(t, err)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), bulkWorkerEnv+"="+string(raw))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	require.NoError(t, cmd.Run(), "%s: %s", spec.Op, out.String())
	took := time.Since(start)
	usage := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return bulkRun{took: took, maxKB: usage.Maxrss}
}

// writeBulkFile writes n lines of entities, each with a list of 10 others.
func writeBulkFile(t *testing.T, name string, n int) {
	t.Helper()
	f, err := os.Create(name)
	require.NoError(t, err)
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	at := time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC)
	key := func(i int) entity.Key { return entity.Key{Scope: "bench", Type: "item", ID: fmt.Sprintf("i%07d", i%n)} }
	for i := range n {
		l := bulk.Line{Key: key(i), Version: 1, Created: at, Updated: at.Add(time.Duration(i) * time.Millisecond),
			Attributes: map[string]types.AttributeValue{
				"name": &types.AttributeValueMemberS{Value: fmt.Sprintf("Item %d", i)},
				"n":    &types.AttributeValueMemberN{Value: strconv.Itoa(i)},
				"bio":  &types.AttributeValueMemberS{Value: strings.Repeat("x", 200)},
			},
			Lists: map[string][]entity.Key{"links": {}},
		}
		for j := 1; j <= 10; j++ {
			l.Lists["links"] = append(l.Lists["links"], key(i+j))
		}
		b, err := json.Marshal(l)
		require.NoError(t, err)
		_, err = w.Write(append(b, '\n'))
		require.NoError(t, err)
	}
	require.NoError(t, w.Flush())
}

// rawDump scans the three tables of prefix with segments parallel Scans each and
// writes every item to name, one DynamoDB JSON object a line: a raw export.
func rawDump(t *testing.T, api *dynamodb.Client, prefix, name string, segments int) (items int) {
	t.Helper()
	f, err := os.Create(name)
	require.NoError(t, err)
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	var mu sync.Mutex
	names, err := tablesOf(prefix)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for _, table := range names {
		for s := range segments {
			wg.Go(func() {
				var start map[string]types.AttributeValue
				for {
					out, err := api.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), ExclusiveStartKey: start,
						Segment: aws.Int32(int32(s)), TotalSegments: aws.Int32(int32(segments))})
					if err != nil {
						t.Error(err)
						return
					}
					var buf []byte
					for _, item := range out.Items {
						b, err := bulk.MarshalValue(&types.AttributeValueMemberM{Value: item})
						if err != nil {
							t.Error(err)
							return
						}
						buf = append(append(append(buf, table...), '\t'), append(b, '\n')...)
					}
					mu.Lock()
					w.Write(buf)
					items += len(out.Items)
					mu.Unlock()
					if start = out.LastEvaluatedKey; start == nil {
						return
					}
				}
			})
		}
	}
	wg.Wait()
	require.NoError(t, w.Flush())
	return items
}

// rawLoad writes every item of a raw dump into the tables of prefix with
// BatchWriteItem, 25 items a request, writers requests at once.
func rawLoad(t *testing.T, api *dynamodb.Client, from, prefix, name string, writers int) {
	t.Helper()
	f, err := os.Open(name)
	require.NoError(t, err)
	defer f.Close()
	batches := make(chan map[string][]types.WriteRequest, writers)
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for batch := range batches {
				for len(batch) > 0 {
					out, err := api.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: batch})
					if err != nil {
						t.Error(err)
						return
					}
					batch = out.UnprocessedItems
				}
			}
		})
	}
	r := bufio.NewReaderSize(f, 1<<20)
	batch, n := map[string][]types.WriteRequest{}, 0
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			table, rest, _ := bytes.Cut(line, []byte{'\t'})
			av, uerr := bulk.UnmarshalValue(rest)
			require.NoError(t, uerr)
			to := prefix + strings.TrimPrefix(string(table), from)
			batch[to] = append(batch[to], types.WriteRequest{PutRequest: &types.PutRequest{Item: av.(*types.AttributeValueMemberM).Value}})
			if n++; n == 25 {
				batches <- batch
				batch, n = map[string][]types.WriteRequest{}, 0
			}
		}
		if err != nil {
			break
		}
	}
	if n > 0 {
		batches <- batch
	}
	close(batches)
	wg.Wait()
}

func tablesOf(prefix string) ([]string, error) {
	db, err := ryno.New(dynamotest.NewAPI(dynamotest.Endpoint()), ryno.Options{TablePrefix: prefix})
	if err != nil {
		return nil, err
	}
	n := db.Names()
	return []string{n.Entities, n.Relationships, n.IndexEntries}, nil
}

func TestBulkReport(t *testing.T) {
	n := 10_000
	if v := os.Getenv(bulkEntitiesEnv); v != "" {
		var err error
		n, err = strconv.Atoi(v)
		require.NoError(t, err)
	}
	api := dynamotest.API(t)
	dir := t.TempDir()
	small, file := filepath.Join(dir, "small.jsonl"), filepath.Join(dir, "file.jsonl")
	writeBulkFile(t, small, n/10)
	writeBulkFile(t, file, n)
	endpoint := dynamotest.Endpoint()

	smallPrefix := dynamotest.Tables(t, api)
	importSmall := runBulkProcess(t, bulkSpec{Endpoint: endpoint, Prefix: smallPrefix, Op: "import", File: small, Exclusive: true})

	// Each import beside a raw loader writing the items it left, in the same run.
	type side struct {
		name      string
		spec      bulkSpec
		took, raw time.Duration
		maxKB     int64
		items     int
	}
	sides := []*side{
		{name: "lists, --exclusive", spec: bulkSpec{Exclusive: true}},
		{name: "lists, one transaction a line", spec: bulkSpec{}},
		{name: "sets, --exclusive", spec: bulkSpec{Exclusive: true, Sets: true}},
	}
	if n > 20_000 {
		sides = sides[:1] // at scale, the import the goals name; the others scale alike
	}
	var rawScan time.Duration
	for i, sd := range sides {
		sd.spec.Endpoint, sd.spec.Prefix, sd.spec.Op, sd.spec.File = endpoint, dynamotest.Tables(t, api), "import", file
		run := runBulkProcess(t, sd.spec)
		sd.took, sd.maxKB = run.took, run.maxKB
		dump := filepath.Join(dir, fmt.Sprintf("dump%d", i))
		start := time.Now()
		sd.items = rawDump(t, api, sd.spec.Prefix, dump, 4)
		if i == 0 {
			rawScan = time.Since(start)
		}
		r := dynamotest.Tables(t, api)
		start = time.Now()
		rawLoad(t, api, sd.spec.Prefix, r, dump, 16)
		sd.raw = time.Since(start)
		require.NoError(t, os.Remove(dump))
	}
	a := sides[0].spec.Prefix

	exported := runBulkProcess(t, bulkSpec{Endpoint: endpoint, Prefix: a, Op: "export", File: filepath.Join(dir, "export.jsonl")})
	exportSmall := runBulkProcess(t, bulkSpec{Endpoint: endpoint, Prefix: smallPrefix, Op: "export", File: filepath.Join(dir, "export-small.jsonl")})

	got, want := readSorted(t, filepath.Join(dir, "export.jsonl")), readSorted(t, file)
	require.Equal(t, len(want), len(got), "the export holds every entity imported")
	require.Equal(t, want, got, "and exports them as the file held them")

	fmt.Printf("\nBulk report: %d entities with %d list entries\n\n", n, 10*n)
	fmt.Printf("| import (ryno.Import, 16 at once) | items | took | entities/s | raw loader of the same items (BatchWriteItem, 16 at once) | against raw |\n|---|---:|---:|---:|---:|---:|\n")
	for _, sd := range sides {
		fmt.Printf("| %s | %d | %s | %.0f | %s | %.2f× |\n", sd.name, sd.items, sd.took.Round(time.Millisecond), float64(n)/sd.took.Seconds(),
			sd.raw.Round(time.Millisecond), sd.raw.Seconds()/sd.took.Seconds())
	}
	fmt.Printf("\n| export (ryno.Export, 4 segments) | took | entities/s | raw parallel Scan of the three tables (4 segments) | against raw |\n|---|---:|---:|---:|---:|\n")
	fmt.Printf("| lists | %s | %.0f | %s | %.2f× |\n\n", exported.took.Round(time.Millisecond), float64(n)/exported.took.Seconds(),
		rawScan.Round(time.Millisecond), rawScan.Seconds()/exported.took.Seconds())
	fmt.Printf("peak RSS of the import process (--exclusive): %d MB at %d entities, %d MB at %d (%.2f×)\n", importSmall.maxKB/1024, n/10, sides[0].maxKB/1024, n,
		float64(sides[0].maxKB)/float64(importSmall.maxKB))
	fmt.Printf("peak RSS of the export process: %d MB at %d entities, %d MB at %d (%.2f×)\n", exportSmall.maxKB/1024, n/10, exported.maxKB/1024, n,
		float64(exported.maxKB)/float64(exportSmall.maxKB))
}

func readSorted(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	slices.Sort(lines)
	return lines
}
