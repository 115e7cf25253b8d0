package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/rynodb/rynodb/examples/internal/catalog"
	"github.com/rynodb/rynodb/ryno"
)

// Handler serves the catalogue's API as a Lambda function behind an API Gateway
// HTTP API (payload format 2.0). It holds no state of its own beyond the store's
// client, so one Handler serves every invocation of a warm function.
type Handler struct {
	db  *ryno.Client
	log *slog.Logger
	// routes maps the route keys of the HTTP API (template.yaml declares the same
	// routes) to their handlers. API Gateway has matched the path already and
	// passes its parameters, so the function needs no router of its own.
	routes map[string]catalog.Handler
}

// errNoRoute reports an event for a route this function does not serve.
var errNoRoute = &catalog.RequestError{Status: http.StatusNotFound, Message: "no such route"}

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
	return &Handler{db: db, log: log, routes: catalog.Routes(db)}
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
	r, err := serve(ctx, request{&req})
	if err != nil {
		return h.failure(ctx, &req, err), nil
	}
	resp, err := encode(r)
	if err != nil {
		return h.failure(ctx, &req, err), nil
	}
	return resp, nil
}

// failure answers err with its status; a 500 is logged with its cause.
func (h *Handler) failure(ctx context.Context, req *events.APIGatewayV2HTTPRequest, err error) events.APIGatewayV2HTTPResponse {
	status, msg := catalog.StatusOf(err)
	if status == http.StatusInternalServerError {
		h.log.ErrorContext(ctx, "request failed", "route", req.RouteKey,
			"request_id", req.RequestContext.RequestID, "error", err)
	}
	resp, _ := encode(catalog.Reply{Status: status, Body: map[string]string{"error": msg}})
	if seconds, ok := catalog.RetryAfter(err, time.Now()); ok && status == http.StatusServiceUnavailable {
		resp.Headers["Retry-After"] = strconv.Itoa(seconds)
	}
	return resp // a map of strings always encodes
}

// encode returns the reply as API Gateway expects it.
func encode(r catalog.Reply) (events.APIGatewayV2HTTPResponse, error) {
	resp := events.APIGatewayV2HTTPResponse{StatusCode: r.Status, Headers: map[string]string{}}
	if r.Body != nil {
		body, err := json.Marshal(r.Body)
		if err != nil {
			return events.APIGatewayV2HTTPResponse{}, err
		}
		resp.Body = string(body)
		resp.Headers["Content-Type"] = "application/json"
	}
	if r.Version != 0 {
		resp.Headers["ETag"] = catalog.ETag(r.Version)
	}
	if r.Location != "" {
		resp.Headers["Location"] = r.Location
	}
	return resp, nil
}
