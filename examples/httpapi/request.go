package main

import (
	"errors"
	"io"
	"net/http"
	"net/url"

	"github.com/rynodb/rynodb/examples/internal/catalog"
)

// maxBodyBytes bounds a request's body: an entity item holds at most 400 KB, and a
// larger body is refused before it is read whole.
const maxBodyBytes = 512 << 10

// request is an HTTP request as the catalogue's routes read it.
type request struct {
	w     http.ResponseWriter
	r     *http.Request
	query url.Values
}

func newRequest(w http.ResponseWriter, r *http.Request) request {
	return request{w: w, r: r, query: r.URL.Query()}
}

func (req request) PathValue(name string) string { return req.r.PathValue(name) }

// Query returns the query parameter name; an empty one is taken for none.
func (req request) Query(name string) (string, bool) {
	v := req.query.Get(name)
	return v, v != ""
}

func (req request) IfMatch() (int64, error) { return ifMatch(req.r) }

// Body reads the request's body, up to maxBodyBytes.
func (req request) Body() ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(req.w, req.r.Body, maxBodyBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, &catalog.RequestError{Status: http.StatusRequestEntityTooLarge, Message: "the body is too large"}
	} else if err != nil {
		// The client's side failed: a body cut off, or sent too slowly.
		return nil, catalog.BadRequest("the body could not be read: %v", err)
	}
	return b, nil
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
		return 0, catalog.BadRequest("If-Match must be one ETag, as sent in the ETag header")
	}
	return catalog.ParseIfMatch(values[0])
}
