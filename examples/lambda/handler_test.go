package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/rynodb/rynodb/examples/internal/catalog"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

func TestMain(m *testing.M) { os.Exit(dynamotest.Main(m)) }

// step sends one event and checks the response.
type step struct {
	event    string                                    // the fixture in testdata, without .json
	edit     func(req *events.APIGatewayV2HTTPRequest) // changes to the fixture, if any
	status   int
	etag     string                            // the ETag wanted; "" for any
	location string                            // the Location wanted; "" for any
	check    func(t *testing.T, body response) // more checks of the body, if any
}

// response is a response's JSON body.
type response map[string]any

func TestEntities(t *testing.T) {
	run(t, newTestHandler(t), []step{
		{event: "create-article", status: http.StatusCreated, etag: `"1"`, location: "/articles/notes-on-the-engine", check: fields("title", "Notes on the Analytical Engine")},
		{event: "create-article", status: http.StatusConflict, check: errorIs("already exists")},
		{event: "create-article-untitled", status: http.StatusBadRequest, check: errorIs("title is required")},
		{event: "create-article-unknown-field", status: http.StatusBadRequest, check: errorContains(`unknown field "titel"`)},
		{event: "create-article-control-id", status: http.StatusBadRequest, check: errorContains("Key.ID")},
		{event: "get-article", status: http.StatusOK, etag: `"1"`, check: fields("id", "notes-on-the-engine", "version", 1.0)},
		{event: "get-article-missing", status: http.StatusNotFound},
		{event: "update-article", status: http.StatusOK, etag: `"2"`, check: fields("title", "Sketch of the Analytical Engine")},
		// The same If-Match again: version 1 is gone.
		{event: "update-article", status: http.StatusPreconditionFailed},
		{event: "update-article-bad-if-match", status: http.StatusBadRequest},
		{event: "update-article-missing", status: http.StatusNotFound},
		{event: "update-article-blind", status: http.StatusOK, etag: `"3"`},
		{event: "get-article", status: http.StatusOK, etag: `"3"`, check: fields("tags", []any{"computing", "translation"})},
		{event: "delete-article-stale", status: http.StatusPreconditionFailed},
		{event: "get-article", status: http.StatusOK, etag: `"3"`},
		{event: "delete-article", status: http.StatusNoContent},
		{event: "get-article", status: http.StatusNotFound},
		// If-Match on an entity that is gone fails: there is no version 3 to match.
		{event: "update-article", edit: withIfMatch(`"3"`), status: http.StatusPreconditionFailed},
		{event: "delete-article", status: http.StatusPreconditionFailed},
		{event: "delete-article", edit: withIfMatch(""), status: http.StatusNoContent},
	})
}

func TestRelationships(t *testing.T) {
	run(t, newTestHandler(t), []step{
		{event: "create-author", status: http.StatusCreated},
		{event: "create-author-base64", status: http.StatusCreated, check: fields("name", "Charles Babbage")},
		{event: "add-author", status: http.StatusNotFound}, // no article yet
		{event: "create-article", status: http.StatusCreated},
		{event: "add-author", status: http.StatusCreated},
		{event: "add-author", status: http.StatusNoContent}, // already on the byline
		{event: "add-author-babbage", status: http.StatusCreated},
		{event: "add-author-missing", status: http.StatusNotFound},
		{event: "list-authors", status: http.StatusOK, check: ids("ada", "babbage")},
		{event: "articles-by-author", status: http.StatusOK, check: ids("notes-on-the-engine")},
		{event: "tagged-articles", status: http.StatusOK, check: ids("notes-on-the-engine")},
		{event: "tagged-articles", edit: withPathParameter("tag", "poetry"), status: http.StatusOK, check: ids()},
		{event: "remove-author", status: http.StatusNoContent},
		{event: "remove-author", status: http.StatusNoContent},
		{event: "list-authors", status: http.StatusOK, check: ids("babbage")},
		{event: "articles-by-author", status: http.StatusOK, check: ids()},
		// Deleting the article deletes its byline: Babbage has no article left.
		{event: "delete-article", edit: withIfMatch(""), status: http.StatusNoContent},
		{event: "articles-by-author", edit: withPathParameter("id", "babbage"), status: http.StatusOK, check: ids()},
		{event: "tagged-articles", status: http.StatusOK, check: ids()},
	})
}

// Listings page with the cursor each page returns, passed back as a query parameter.
func TestListPaging(t *testing.T) {
	h := newTestHandler(t)
	for i := range 5 {
		body := fmt.Sprintf(`{"id": "article-%d", "title": "Article %d"}`, i, i)
		run(t, h, []step{{event: "create-article", edit: withBody(body), status: http.StatusCreated}})
	}

	var listed []string
	var updated []time.Time
	pages := 0
	for cursor := ""; pages == 0 || cursor != ""; pages++ {
		req := fixture(t, "list-articles")
		if cursor != "" {
			req.QueryStringParameters["cursor"] = cursor
		}
		status, _, body := invoke(t, h, req)
		if status != http.StatusOK {
			t.Fatalf("page %d: status %d: %v", pages, status, body)
		}
		listed = append(listed, idsOf(t, body)...)
		updated = append(updated, updatedOf(t, body)...)
		cursor, _ = body["cursor"].(string)
	}
	// Each article once, two a page, newest first (two written in the same
	// millisecond may come in either order).
	slices.Sort(listed)
	if want := []string{"article-0", "article-1", "article-2", "article-3", "article-4"}; !slices.Equal(listed, want) || pages != 3 {
		t.Errorf("listed %v in %d pages, want %v in 3", listed, pages, want)
	}
	if !slices.IsSortedFunc(updated, func(a, b time.Time) int { return b.Compare(a) }) {
		t.Errorf("not newest first: %v", updated)
	}

	run(t, h, []step{
		{event: "list-articles-bad-cursor", status: http.StatusBadRequest, check: errorIs("the cursor is not one this listing issued")},
		{event: "list-articles-bad-limit", status: http.StatusBadRequest, check: errorIs("limit must be a number from 1 to 100")},
	})
}

func TestUnknownRoute(t *testing.T) {
	run(t, newTestHandler(t), []step{{event: "unknown-route", status: http.StatusNotFound, check: errorIs("no such route")}})
}

// A failure of the store is a 500 that says nothing of tables or keys; the log has
// the cause.
func TestInternalErrorIsHidden(t *testing.T) {
	var logged bytes.Buffer
	h := NewHandler(newTestCatalog(t, "tables-never-created"), slog.New(slog.NewTextHandler(&logged, nil)))
	run(t, h, []step{{event: "get-article", status: http.StatusInternalServerError, check: func(t *testing.T, body response) {
		if len(body) != 1 || body["error"] != "internal error" {
			t.Errorf("body %v, want only the error \"internal error\"", body)
		}
	}}})
	if !strings.Contains(logged.String(), "tables-never-created_entities_master") {
		t.Errorf("the log does not name the missing table:\n%s", logged.String())
	}
}

// The function's start-up path: configuration from the environment, as Lambda
// gives it, with sealed cursors.
func TestHandlerFromEnvironment(t *testing.T) {
	// The credentials first: the tables are created under those of the environment.
	t.Setenv("AWS_ACCESS_KEY_ID", dynamotest.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", dynamotest.SecretKey)
	t.Setenv("AWS_REGION", dynamotest.Region)
	prefix := dynamotest.Tables(t, dynamotest.API(t))
	t.Setenv(catalog.EnvPrefix, prefix)
	t.Setenv(catalog.EnvEndpoint, dynamotest.Endpoint())
	t.Setenv(catalog.EnvCursorKey, base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32)))

	h, err := newHandlerFrom(context.Background(), os.Getenv, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	run(t, h, []step{
		{event: "create-article", status: http.StatusCreated},
		{event: "create-article", edit: withBody(`{"id": "second", "title": "Second"}`), status: http.StatusCreated},
		{event: "list-articles", edit: withQueryParameter("limit", "1"), status: http.StatusOK, check: func(t *testing.T, body response) {
			// A sealed cursor is not the readable JSON of a plain one.
			cursor, _ := body["cursor"].(string)
			if plain, err := base64.RawURLEncoding.DecodeString(cursor); cursor == "" || err == nil && json.Valid(plain) {
				t.Errorf("cursor %q is not sealed", cursor)
			}
		}},
	})
}

func TestConfigFrom(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    config
		wantErr string
	}{
		{"prefix only", map[string]string{catalog.EnvPrefix: "catalog"}, config{prefix: "catalog"}, ""},
		{"all", map[string]string{catalog.EnvPrefix: "catalog", catalog.EnvEndpoint: "http://localhost:8000", catalog.EnvCursorKey: "AAEC"},
			config{prefix: "catalog", endpoint: "http://localhost:8000", cursorKey: []byte{0, 1, 2}}, ""},
		{"no prefix", map[string]string{}, config{}, catalog.EnvPrefix + " is not set"},
		{"cursor key not base64", map[string]string{catalog.EnvPrefix: "catalog", catalog.EnvCursorKey: "not base64!"}, config{}, catalog.EnvCursorKey + " is not base64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := configFrom(func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.prefix != tt.want.prefix || got.endpoint != tt.want.endpoint || !bytes.Equal(got.cursorKey, tt.want.cursorKey) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// run sends the steps' events to h in order, each in a subtest.
func run(t *testing.T, h *Handler, steps []step) {
	t.Helper()
	for i, s := range steps {
		t.Run(fmt.Sprintf("%02d-%s", i, s.event), func(t *testing.T) {
			req := fixture(t, s.event)
			if s.edit != nil {
				s.edit(&req)
			}
			status, headers, body := invoke(t, h, req)
			if status != s.status {
				t.Fatalf("%s: status %d, want %d; body %v", req.RouteKey, status, s.status, body)
			}
			if s.etag != "" && headers["ETag"] != s.etag {
				t.Errorf("ETag %q, want %q", headers["ETag"], s.etag)
			}
			if s.location != "" && headers["Location"] != s.location {
				t.Errorf("Location %q, want %q", headers["Location"], s.location)
			}
			if s.check != nil {
				s.check(t, body)
			}
		})
	}
}

// fixture reads the event testdata/name.json, as API Gateway sends it.
func fixture(t *testing.T, name string) events.APIGatewayV2HTTPRequest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var req events.APIGatewayV2HTTPRequest
	if err := json.Unmarshal(data, &req); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return req
}

// invoke calls the handler as the Lambda runtime does, and decodes the response.
func invoke(t *testing.T, h *Handler, req events.APIGatewayV2HTTPRequest) (int, map[string]string, response) {
	t.Helper()
	resp, err := h.Handle(context.Background(), req)
	if err != nil {
		t.Fatalf("the handler returned an error: %v", err)
	}
	var body response
	if resp.Body != "" {
		if ct := resp.Headers["Content-Type"]; ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
		if err := json.Unmarshal([]byte(resp.Body), &body); err != nil {
			t.Fatalf("body %q: %v", resp.Body, err)
		}
	}
	return resp.StatusCode, resp.Headers, body
}

// newTestHandler returns a handler on tables of its own.
func newTestHandler(t *testing.T) *Handler {
	t.Helper()
	prefix := dynamotest.Tables(t, dynamotest.API(t))
	return NewHandler(newTestCatalog(t, prefix), slog.New(slog.NewTextHandler(t.Output(), nil)))
}

func newTestCatalog(t *testing.T, prefix string) *ryno.Client {
	t.Helper()
	db, err := newCatalog(dynamotest.API(t), config{prefix: prefix}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return db
}
