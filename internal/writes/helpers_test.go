package writes

import (
	"testing"

	"github.com/rynodb/rynodb/internal/lists"
	"github.com/rynodb/rynodb/internal/requests"
	"github.com/rynodb/rynodb/internal/storetest"
)

var stateKey = storetest.StateKey

// testWriter returns a Writer over api for tables of prefix "t", sending again
// within maxAttempts at once.
func testWriter(t *testing.T, api requests.API, concurrency, maxAttempts int) *Writer {
	core := storetest.Core(t, api, concurrency, maxAttempts)
	return New(core, lists.New(core))
}
