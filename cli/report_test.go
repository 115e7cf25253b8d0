package cli

import (
	"errors"
	"testing"
	"time"

	"github.com/rynodb/rynodb/ryno"
)

func TestFormatReport(t *testing.T) {
	tests := []struct {
		name string
		r    ryno.CallReport
		want string
	}{
		{
			name: "no requests",
			r:    ryno.CallReport{Op: "Get", Duration: 3 * time.Millisecond, Err: errors.New("ryno: invalid")},
			want: "report: Get: 0 requests in 0 rounds, 0 retries, 0 throttles, 0 unprocessed, 3ms\n",
		},
		{
			name: "requests and capacity",
			r: ryno.CallReport{
				Op: "Check", Requests: map[string]int{"Scan": 4, "BatchGetItem": 1}, Rounds: 3, Retries: 1, Throttles: 1,
				Unprocessed: 2, Duration: 1500 * time.Millisecond,
				Capacity: []ryno.Capacity{{Table: "p_entities_master", Read: 1.5}, {Table: "p_index_entries", Index: "p_index_lookup", Write: 2}},
			},
			want: "report: Check: 5 requests (BatchGetItem 1, Scan 4) in 3 rounds, 1 retry, 1 throttle, 2 unprocessed, 1.5s\n" +
				"  capacity p_entities_master: 1.5 read, 0 write\n" +
				"  capacity p_index_entries/p_index_lookup: 0 read, 2 write\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := formatReport(tt.r); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
