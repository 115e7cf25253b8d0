package main

import (
	"encoding/base64"

	"github.com/aws/aws-lambda-go/events"

	"github.com/rynodb/rynodb/examples/internal/catalog"
)

// request is an API Gateway event as the catalogue's routes read it. API Gateway
// has matched the route already and passes its path parameters.
type request struct {
	ev *events.APIGatewayV2HTTPRequest
}

func (req request) PathValue(name string) string { return req.ev.PathParameters[name] }

func (req request) Query(name string) (string, bool) {
	v, ok := req.ev.QueryStringParameters[name]
	return v, ok
}

func (req request) IfMatch() (int64, error) { return ifMatch(req.ev) }

func (req request) Body() ([]byte, error) { return body(req.ev) }

// body returns the request's body, which API Gateway base64-encodes when it is
// not text.
func body(req *events.APIGatewayV2HTTPRequest) ([]byte, error) {
	if !req.IsBase64Encoded {
		return []byte(req.Body), nil
	}
	b, err := base64.StdEncoding.DecodeString(req.Body)
	if err != nil {
		return nil, catalog.BadRequest("the body is not valid base64")
	}
	return b, nil
}

// ifMatch returns the version the request's If-Match header names, 0 when it has
// none. API Gateway passes header names in lower case.
func ifMatch(req *events.APIGatewayV2HTTPRequest) (int64, error) {
	h, ok := req.Headers["if-match"]
	if ok && h == "" { // present but empty names no ETag: not a write without one
		return 0, catalog.BadRequest("If-Match must be one ETag, as sent in the ETag header")
	}
	return catalog.ParseIfMatch(h)
}
