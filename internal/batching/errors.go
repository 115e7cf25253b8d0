package batching

import (
	"errors"

	"github.com/rynodb/rynodb/tables"
)

// ErrUnprocessed is the cause in an *Error when DynamoDB kept leaving items
// unprocessed until the retry budget ran out.
var ErrUnprocessed = errors.New("ryno: items left unprocessed after retries")

// Error reports the items a batch read or write could not finish: package tables'
// BatchError, which package ryno names BatchError too.
type Error = tables.BatchError

// ItemKey is the primary key of one item of one table.
type ItemKey = tables.ItemKey
