package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rynodb/rynodb/integration/dynamotest"
)

func TestMain(m *testing.M) { os.Exit(dynamotest.Main(m)) }

// client drives the API over real HTTP.
type client struct {
	t    *testing.T
	base string
	http *http.Client
}

// result is a response, its JSON body decoded.
type result struct {
	status int
	header http.Header
	body   map[string]any
}

// newTestServer serves the API on tables of its own and returns a client of it.
func newTestServer(t *testing.T) *client {
	t.Helper()
	return serveAPI(t, newTestAPI(t, dynamotest.Tables(t, dynamotest.API(t))))
}

// serveAPI serves a, with the server's own settings, and returns a client of it.
func serveAPI(t *testing.T, a *API) *client {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	ts.Config = newServer(a.Handler())
	ts.Start()
	t.Cleanup(ts.Close)
	return &client{t: t, base: ts.URL, http: &http.Client{Timeout: 30 * time.Second}}
}

// newTestAPI returns the API of the tables under prefix, logging to the test.
func newTestAPI(t *testing.T, prefix string) *API {
	t.Helper()
	db, err := newCatalog(dynamotest.API(t), config{prefix: prefix}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return NewAPI(db, slog.New(slog.NewTextHandler(t.Output(), nil)))
}

// do sends a request and fails the test when it cannot; header holds name, value
// pairs.
func (c *client) do(method, path, body string, header ...string) result {
	c.t.Helper()
	r, err := c.send(method, path, body, header...)
	if err != nil {
		c.t.Fatal(err)
	}
	return r
}

// send sends a request; it is safe to call from any goroutine.
func (c *client) send(method, path, body string, header ...string) (result, error) {
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		return result{}, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return result{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return result{}, err
	}
	r := result{status: resp.StatusCode, header: resp.Header}
	// ServeMux answers unknown paths and methods itself, in plain text.
	if len(data) > 0 && resp.Header.Get("Content-Type") == "application/json" {
		if err := json.Unmarshal(data, &r.body); err != nil {
			return result{}, fmt.Errorf("%s %s: body %q: %w", method, path, data, err)
		}
	}
	return r, nil
}

// ids returns the ids of a page's items.
func (r result) ids(t *testing.T) []string {
	t.Helper()
	items, ok := r.body["items"].([]any)
	if !ok {
		t.Fatalf("no items in %v", r.body)
	}
	ids := []string{}
	for _, item := range items {
		ids = append(ids, item.(map[string]any)["id"].(string))
	}
	return ids
}

// updated returns the times the page's items were last written.
func (r result) updated(t *testing.T) []time.Time {
	t.Helper()
	var times []time.Time
	for _, item := range r.body["items"].([]any) {
		at, err := time.Parse(time.RFC3339Nano, item.(map[string]any)["updated"].(string))
		if err != nil {
			t.Fatal(err)
		}
		times = append(times, at)
	}
	return times
}

// wantIDs checks a page holds the entities with these ids, in this order.
func wantIDs(t *testing.T, r result, want ...string) {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %v", r.status, r.body)
	}
	if got := r.ids(t); !slices.Equal(got, want) {
		t.Errorf("ids %q, want %q", got, want)
	}
}
