package dynamotest

import (
	"io"
	"net/http"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Wire counts the bytes of the responses a DynamoDB client reads off the wire:
// what a call moves, whatever the SDK decodes of it.
type Wire struct {
	inner dynamodb.HTTPClient
	read  atomic.Int64
}

// CountWire returns a client sending as api does, with its response bytes counted
// by the Wire returned.
func CountWire(api *dynamodb.Client) (*dynamodb.Client, *Wire) {
	w := &Wire{}
	counted := dynamodb.New(api.Options(), func(o *dynamodb.Options) {
		w.inner = o.HTTPClient
		if w.inner == nil {
			w.inner = http.DefaultClient
		}
		o.HTTPClient = w
	})
	return counted, w
}

// Do sends r and counts the bytes of its response body as they are read.
func (w *Wire) Do(r *http.Request) (*http.Response, error) {
	resp, err := w.inner.Do(r)
	if err == nil && resp.Body != nil {
		resp.Body = &countedBody{ReadCloser: resp.Body, n: &w.read}
	}
	return resp, err
}

// Read returns the response bytes read since the last Reset.
func (w *Wire) Read() int64 { return w.read.Load() }

// Reset sets the count to zero.
func (w *Wire) Reset() { w.read.Store(0) }

type countedBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}
