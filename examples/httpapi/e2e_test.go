package main

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rynodb/rynodb/integration/dynamotest"
)

// serverTiming matches the cost every response carries.
var serverTiming = regexp.MustCompile(`^dynamodb;dur=\d+\.\d;desc="(\d+) requests?, ([\d.]+) RCU, ([\d.]+) WCU"$`)

const article = `{"id": "engine", "title": "Notes on the Analytical Engine", "tags": ["computing", "history"]}`

// One article's life: each step is a request and the status and ETag it must get.
func TestEntityLifecycle(t *testing.T) {
	c := newTestServer(t)
	item450KB := fmt.Sprintf(`{"id": "long", "title": %q}`, strings.Repeat("a", 450<<10))
	body600KB := fmt.Sprintf(`{"id": "longer", "title": %q}`, strings.Repeat("a", 600<<10))
	steps := []struct {
		name           string
		method, path   string
		body           string
		ifMatch        string
		status         int
		etag, errorMsg string
	}{
		{"create", "POST", "/articles", article, "", http.StatusCreated, `"1"`, ""},
		{"create again", "POST", "/articles", article, "", http.StatusConflict, "", "already exists"},
		{"create without a title", "POST", "/articles", `{"id": "x"}`, "", http.StatusBadRequest, "", "title is required"},
		{"create from broken JSON", "POST", "/articles", `{"id": `, "", http.StatusBadRequest, "", ""},
		{"create with an id DynamoDB keys refuse", "POST", "/articles", `{"id": "bell\u0007", "title": "t"}`, "", http.StatusBadRequest, "", ""},
		{"create an item over DynamoDB's 400 KB", "POST", "/articles", item450KB, "", http.StatusBadRequest, "", ""},
		{"create from a body over 512 KB", "POST", "/articles", body600KB, "", http.StatusRequestEntityTooLarge, "", "the body is too large"},
		{"get with its ETag", "GET", "/articles/engine", "", "", http.StatusOK, `"1"`, ""},
		{"get a missing one", "GET", "/articles/nothing", "", "", http.StatusNotFound, "", "not found"},
		{"update at version 1", "PUT", "/articles/engine", `{"title": "Sketch"}`, `"1"`, http.StatusOK, `"2"`, ""},
		{"update at version 1 again", "PUT", "/articles/engine", `{"title": "Stale"}`, `"1"`, http.StatusPreconditionFailed, "", ""},
		{"update with a weak ETag", "PUT", "/articles/engine", `{"title": "Weak"}`, `W/"2"`, http.StatusBadRequest, "", ""},
		{"update another id than the path's", "PUT", "/articles/engine", `{"id": "other", "title": "t"}`, "", http.StatusBadRequest, "", ""},
		{"update without If-Match", "PUT", "/articles/engine", `{"title": "Sketch", "tags": ["computing"]}`, "", http.StatusOK, `"3"`, ""},
		{"update a missing one", "PUT", "/articles/nothing", `{"title": "t"}`, "", http.StatusNotFound, "", ""},
		{"delete at a past version", "DELETE", "/articles/engine", "", `"2"`, http.StatusPreconditionFailed, "", ""},
		{"delete at version 3", "DELETE", "/articles/engine", "", `"3"`, http.StatusNoContent, "", ""},
		{"get after delete", "GET", "/articles/engine", "", "", http.StatusNotFound, "", ""},
		{"update a deleted one at its last version", "PUT", "/articles/engine", `{"title": "t"}`, `"3"`, http.StatusPreconditionFailed, "", ""},
		{"delete it again", "DELETE", "/articles/engine", "", "", http.StatusNoContent, "", ""},
		{"wrong method", "PATCH", "/articles/engine", `{}`, "", http.StatusMethodNotAllowed, "", ""},
	}
	for _, s := range steps {
		var header []string
		if s.ifMatch != "" {
			header = []string{"If-Match", s.ifMatch}
		}
		r := c.do(s.method, s.path, s.body, header...)
		if r.status != s.status {
			t.Fatalf("%s: status %d, want %d: %v", s.name, r.status, s.status, r.body)
		}
		if got := r.header.Get("ETag"); got != s.etag {
			t.Errorf("%s: ETag %q, want %q", s.name, got, s.etag)
		}
		if got := r.header.Get("Server-Timing"); s.status != http.StatusMethodNotAllowed && !serverTiming.MatchString(got) {
			t.Errorf("%s: Server-Timing %q", s.name, got)
		}
		if s.errorMsg != "" && r.body["error"] != s.errorMsg {
			t.Errorf("%s: error %q, want %q", s.name, r.body["error"], s.errorMsg)
		}
	}
}

// Writers that all send the same If-Match: in each round exactly one wins, and
// the others get 412 and write nothing.
func TestConcurrentConditionalUpdates(t *testing.T) {
	const rounds, writers = 5, 8
	c := newTestServer(t)
	c.do("POST", "/articles", article)

	for round := range rounds {
		before := c.do("GET", "/articles/engine", "")
		results := make([]result, writers)
		errs := make([]error, writers)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range writers {
			wg.Go(func() {
				<-start // the barrier: every writer sends at once
				body := fmt.Sprintf(`{"title": "round %d, writer %d"}`, round, i)
				results[i], errs[i] = c.send("PUT", "/articles/engine", body, "If-Match", before.header.Get("ETag"))
			})
		}
		close(start)
		wg.Wait()

		var winner string
		for i, r := range results {
			switch {
			case errs[i] != nil:
				t.Fatal(errs[i])
			case r.status == http.StatusOK && winner == "":
				winner = r.body["title"].(string)
			case r.status != http.StatusPreconditionFailed:
				t.Fatalf("round %d, writer %d: status %d: %v", round, i, r.status, r.body)
			}
		}
		if winner == "" {
			t.Fatalf("round %d: no writer won", round)
		}
		after := c.do("GET", "/articles/engine", "")
		if want := fmt.Sprintf(`"%d"`, round+2); after.header.Get("ETag") != want || after.body["title"] != winner {
			t.Fatalf("round %d: stored ETag %s and title %q, want %s and the winner's %q",
				round, after.header.Get("ETag"), after.body["title"], want, winner)
		}
	}
}

// Following the cursors lists every article once, newest first.
func TestPagingWithCursors(t *testing.T) {
	const n, limit = 23, 5
	c := newTestServer(t)
	var created []string
	for i := range n {
		id := fmt.Sprintf("article-%02d", i)
		if r := c.do("POST", "/articles", fmt.Sprintf(`{"id": %q, "title": "Article %d"}`, id, i)); r.status != http.StatusCreated {
			t.Fatalf("create %s: %d", id, r.status)
		}
		created = append(created, id)
	}

	var listed []string
	var updated []time.Time
	pages := 0
	for cursor := ""; pages == 0 || cursor != ""; pages++ {
		r := c.do("GET", fmt.Sprintf("/articles?limit=%d&cursor=%s", limit, cursor), "")
		if r.status != http.StatusOK {
			t.Fatalf("page %d: status %d: %v", pages, r.status, r.body)
		}
		listed = append(listed, r.ids(t)...)
		updated = append(updated, r.updated(t)...)
		cursor, _ = r.body["cursor"].(string)
	}
	if pages != (n+limit-1)/limit {
		t.Errorf("%d pages, want %d", pages, (n+limit-1)/limit)
	}
	if !slices.IsSortedFunc(updated, func(a, b time.Time) int { return b.Compare(a) }) {
		t.Errorf("not newest first: %v", updated)
	}
	slices.Sort(listed)
	if !slices.Equal(listed, created) {
		t.Errorf("listed %v, want each of %v once", listed, created)
	}

	for _, query := range []string{"?cursor=garbage", "?limit=0", "?limit=101", "?limit=ten"} {
		if r := c.do("GET", "/articles"+query, ""); r.status != http.StatusBadRequest {
			t.Errorf("GET /articles%s: status %d, want 400", query, r.status)
		}
	}
}

// Bylines: the relationship authors, its reverse lookup and the tag index.
func TestRelationships(t *testing.T) {
	c := newTestServer(t)
	c.do("POST", "/authors", `{"id": "ada", "name": "Ada Lovelace"}`)
	c.do("POST", "/authors", `{"id": "charles", "name": "Charles Babbage"}`)
	c.do("POST", "/articles", article)

	steps := []struct {
		method, path string
		status       int
	}{
		{"PUT", "/articles/engine/authors/ada", http.StatusCreated},
		{"PUT", "/articles/engine/authors/ada", http.StatusNoContent}, // already on the byline
		{"PUT", "/articles/engine/authors/charles", http.StatusCreated},
		{"PUT", "/articles/engine/authors/nobody", http.StatusNotFound},
		{"PUT", "/articles/nothing/authors/ada", http.StatusNotFound},
	}
	for _, s := range steps {
		if r := c.do(s.method, s.path, ""); r.status != s.status {
			t.Errorf("%s %s: status %d, want %d: %v", s.method, s.path, r.status, s.status, r.body)
		}
	}
	wantIDs(t, c.do("GET", "/articles/engine/authors", ""), "ada", "charles")
	wantIDs(t, c.do("GET", "/authors/ada/articles", ""), "engine")
	wantIDs(t, c.do("GET", "/tags/history/articles", ""), "engine")
	wantIDs(t, c.do("GET", "/tags/poetry/articles", ""))

	for range 2 { // removing is idempotent
		if r := c.do("DELETE", "/articles/engine/authors/ada", ""); r.status != http.StatusNoContent {
			t.Fatalf("remove: status %d", r.status)
		}
	}
	wantIDs(t, c.do("GET", "/articles/engine/authors", ""), "charles")
	wantIDs(t, c.do("GET", "/authors/ada/articles", ""))

	// Deleting the article deletes its byline and its index entries.
	c.do("DELETE", "/articles/engine", "")
	wantIDs(t, c.do("GET", "/authors/charles/articles", ""))
	wantIDs(t, c.do("GET", "/tags/history/articles", ""))
}

func TestHealth(t *testing.T) {
	tests := []struct {
		name   string
		tables bool
		status int
	}{
		{"tables created", true, http.StatusOK},
		{"tables missing", false, http.StatusServiceUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := "tables-never-created"
			if tt.tables {
				prefix = dynamotest.Tables(t, dynamotest.API(t))
			}
			c := serveAPI(t, newTestAPI(t, prefix))
			if r := c.do("GET", "/healthz", ""); r.status != tt.status {
				t.Errorf("status %d, want %d: %v", r.status, tt.status, r.body)
			}
		})
	}
}

// A failure of the store is a 500 that names no table or key.
func TestInternalErrorIsHidden(t *testing.T) {
	c := serveAPI(t, newTestAPI(t, "tables-never-created"))
	r := c.do("GET", "/articles/engine", "")
	if r.status != http.StatusInternalServerError || len(r.body) != 1 || r.body["error"] != "internal error" {
		t.Errorf("status %d, body %v; want 500 and only the error \"internal error\"", r.status, r.body)
	}
}

// Each response says what its store calls cost, from the reports the store gives
// OnCall with the request's context: a read costs read units only, a write write
// units, and a request the store never sees nothing.
func TestServerTimingCarriesTheCost(t *testing.T) {
	c := newTestServer(t)
	cost := func(r result) (requests int, read, write float64) {
		t.Helper()
		m := serverTiming.FindStringSubmatch(r.header.Get("Server-Timing"))
		if m == nil {
			t.Fatalf("Server-Timing %q", r.header.Get("Server-Timing"))
		}
		requests, _ = strconv.Atoi(m[1])
		read, _ = strconv.ParseFloat(m[2], 64)
		write, _ = strconv.ParseFloat(m[3], 64)
		return requests, read, write
	}
	if n, read, write := cost(c.do("POST", "/articles", article)); n != 1 || read != 0 || write <= 0 {
		t.Errorf("create: %d requests, %g RCU, %g WCU; want 1 request writing", n, read, write)
	}
	if n, read, write := cost(c.do("GET", "/articles/engine", "")); n != 1 || read <= 0 || write != 0 {
		t.Errorf("get: %d requests, %g RCU, %g WCU; want 1 request reading", n, read, write)
	}
	if n, read, write := cost(c.do("PUT", "/articles/engine", `{"title": "t"}`, "If-Match", `W/"1"`)); n != 0 || read != 0 || write != 0 {
		t.Errorf("refused before the store: %d requests, %g RCU, %g WCU; want none", n, read, write)
	}
}
