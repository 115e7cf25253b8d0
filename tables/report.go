package tables

import (
	"fmt"
	"time"
)

// CallReport is what one call of a store's client cost: the requests it sent to
// the tables, in how many rounds, what was sent again and the capacity it
// consumed. ryno.Options.OnCall receives one when each call returns (as
// ryno.CallReport, which is this type). An iterator reports each page as one call
// of the listing it pages, and a call made by another (RelatedEntities reading the
// entities) is part of the outer call's report.
type CallReport struct {
	Op       string         // the Client method, such as "Get" or "AddRelationships"
	Requests map[string]int // requests sent, by DynamoDB API ("GetItem", "Query", ...)
	// Rounds counts the busy periods of the call: requests sent in parallel share a
	// round, requests sent one after another take one each.
	Rounds int
	// Retries counts what was sent again: attempts the SDK's retryer made, and the
	// store's retries after throttling, items left unprocessed, a transaction
	// conflict, a lost response, or a write that lost a race with another writer.
	// A Set or Update without a version over a stored shape the client has not met
	// counts one: its first attempt, an update that needs no read, is refused.
	Retries     int
	Throttles   int        // attempts DynamoDB throttled
	Unprocessed int        // items DynamoDB left unprocessed, counted at each response
	Capacity    []Capacity // capacity consumed, by table and index, in name order
	Duration    time.Duration
	Err         error // what the call returned
}

// RequestCount returns the number of requests the call sent.
func (r CallReport) RequestCount() int {
	n := 0
	for _, v := range r.Requests {
		n += v
	}
	return n
}

// Capacity is the capacity a call consumed on one table or one of its indexes, as
// DynamoDB reports it (ReturnConsumedCapacity INDEXES).
type Capacity struct {
	Table string
	Index string // empty for the table itself
	Read  float64
	Write float64
}

// String prints the capacity as "table[/index]: R read, W write".
func (c Capacity) String() string {
	name := c.Table
	if c.Index != "" {
		name += "/" + c.Index
	}
	return fmt.Sprintf("%s: %g read, %g write", name, c.Read, c.Write)
}
