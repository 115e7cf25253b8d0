package main

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/rynodb/rynodb/ryno"
)

// Page sizes of listings: the default, and the most a client may ask for.
const (
	defaultLimit = 20
	maxLimit     = 100
)

// maxBodyBytes bounds a request's body: an entity item holds at most 400 KB, and a
// larger body is refused before it is read whole.
const maxBodyBytes = 512 << 10

// readPayload decodes the request's body as an entity of kind k.
func readPayload(w http.ResponseWriter, r *http.Request, k kind) (payload, error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, &requestError{status: http.StatusRequestEntityTooLarge, msg: "the body is too large"}
	} else if err != nil {
		// The client's side failed: a body cut off, or sent too slowly.
		return nil, badRequest("the body could not be read: %v", err)
	}
	return decodePayload(k, b)
}

// ifMatch returns the version the request's If-Match header names, 0 when it has
// none. A header present but empty, or given twice, is refused: it names no ETag,
// and taking it for none would write unconditionally.
func ifMatch(r *http.Request) (int64, error) {
	values, ok := r.Header["If-Match"]
	if !ok {
		return 0, nil
	}
	if len(values) != 1 || values[0] == "" {
		return 0, badRequest("If-Match must be one ETag, as sent in the ETag header")
	}
	return parseIfMatch(values[0])
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

// etag is the ETag of an entity's version: a strong validator, quoted.
func etag(version int64) string { return strconv.Quote(strconv.FormatInt(version, 10)) }

// pageOptions reads the limit and cursor query parameters of a listing.
func pageOptions(r *http.Request) (ryno.PageOptions, error) {
	q := r.URL.Query()
	p := ryno.PageOptions{Limit: defaultLimit, Cursor: q.Get("cursor")}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxLimit {
			return p, badRequest("limit must be a number from 1 to %d", maxLimit)
		}
		p.Limit = n
	}
	return p, nil
}
