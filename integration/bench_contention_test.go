//go:build costreport

package integration_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/ryno"
)

// TestListContentionReport (make bench-contention) warms DynamoDB Local up with 10
// s of each side below, then runs 8 processes on one
// ordered list, each a client of its own as Lambda instances are, each appending
// an object of its own then removing it, for RYNO_CONTENTION_DURATION (default
// 30s) through the library, then as long through raw requests (read the list,
// then BatchWriteItem, with no condition), then as long through the library with a
// list of its own to each process (no contention: what one transaction a call
// reaches here), each side on tables of its own, and prints the calls a second of
// each, the calls that gave up, the latencies and the requests a call by
// operation; the library's lists must be
// exact after: every object a process appended and did not remove, once.
const contentionDurationEnv = "RYNO_CONTENTION_DURATION"

// contentionWorkerEnv holds the JSON contentionSpec of one process of the report.
const contentionWorkerEnv = "RYNO_CONTENTION_WORKER"

// contentionProcesses is how many processes write the list at once.
const contentionProcesses = 8

func init() { workers[contentionWorkerEnv] = runContentionWorker }

type contentionSpec struct {
	Endpoint, AccessKey, Prefix string
	Side                        string // "lib", "raw" or "own" (the library, a list a process)
	Worker                      int
	Start                       time.Time // when every process starts, so that they overlap
	Seconds                     float64
}

// contentionResult is what a process prints when its time is up.
type contentionResult struct {
	Calls   int
	GaveUp  int      // calls that failed with ErrConflict
	Latency []int64  // of each call, in microseconds
	Holds   []string // the ids of its objects in the list at the end
	// Requests counts the requests sent, by operation, failed ones included (AWS
	// bills a failed conditional write).
	Requests map[string]int
}

var contentionList = ryno.Key{Scope: "acme", Type: "person", ID: "one"}

const contentionPredicate = "mixed"

func runContentionWorker(raw string) int {
	var spec contentionSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "contention worker:", err)
		return 2
	}
	counter := dynamotest.NewCounter(dynamodb.New(dynamotest.NewAPI(spec.Endpoint).Options(), func(o *dynamodb.Options) {
		o.Credentials = credentials.NewStaticCredentialsProvider(spec.AccessKey, dynamotest.SecretKey, "")
	}))
	var api ryno.DynamoDBAPI = counter
	names, err := schema.NewNames(spec.Prefix)
	if err != nil {
		fmt.Fprintln(os.Stderr, "contention worker:", err)
		return 2
	}
	db, err := ryno.New(api, ryno.Options{TablePrefix: spec.Prefix})
	if err != nil {
		fmt.Fprintln(os.Stderr, "contention worker:", err)
		return 2
	}
	rawStore := &rawStore{api: api, names: names}
	ctx := context.Background()
	list := contentionList
	if spec.Side == "own" {
		list = ownList(spec.Worker)
	}
	time.Sleep(time.Until(spec.Start))
	deadline := time.Now().Add(time.Duration(spec.Seconds * float64(time.Second)))
	var res contentionResult
	held := ""
	for n := 0; time.Now().Before(deadline); n++ {
		id := fmt.Sprintf("w%d-%d", spec.Worker, n/2)
		objects := []ryno.Key{{Scope: "acme", Type: "person", ID: id}}
		t0 := time.Now()
		switch {
		case spec.Side == "raw" && n%2 == 0:
			err = rawStore.Add(ctx, list, contentionPredicate, objects)
		case spec.Side == "raw":
			err = rawStore.Remove(ctx, list, contentionPredicate, objects)
		case n%2 == 0:
			_, err = db.AddRelationships(ctx, list, contentionPredicate, objects)
		default:
			_, err = db.RemoveRelationships(ctx, list, contentionPredicate, objects)
		}
		res.Latency = append(res.Latency, time.Since(t0).Microseconds())
		res.Calls++
		switch {
		case errors.Is(err, ryno.ErrConflict):
			res.GaveUp++
			n-- // the same call again, so that the object held stays known
		case err != nil:
			fmt.Fprintln(os.Stderr, "contention worker:", err)
			return 1
		case n%2 == 0:
			held = id
		default:
			held = ""
		}
	}
	if held != "" {
		res.Holds = []string{held}
	}
	res.Requests = counter.Counts()
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		fmt.Fprintln(os.Stderr, "contention worker:", err)
		return 2
	}
	return 0
}

func TestListContentionReport(t *testing.T) {
	duration := 30 * time.Second
	if d := os.Getenv(contentionDurationEnv); d != "" {
		var err error
		duration, err = time.ParseDuration(d)
		require.NoError(t, err, contentionDurationEnv)
	}
	sides := map[string]contentionResult{}
	// A first round of every side, 10 s each and not reported, warms DynamoDB
	// Local's JVM up: on a cold one (or one warmed by other requests only) the
	// library's transactions run at half the speed.
	for _, side := range []string{"warm-lib", "warm-raw", "warm-own", "lib", "raw", "own"} {
		raw := dynamotest.API(t)
		prefix := dynamotest.Tables(t, raw)
		db, err := ryno.New(raw, ryno.Options{TablePrefix: prefix})
		require.NoError(t, err)
		lists := []ryno.Key{contentionList}
		if strings.HasSuffix(side, "own") {
			lists = nil
			for w := range contentionProcesses {
				lists = append(lists, ownList(w))
			}
		}
		for _, k := range lists {
			_, err = db.Create(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"name": k.ID}})
			require.NoError(t, err)
		}
		creds, err := raw.Options().Credentials.Retrieve(ctx)
		require.NoError(t, err)
		spec := contentionSpec{Endpoint: dynamotest.Endpoint(), AccessKey: creds.AccessKeyID, Prefix: prefix,
			Side: side, Start: time.Now().Add(3 * time.Second), Seconds: duration.Seconds()}
		if warm, ok := strings.CutPrefix(side, "warm-"); ok {
			spec.Side, spec.Seconds = warm, min(duration.Seconds(), 10)
			runContentionSide(t, spec)
			continue
		}
		res := runContentionSide(t, spec)
		sides[side] = res
		if side != "raw" {
			var ids []string
			for _, k := range lists {
				rels, err := db.Relationships(ctx, k, contentionPredicate, ryno.PageOptions{})
				require.NoError(t, err)
				for _, r := range rels.Items {
					ids = append(ids, r.Object.ID)
				}
			}
			slices.Sort(ids)
			holds := slices.Clone(res.Holds)
			slices.Sort(holds)
			require.Equal(t, holds, ids, "the lists are exact: every object appended and not removed, once")
		}
	}
	lib, raw, own := sides["lib"], sides["raw"], sides["own"]
	rate := func(r contentionResult) float64 { return float64(r.Calls-r.GaveUp) / duration.Seconds() }
	fmt.Printf("\n### %d processes appending to and removing from one list, %s a side\n\n", contentionProcesses, duration)
	fmt.Println("| side | calls/s | gave up | p50 | p99 |")
	fmt.Println("|---|---:|---:|---:|---:|")
	for _, s := range []struct {
		name string
		r    contentionResult
	}{
		{"library", lib},
		{"raw (no condition: loses writes under races)", raw},
		{"library, a list of its own to each process (no contention)", own},
	} {
		fmt.Printf("| %s | %.0f | %d of %d | %s | %s |\n", s.name, rate(s.r), s.r.GaveUp, s.r.Calls,
			percentile(s.r.Latency, 50), percentile(s.r.Latency, 99))
	}
	fmt.Println("\n| side | requests a call, by operation (failed ones included) |")
	fmt.Println("|---|---|")
	for _, s := range []struct {
		name string
		r    contentionResult
	}{{"library", lib}, {"raw", raw}, {"library, a list of its own to each process", own}} {
		ops := slices.Sorted(maps.Keys(s.r.Requests))
		parts := make([]string, len(ops))
		for i, op := range ops {
			parts[i] = fmt.Sprintf("%s %.2f", op, float64(s.r.Requests[op])/float64(s.r.Calls))
		}
		fmt.Printf("| %s | %s |\n", s.name, strings.Join(parts, ", "))
	}
	fmt.Printf("\nlibrary ÷ raw: %.2f×; the library's list exact after (%d objects held)\n", rate(lib)/rate(raw), len(lib.Holds))
	fmt.Printf("library on lists of their own ÷ raw: %.2f× (what one transaction a call reaches without contention)\n", rate(own)/rate(raw))
}

// ownList is the list process w writes on the "own" side.
func ownList(w int) ryno.Key {
	return ryno.Key{Scope: "acme", Type: "person", ID: fmt.Sprintf("own-%d", w)}
}

// runContentionSide runs the processes of one side at once and adds up what they
// report.
func runContentionSide(t *testing.T, spec contentionSpec) contentionResult {
	t.Helper()
	cmds := make([]*exec.Cmd, contentionProcesses)
	outs := make([]*bytes.Buffer, contentionProcesses)
	for i := range cmds {
		spec.Worker = i
		raw, err := json.Marshal(spec)
		require.NoError(t, err)
		cmds[i] = exec.Command(os.Args[0], "-test.run=^$")
		cmds[i].Env = append(os.Environ(), contentionWorkerEnv+"="+string(raw))
		outs[i] = &bytes.Buffer{}
		cmds[i].Stdout, cmds[i].Stderr = outs[i], os.Stderr
		require.NoError(t, cmds[i].Start())
	}
	var total contentionResult
	for i, cmd := range cmds {
		require.NoError(t, cmd.Wait(), "process %d", i)
		var r contentionResult
		require.NoError(t, json.Unmarshal(outs[i].Bytes(), &r), "process %d: %s", i, outs[i])
		total.Calls += r.Calls
		total.GaveUp += r.GaveUp
		total.Latency = append(total.Latency, r.Latency...)
		total.Holds = append(total.Holds, r.Holds...)
		for op, n := range r.Requests {
			if total.Requests == nil {
				total.Requests = map[string]int{}
			}
			total.Requests[op] += n
		}
	}
	return total
}

// percentile returns the p-th percentile of latencies, in microseconds, as a
// duration rounded to the millisecond.
func percentile(latencies []int64, p int) time.Duration {
	if len(latencies) == 0 {
		return 0
	}
	sorted := slices.Clone(latencies)
	slices.Sort(sorted)
	us := sorted[min(len(sorted)-1, len(sorted)*p/100)]
	return (time.Duration(us) * time.Microsecond).Round(time.Millisecond)
}
