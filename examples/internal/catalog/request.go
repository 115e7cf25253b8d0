package catalog

import (
	"strconv"
	"strings"

	"github.com/rynodb/rynodb/ryno"
)

// Request is what a route reads of a request, whatever transport carries it.
type Request interface {
	// PathValue returns the value of the route's path parameter name, such as "id".
	PathValue(name string) string
	// Query returns the value of the query parameter name, and whether the request
	// gives it.
	Query(name string) (string, bool)
	// IfMatch returns the version the If-Match header names (ParseIfMatch), 0 when
	// it has none.
	IfMatch() (int64, error)
	// Body returns the request's body.
	Body() ([]byte, error)
}

// Page sizes of listings: the default, and the most a client may ask for.
const (
	defaultLimit = 20
	maxLimit     = 100
)

// readPayload decodes the request's body as an entity of kind k.
func readPayload(req Request, k Kind) (payload, error) {
	b, err := req.Body()
	if err != nil {
		return nil, err
	}
	return decodePayload(k, b)
}

// ParseIfMatch parses an If-Match value: one ETag as the API sends it ("3"). A
// list of ETags, a weak one or * are refused rather than half supported.
func ParseIfMatch(h string) (int64, error) {
	if h == "" {
		return 0, nil
	}
	digits, quoted := strings.CutPrefix(h, `"`)
	digits, closed := strings.CutSuffix(digits, `"`)
	v, err := strconv.ParseInt(digits, 10, 64)
	if !quoted || !closed || err != nil || v < 1 || strconv.FormatInt(v, 10) != digits {
		return 0, BadRequest("If-Match must be one ETag, as sent in the ETag header")
	}
	return v, nil
}

// ETag is the ETag of an entity's version: a strong validator, quoted.
func ETag(version int64) string { return strconv.Quote(strconv.FormatInt(version, 10)) }

// pageOptions reads the limit and cursor query parameters of a listing.
func pageOptions(req Request) (ryno.PageOptions, error) {
	cursor, _ := req.Query("cursor")
	p := ryno.PageOptions{Limit: defaultLimit, Cursor: cursor}
	if s, ok := req.Query("limit"); ok {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxLimit {
			return p, BadRequest("limit must be a number from 1 to %d", maxLimit)
		}
		p.Limit = n
	}
	return p, nil
}
