package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/rynodb/rynodb/ryno"
)

// Handler serves the catalogue's API as a Lambda function behind an API Gateway
// HTTP API (payload format 2.0). It holds no state of its own beyond the store's
// client, so one Handler serves every invocation of a warm function.
type Handler struct {
	db     *ryno.Client
	log    *slog.Logger
	routes map[string]route
}

// route serves the events of one route key, such as "GET /articles/{id}".
type route func(ctx context.Context, req *events.APIGatewayV2HTTPRequest) (reply, error)

// reply is what a route answers, before it becomes an API Gateway response.
type reply struct {
	status   int
	body     any    // encoded as JSON; nil for no body
	version  int64  // the entity's version, sent as its ETag; 0 for none
	location string // the Location header of a created entity
}

// answerMargin is the time kept before the invocation's deadline to answer and log
// a call that ran out of time: past the deadline Lambda ends the function, and the
// client gets a bare error with nothing logged.
const answerMargin = time.Second

// withAnswerMargin returns ctx ending answerMargin before its deadline, or at once
// when less remains; ctx as it is when it has no deadline.
func withAnswerMargin(ctx context.Context) (context.Context, context.CancelFunc) {
	deadline, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, deadline.Add(-answerMargin))
}

// NewHandler returns a Handler serving the catalogue in db; it logs the errors
// it hides from clients to log.
func NewHandler(db *ryno.Client, log *slog.Logger) *Handler {
	h := &Handler{db: db, log: log}
	h.routes = h.routeTable()
	return h
}

// Handle answers one API Gateway event. Errors become responses with their status,
// so the returned error is always nil: a Lambda error would reach the client as a
// bare 500 and count as a failed invocation.
func (h *Handler) Handle(ctx context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	ctx, cancel := withAnswerMargin(ctx)
	defer cancel()
	serve, ok := h.routes[req.RouteKey]
	if !ok {
		return h.failure(ctx, &req, errNoRoute), nil
	}
	r, err := serve(ctx, &req)
	if err != nil {
		return h.failure(ctx, &req, err), nil
	}
	resp, err := r.response()
	if err != nil {
		return h.failure(ctx, &req, err), nil
	}
	return resp, nil
}

// failure answers err with its status; a 500 is logged with its cause.
func (h *Handler) failure(ctx context.Context, req *events.APIGatewayV2HTTPRequest, err error) events.APIGatewayV2HTTPResponse {
	status, msg := statusOf(err)
	if status == http.StatusInternalServerError {
		h.log.ErrorContext(ctx, "request failed", "route", req.RouteKey,
			"request_id", req.RequestContext.RequestID, "error", err)
	}
	resp, _ := reply{status: status, body: map[string]string{"error": msg}}.response()
	if seconds, ok := retryAfter(err, time.Now()); ok && status == http.StatusServiceUnavailable {
		resp.Headers["Retry-After"] = strconv.Itoa(seconds)
	}
	return resp // a map of strings always encodes
}

// response encodes the reply as API Gateway expects it.
func (r reply) response() (events.APIGatewayV2HTTPResponse, error) {
	resp := events.APIGatewayV2HTTPResponse{StatusCode: r.status, Headers: map[string]string{}}
	if r.body != nil {
		body, err := json.Marshal(r.body)
		if err != nil {
			return events.APIGatewayV2HTTPResponse{}, err
		}
		resp.Body = string(body)
		resp.Headers["Content-Type"] = "application/json"
	}
	if r.version != 0 {
		resp.Headers["ETag"] = etag(r.version)
	}
	if r.location != "" {
		resp.Headers["Location"] = r.location
	}
	return resp, nil
}

// etag is the ETag of an entity's version: a strong validator, quoted.
func etag(version int64) string { return strconv.Quote(strconv.FormatInt(version, 10)) }
