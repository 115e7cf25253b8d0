package requests

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/rynodb/rynodb/tables"
)

// Stats gathers the report of one call while its requests run, possibly in
// parallel.
type Stats struct {
	Op    string // the method called
	start time.Time

	mu          sync.Mutex
	requests    map[string]int
	inFlight    int
	rounds      int
	retries     int
	throttles   int
	unprocessed int
	capacity    map[[2]string]*tables.Capacity
}

// NewStats starts the stats of a call of method op.
func NewStats(op string) *Stats {
	return &Stats{Op: op, start: time.Now(), requests: map[string]int{}, capacity: map[[2]string]*tables.Capacity{}}
}

// Sent records the start of a request of API op.
func (s *Stats) Sent(op string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests[op]++
	if s.inFlight == 0 {
		s.rounds++
	}
	s.inFlight++
}

// Answered records the end of a request: how many of its attempts DynamoDB
// throttled, how many attempts the SDK retried, how many items it left
// unprocessed and the capacity it consumed, counted as write capacity for a
// write when DynamoDB gives only the total.
func (s *Stats) Answered(throttles, retries, unprocessed int, consumed []types.ConsumedCapacity, write bool) {
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

func (s *Stats) add(table, index string, c *types.Capacity, write bool) {
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
		total = &tables.Capacity{Table: table, Index: index}
		s.capacity[k] = total
	}
	total.Read += read
	total.Write += written
}

// Retried records something sent again.
func (s *Stats) Retried() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.retries++
}

// Report returns the report of the call, ended with err.
func (s *Stats) Report(err error) tables.CallReport {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := tables.CallReport{
		Op: s.Op, Requests: maps.Clone(s.requests), Rounds: s.rounds, Retries: s.retries,
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
