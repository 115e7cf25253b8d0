package main

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// withIfMatch sets the If-Match header of the event; "" removes it.
func withIfMatch(v string) func(*events.APIGatewayV2HTTPRequest) {
	return func(req *events.APIGatewayV2HTTPRequest) {
		if v == "" {
			delete(req.Headers, "if-match")
			return
		}
		req.Headers["if-match"] = v
	}
}

// withPathParameter sets a path parameter of the event, as API Gateway would for
// another path of the same route.
func withPathParameter(name, value string) func(*events.APIGatewayV2HTTPRequest) {
	return func(req *events.APIGatewayV2HTTPRequest) {
		req.RawPath = strings.Replace(req.RawPath, req.PathParameters[name], value, 1)
		req.RequestContext.HTTP.Path = req.RawPath
		req.PathParameters[name] = value
	}
}

// withQueryParameter sets a query parameter of the event.
func withQueryParameter(name, value string) func(*events.APIGatewayV2HTTPRequest) {
	return func(req *events.APIGatewayV2HTTPRequest) {
		if req.QueryStringParameters == nil {
			req.QueryStringParameters = map[string]string{}
		}
		req.QueryStringParameters[name] = value
	}
}

// withBody replaces the event's body.
func withBody(body string) func(*events.APIGatewayV2HTTPRequest) {
	return func(req *events.APIGatewayV2HTTPRequest) { req.Body = body }
}

// fields checks attributes of the body: name, value, name, value, ...
func fields(nameValues ...any) func(*testing.T, response) {
	return func(t *testing.T, body response) {
		t.Helper()
		for i := 0; i < len(nameValues); i += 2 {
			name := nameValues[i].(string)
			if got := body[name]; !reflect.DeepEqual(got, nameValues[i+1]) {
				t.Errorf("%s = %#v, want %#v", name, got, nameValues[i+1])
			}
		}
	}
}

// errorIs checks the body is the error msg.
func errorIs(msg string) func(*testing.T, response) {
	return func(t *testing.T, body response) {
		t.Helper()
		if body["error"] != msg {
			t.Errorf("error %q, want %q", body["error"], msg)
		}
	}
}

// errorContains checks the body is an error containing part.
func errorContains(part string) func(*testing.T, response) {
	return func(t *testing.T, body response) {
		t.Helper()
		if msg, _ := body["error"].(string); !strings.Contains(msg, part) {
			t.Errorf("error %q does not contain %q", msg, part)
		}
	}
}

// ids checks the body is a page of the entities with these ids, in this order.
func ids(want ...string) func(*testing.T, response) {
	return func(t *testing.T, body response) {
		t.Helper()
		if got := idsOf(t, body); !slices.Equal(got, want) {
			t.Errorf("ids %q, want %q", got, want)
		}
	}
}

// idsOf returns the ids of a page's items.
func idsOf(t *testing.T, body response) []string {
	t.Helper()
	items, ok := body["items"].([]any)
	if !ok {
		t.Fatalf("no items in %v", body)
	}
	ids := []string{}
	for _, item := range items {
		ids = append(ids, item.(map[string]any)["id"].(string))
	}
	return ids
}

// updatedOf returns the times a page's items were last written.
func updatedOf(t *testing.T, body response) []time.Time {
	t.Helper()
	var times []time.Time
	for _, item := range body["items"].([]any) {
		at, err := time.Parse(time.RFC3339Nano, item.(map[string]any)["updated"].(string))
		if err != nil {
			t.Fatal(err)
		}
		times = append(times, at)
	}
	return times
}
