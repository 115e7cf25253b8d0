package ryno

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// CallReport is what one call of a Client cost, given to Options.OnCall when the
// call returns. An iterator (AllByType, ...) reports each page as one call of the
// listing it pages, and a call made by another (RelatedEntities reading the entities)
// is part of the outer call's report.
type CallReport struct {
	Op       string         // the Client method, such as "Get" or "AddRelationships"
	Requests map[string]int // requests sent, by DynamoDB API ("GetItem", "Query", ...)
	// Rounds counts the busy periods of the call: requests sent in parallel share a
	// round, requests sent one after another take one each.
	Rounds int
	// Retries counts what was sent again: attempts the SDK's retryer made, and the
	// store's retries after throttling, items left unprocessed, a transaction
	// conflict, a lost response, or a write that lost a race with another writer.
	// A Set of an entity that exists counts one: its first attempt guesses the
	// entity new, which saves a read when it is.
	Retries     int
	Throttles   int        // attempts DynamoDB throttled
	Unprocessed int        // items DynamoDB left unprocessed, counted at each response
	Capacity    []Capacity // capacity consumed, by table and index, in name order
	Duration    time.Duration
	Err         error // what the call returned
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

// RequestCount returns the number of requests the call sent.
func (r CallReport) RequestCount() int {
	n := 0
	for _, v := range r.Requests {
		n += v
	}
	return n
}

// callStats gathers the report of one call while its requests run, possibly in
// parallel.
type callStats struct {
	op    string
	start time.Time

	mu          sync.Mutex
	requests    map[string]int
	inFlight    int
	rounds      int
	retries     int
	throttles   int
	unprocessed int
	capacity    map[[2]string]*Capacity
}

func newCallStats(op string) *callStats {
	return &callStats{op: op, start: time.Now(), requests: map[string]int{}, capacity: map[[2]string]*Capacity{}}
}

// sent records the start of a request of API op.
func (s *callStats) sent(op string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests[op]++
	if s.inFlight == 0 {
		s.rounds++
	}
	s.inFlight++
}

// answered records the end of a request: how many of its attempts DynamoDB
// throttled, how many attempts the SDK retried, how many items it left
// unprocessed and the capacity it consumed, counted as write capacity for a
// write when DynamoDB gives only the total.
func (s *callStats) answered(throttles, retries, unprocessed int, consumed []types.ConsumedCapacity, write bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inFlight--
	s.throttles += throttles
	s.retries += retries
	s.unprocessed += unprocessed
	for _, cc := range consumed {
		table := aws.ToString(cc.TableName)
		if cc.Table != nil {
			s.add(table, "", cc.Table, write)
		} else {
			s.add(table, "", &types.Capacity{CapacityUnits: cc.CapacityUnits, ReadCapacityUnits: cc.ReadCapacityUnits, WriteCapacityUnits: cc.WriteCapacityUnits}, write)
		}
		for name, c := range cc.GlobalSecondaryIndexes {
			s.add(table, name, &c, write)
		}
		for name, c := range cc.LocalSecondaryIndexes {
			s.add(table, name, &c, write)
		}
	}
}

func (s *callStats) add(table, index string, c *types.Capacity, write bool) {
	read, written := aws.ToFloat64(c.ReadCapacityUnits), aws.ToFloat64(c.WriteCapacityUnits)
	if read == 0 && written == 0 {
		if write {
			written = aws.ToFloat64(c.CapacityUnits)
		} else {
			read = aws.ToFloat64(c.CapacityUnits)
		}
	}
	if read == 0 && written == 0 {
		return
	}
	k := [2]string{table, index}
	total := s.capacity[k]
	if total == nil {
		total = &Capacity{Table: table, Index: index}
		s.capacity[k] = total
	}
	total.Read += read
	total.Write += written
}

func (s *callStats) retried() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.retries++
}

// report returns the report of the call, ended with err.
func (s *callStats) report(err error) CallReport {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := CallReport{
		Op: s.op, Requests: maps.Clone(s.requests), Rounds: s.rounds, Retries: s.retries,
		Throttles: s.throttles, Unprocessed: s.unprocessed, Duration: time.Since(s.start), Err: err,
	}
	for _, k := range slices.SortedFunc(maps.Keys(s.capacity), compareCapacityKeys) {
		r.Capacity = append(r.Capacity, *s.capacity[k])
	}
	return r
}

func compareCapacityKeys(a, b [2]string) int {
	return cmp.Or(strings.Compare(a[0], b[0]), strings.Compare(a[1], b[1]))
}
