package main

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/rynodb/rynodb/ryno"
)

// Page sizes of listings: the default, and the most a client may ask for.
const (
	defaultLimit = 20
	maxLimit     = 100
)

// body returns the request's body, which API Gateway base64-encodes when it is
// not text.
func body(req *events.APIGatewayV2HTTPRequest) ([]byte, error) {
	if !req.IsBase64Encoded {
		return []byte(req.Body), nil
	}
	b, err := base64.StdEncoding.DecodeString(req.Body)
	if err != nil {
		return nil, badRequest("the body is not valid base64")
	}
	return b, nil
}

// ifMatch returns the version the request's If-Match header names, 0 when it has
// none. API Gateway passes header names in lower case.
func ifMatch(req *events.APIGatewayV2HTTPRequest) (int64, error) {
	h, ok := req.Headers["if-match"]
	if ok && h == "" { // present but empty names no ETag: not a write without one
		return 0, badRequest("If-Match must be one ETag, as sent in the ETag header")
	}
	return parseIfMatch(h)
}

// parseIfMatch parses an If-Match value: one ETag as the API sends it ("3"). A
// list of ETags, a weak one or * are refused rather than half supported.
func parseIfMatch(h string) (int64, error) {
	if h == "" {
		return 0, nil
	}
	digits, quoted := strings.CutPrefix(h, `"`)
	digits, closed := strings.CutSuffix(digits, `"`)
	v, err := strconv.ParseInt(digits, 10, 64)
	if !quoted || !closed || err != nil || v < 1 || strconv.FormatInt(v, 10) != digits {
		return 0, badRequest("If-Match must be one ETag, as sent in the ETag header")
	}
	return v, nil
}

// pageOptions reads the limit and cursor query parameters of a listing.
func pageOptions(req *events.APIGatewayV2HTTPRequest) (ryno.PageOptions, error) {
	q := req.QueryStringParameters
	p := ryno.PageOptions{Limit: defaultLimit, Cursor: q["cursor"]}
	if s, ok := q["limit"]; ok {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxLimit {
			return p, badRequest("limit must be a number from 1 to %d", maxLimit)
		}
		p.Limit = n
	}
	return p, nil
}
