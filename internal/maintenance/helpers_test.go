package maintenance

import (
	"testing"

	"github.com/rynodb/rynodb/internal/deletes"
	"github.com/rynodb/rynodb/internal/lists"
	"github.com/rynodb/rynodb/internal/requests"
	"github.com/rynodb/rynodb/internal/storetest"
)

var testKey = storetest.TestKey

// testMaintainer returns a Maintainer over api for tables of prefix "t", whose
// retries do not sleep.
func testMaintainer(t *testing.T, api requests.API, concurrency, maxAttempts int) *Maintainer {
	core := storetest.Core(t, api, concurrency, maxAttempts)
	le := lists.New(core)
	dels := deletes.New(core, le)
	core.Deletes = dels
	return New(core, le, dels)
}
