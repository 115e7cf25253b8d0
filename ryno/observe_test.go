package ryno

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/rynodb/rynodb/internal/requests"
)

// scripted is a DynamoDB endpoint on loopback that answers each request with what
// answer returns for its API and body: throttling and unprocessed items, which
// DynamoDB Local never produces, reach the store through a real SDK client.
type scripted struct {
	mu     sync.Mutex
	bodies []map[string]any
}

// scriptedClient returns an SDK client of such an endpoint, whose retryer makes up
// to attempts attempts without waiting.
func scriptedClient(t *testing.T, attempts int, answer func(n int, api string, body map[string]any) (int, string)) (*dynamodb.Client, *scripted) {
	t.Helper()
	s := &scripted{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("request body: %v", err)
		}
		s.mu.Lock()
		s.bodies = append(s.bodies, body)
		n := len(s.bodies)
		s.mu.Unlock()
		api := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
		status, resp := answer(n, api, body)
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(status)
		io.WriteString(w, resp)
	}))
	t.Cleanup(srv.Close)
	client := dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials:  aws.AnonymousCredentials{},
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = attempts
			o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
			o.RateLimiter = ratelimit.None
		}),
	})
	return client, s
}

func (s *scripted) body(i int) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bodies[i]
}

const throttledAnswer = `{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"slow down"}`

// reports collects the reports of a client's calls.
type reports struct {
	mu   sync.Mutex
	list []CallReport
}

func (r *reports) add(_ context.Context, cr CallReport) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append(r.list, cr)
}

func (r *reports) only(t *testing.T) CallReport {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.list) != 1 {
		t.Fatalf("got %d reports, want 1: %+v", len(r.list), r.list)
	}
	return r.list[0]
}

func TestCallReportCountsEveryAttempt(t *testing.T) {
	tests := []struct {
		name        string
		sdkAttempts int // attempts of the SDK's retryer per request
		throttles   int // attempts throttled before DynamoDB answers
		requests    int // GetItem requests the store sends
		rounds      int
	}{
		{name: "answered at once", sdkAttempts: 3, throttles: 0, requests: 1, rounds: 1},
		{name: "the SDK retries", sdkAttempts: 3, throttles: 2, requests: 1, rounds: 1},
		{name: "the store retries after the SDK gave up", sdkAttempts: 2, throttles: 3, requests: 2, rounds: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api, s := scriptedClient(t, tt.sdkAttempts, func(n int, api string, _ map[string]any) (int, string) {
				if n <= tt.throttles {
					return http.StatusBadRequest, throttledAnswer
				}
				return http.StatusOK, `{"ConsumedCapacity":{"TableName":"p_entities_master","CapacityUnits":0.5,"Table":{"CapacityUnits":0.5}}}`
			})
			var got reports
			c, err := New(api, Options{TablePrefix: "p", OnCall: got.add, Retry: RetryOptions{BaseDelay: time.Microsecond}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Get(context.Background(), Key{Scope: "s", Type: "t", ID: "1"})
			if !errors.Is(err, ErrNotFound) {
				t.Fatalf("Get: %v, want ErrNotFound", err)
			}
			r := got.only(t)
			want := CallReport{
				Op: "Get", Requests: map[string]int{"GetItem": tt.requests}, Rounds: tt.rounds,
				Retries: tt.throttles, Throttles: tt.throttles,
				Capacity: []Capacity{{Table: "p_entities_master", Read: 0.5}},
			}
			if r.Op != want.Op || r.RequestCount() != tt.requests || r.Requests["GetItem"] != tt.requests ||
				r.Rounds != want.Rounds || r.Retries != want.Retries || r.Throttles != want.Throttles ||
				len(r.Capacity) != 1 || r.Capacity[0] != want.Capacity[0] || !errors.Is(r.Err, ErrNotFound) || r.Duration <= 0 {
				t.Errorf("report %+v\nwant     %+v", r, want)
			}
			if got := s.body(0)["ReturnConsumedCapacity"]; got != "INDEXES" {
				t.Errorf("ReturnConsumedCapacity = %v, want INDEXES", got)
			}
		})
	}
}

func TestCallReportCountsUnprocessedItems(t *testing.T) {
	// The first BatchGetItem leaves its first key unprocessed; the second reads it.
	api, _ := scriptedClient(t, 1, func(n int, api string, body map[string]any) (int, string) {
		if n > 1 {
			return http.StatusOK, `{"Responses":{},"ConsumedCapacity":[{"TableName":"p_entities_master","CapacityUnits":1}]}`
		}
		items := body["RequestItems"].(map[string]any)["p_entities_master"].(map[string]any)
		first, _ := json.Marshal(items["Keys"].([]any)[0])
		return http.StatusOK, `{"Responses":{},"ConsumedCapacity":[{"TableName":"p_entities_master","CapacityUnits":1.5}],` +
			`"UnprocessedKeys":{"p_entities_master":{"Keys":[` + string(first) + `]}}}`
	})
	var got reports
	c, err := New(api, Options{TablePrefix: "p", OnCall: got.add, Retry: RetryOptions{BaseDelay: time.Microsecond}})
	if err != nil {
		t.Fatal(err)
	}
	keys := []Key{{Scope: "s", Type: "t", ID: "1"}, {Scope: "s", Type: "t", ID: "2"}}
	if _, err := c.BatchGet(context.Background(), keys); err != nil {
		t.Fatal(err)
	}
	r := got.only(t)
	if r.Op != "BatchGet" || r.Requests["BatchGetItem"] != 2 || r.Unprocessed != 1 || r.Retries != 1 || r.Throttles != 0 ||
		r.Rounds != 2 || len(r.Capacity) != 1 || r.Capacity[0].Read != 2.5 {
		t.Errorf("report %+v", r)
	}
}

func TestLoggerLevels(t *testing.T) {
	api, _ := scriptedClient(t, 1, func(n int, api string, _ map[string]any) (int, string) {
		if n == 1 {
			return http.StatusBadRequest, throttledAnswer
		}
		return http.StatusOK, `{}`
	})
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, err := New(api, Options{TablePrefix: "p", Logger: log, Retry: RetryOptions{BaseDelay: time.Microsecond}})
	if err != nil {
		t.Fatal(err)
	}
	c.Get(context.Background(), Key{Scope: "s", Type: "t", ID: "1"})
	var lines []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 3 {
		t.Fatalf("got %d log lines, want 3:\n%s", len(lines), buf.String())
	}
	throttle, retry, end := lines[0], lines[1], lines[2]
	if throttle["level"] != "WARN" || throttle["msg"] != "ryno: throttled" || throttle["api"] != "GetItem" || throttle["attempt"] != float64(1) {
		t.Errorf("throttle line %#v", throttle)
	}
	if retry["level"] != "WARN" || retry["msg"] != "ryno: retrying" || retry["reason"] != "throttled" || retry["op"] != "Get" {
		t.Errorf("retry line %#v", retry)
	}
	if end["level"] != "DEBUG" || end["msg"] != "ryno: call" || end["requests"] != float64(2) || end["retries"] != float64(1) {
		t.Errorf("end line %v", end)
	}
}

func TestUnobservedClientPaysNothing(t *testing.T) {
	api, _ := scriptedClient(t, 1, func(int, string, map[string]any) (int, string) { return http.StatusOK, `{}` })
	c, err := New(api, Options{TablePrefix: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if c.obs != nil {
		t.Fatal("a client without OnCall, TracerProvider or Logger has an observer")
	}
	if _, ok := c.core.API.(requests.Reads).API.(requests.Missing).API.(requests.Observed); ok {
		t.Fatal("an unobserved client sends its requests through the observer")
	}
	ctx := context.Background()
	allocs := testing.AllocsPerRun(100, func() {
		var err error
		ctx2, k, _ := c.begin(ctx, "Get")
		k.end(&err)
		if ctx2 != ctx {
			t.Fatal("begin changed the context of an unobserved call")
		}
	})
	if allocs != 0 {
		t.Errorf("begin and end allocate %v times per call, want 0", allocs)
	}
}

func TestNestedCallsReportOnce(t *testing.T) {
	api, _ := scriptedClient(t, 1, func(int, string, map[string]any) (int, string) { return http.StatusOK, `{}` })
	var got reports
	c, err := New(api, Options{TablePrefix: "p", OnCall: got.add})
	if err != nil {
		t.Fatal(err)
	}
	ctx, outer, _ := c.begin(context.Background(), "Outer")
	if _, err := c.Get(ctx, Key{Scope: "s", Type: "t", ID: "1"}); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	err = nil
	outer.end(&err)
	if r := got.only(t); r.Op != "Outer" || r.Requests["GetItem"] != 1 {
		t.Errorf("report %+v", r)
	}
}

func TestOnCallReceivesTheCallersContext(t *testing.T) {
	api, _ := scriptedClient(t, 1, func(int, string, map[string]any) (int, string) { return http.StatusOK, `{}` })
	type requestID struct{}
	var seen []any
	c, err := New(api, Options{TablePrefix: "p", OnCall: func(ctx context.Context, r CallReport) {
		seen = append(seen, ctx.Value(requestID{}))
		if callOf(ctx) != nil {
			t.Error("OnCall's context belongs to the call that ended")
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.WithValue(context.Background(), requestID{}, "r-1")
	c.Get(ctx, Key{Scope: "s", Type: "t", ID: "1"})
	if len(seen) != 1 || seen[0] != "r-1" {
		t.Errorf("OnCall saw request IDs %v, want [r-1]", seen)
	}
}

func TestLogCallLevels(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		level, msg string
	}{
		{"done", nil, "DEBUG", "ryno: call"},
		{"not found", ErrNotFound, "DEBUG", "ryno: call"},
		{"a stale version", &ConflictError{Expected: 2, Stored: 3}, "DEBUG", "ryno: call met a conflicting write"},
		{"an entity that exists", ErrExists, "DEBUG", "ryno: call met a conflicting write"},
		{"an unknown outcome", ErrOutcomeUnknown, "ERROR", "ryno: call failed part-way"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
			logCall(context.Background(), log, CallReport{Op: "Update", Err: tt.err})
			var line map[string]any
			if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
				t.Fatalf("log line %q: %v", buf.String(), err)
			}
			if line["level"] != tt.level || line["msg"] != tt.msg {
				t.Errorf("got %v %q, want %s %q", line["level"], line["msg"], tt.level, tt.msg)
			}
		})
	}
}
