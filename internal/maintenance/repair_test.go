package maintenance

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/check"
	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/requests"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

func orphanOf(entry int, missing string) orphan {
	return orphan{Orphan: check.Orphan{
		Entry:   batching.ItemKey{Table: "t", Key: testKey(entry)},
		Role:    "object",
		Missing: store.Key{Scope: "s", Type: "t", ID: missing},
	}}
}

func TestPlanRepairsStaysWithinTheTransactionLimit(t *testing.T) {
	tests := []struct {
		name    string
		orphans []orphan
		want    [][2]int // orphans and condition checks of each transaction
	}{
		{"none", nil, nil},
		{"one", []orphan{orphanOf(0, "a")}, [][2]int{{1, 1}}},
		{"one entity shares its check", []orphan{orphanOf(0, "a"), orphanOf(1, "a"), orphanOf(2, "b")}, [][2]int{{3, 2}}},
		{"50 entities with an orphan each fill one", orphans(50, 50), [][2]int{{50, 50}}},
		{"51 spill over", orphans(51, 51), [][2]int{{50, 50}, {1, 1}}},
		{"99 orphans of one entity", orphans(99, 1), [][2]int{{99, 1}}},
		{"100 orphans of one entity", orphans(100, 1), [][2]int{{99, 1}, {1, 1}}},
	}
	names, err := schema.NewNames("t")
	require.NoError(t, err)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plans := planRepairs(tt.orphans)
			var got [][2]int
			total := 0
			for _, p := range plans {
				got = append(got, [2]int{len(p.orphans), len(p.missing)})
				require.LessOrEqual(t, len(p.actions(names)), actions.MaxItems)
				for _, o := range p.orphans {
					require.Contains(t, p.missing, o.Missing, "each orphan's entity is checked in its transaction")
				}
				total += len(p.orphans)
			}
			require.Equal(t, tt.want, got)
			require.Equal(t, len(tt.orphans), total, "every orphan is planned once")
		})
	}
}

// orphans returns n orphans missing entities spread over m ids.
func orphans(n, m int) []orphan {
	out := make([]orphan, n)
	for i := range out {
		out[i] = orphanOf(i, fmt.Sprintf("e%d", i%m))
	}
	return out
}

func TestCancellationCauses(t *testing.T) {
	r := planRepairs([]orphan{orphanOf(0, "a"), orphanOf(1, "b"), orphanOf(2, "a")})[0]
	reason := func(code string) types.CancellationReason { return types.CancellationReason{Code: aws.String(code)} }
	tests := []struct {
		name      string
		reasons   []types.CancellationReason
		alive     []string
		retryable bool
		left      int // orphans left to delete
	}{
		{"b was created", []types.CancellationReason{reason("None"), reason("ConditionalCheckFailed"), reason("None"), reason("None"), reason("None")}, []string{"b"}, true, 2},
		{"a conflict", []types.CancellationReason{reason("None"), reason("TransactionConflict")}, nil, true, 3},
		{"throttled", []types.CancellationReason{reason("ThrottlingError")}, nil, true, 3},
		{"a validation error", []types.CancellationReason{reason("ValidationError")}, nil, false, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := batching.Cancelled(&types.TransactionCanceledException{CancellationReasons: tt.reasons})
			alive, retryable := r.alive(c), c.Fatal < 0
			require.Equal(t, tt.retryable, retryable)
			require.Len(t, alive, len(tt.alive))
			for _, id := range tt.alive {
				require.True(t, alive[store.Key{Scope: "s", Type: "t", ID: id}])
			}
			left := r.without(alive)
			require.Len(t, left.orphans, tt.left)
			require.Len(t, left.missing, 2-len(tt.alive))
		})
	}
}

// transactStub answers TransactWriteItems with reply; other operations panic.
type transactStub struct {
	requests.API
	mu    sync.Mutex
	sent  [][]types.TransactWriteItem
	reply func(call int) error
}

func (s *transactStub) TransactWriteItems(_ context.Context, in *dynamodb.TransactWriteItemsInput, _ ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, in.TransactItems)
	return &dynamodb.TransactWriteItemsOutput{}, s.reply(len(s.sent))
}

func canceled(codes ...string) error {
	reasons := make([]types.CancellationReason, len(codes))
	for i, c := range codes {
		reasons[i] = types.CancellationReason{Code: aws.String(c)}
	}
	return &types.TransactionCanceledException{Message: aws.String("canceled"), CancellationReasons: reasons}
}

func TestRepairClaims(t *testing.T) {
	// Checks of a and b, then the deletes of entries 0 (a), 1 (b) and 2 (a).
	three := []orphan{orphanOf(0, "a"), orphanOf(1, "b"), orphanOf(2, "a")}
	tests := []struct {
		name          string
		reply         func(call int) error
		deleted, kept int
		requests      []int // actions of each request
		failed        []int // entries named by the error
	}{
		{"all at once", func(int) error { return nil }, 3, 0, []int{5}, nil},
		{"b created meanwhile", func(call int) error {
			if call == 1 {
				return canceled("None", "ConditionalCheckFailed", "None", "None", "None")
			}
			return nil
		}, 2, 1, []int{5, 3}, nil},
		{"a conflict is retried", func(call int) error {
			if call == 1 {
				return canceled("None", "None", "TransactionConflict", "None", "None")
			}
			return nil
		}, 3, 0, []int{5, 5}, nil},
		{"a validation error names every entry", func(int) error {
			return canceled("ValidationError")
		}, 0, 0, []int{5}, []int{0, 1, 2}},
		{"conflicts until the budget ends", func(int) error {
			return canceled("TransactionConflict")
		}, 0, 0, []int{5, 5, 5}, []int{0, 1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stub := &transactStub{reply: tt.reply}
			c := testMaintainer(t, stub, 1, 3)
			deleted, kept, err := c.repairClaims(context.Background(), c.core.Batch.Shared(), three)
			require.Equal(t, tt.deleted, deleted)
			require.Equal(t, tt.kept, kept)
			var sizes []int
			for _, acts := range stub.sent {
				sizes = append(sizes, len(acts))
			}
			require.Equal(t, tt.requests, sizes)
			if tt.failed == nil {
				require.NoError(t, err)
				return
			}
			var be *batching.Error
			require.ErrorAs(t, err, &be)
			var txErr *types.TransactionCanceledException
			require.ErrorAs(t, err, &txErr)
			var want []batching.ItemKey
			for _, i := range tt.failed {
				want = append(want, three[i].Entry)
			}
			require.ElementsMatch(t, want, be.Keys)
		})
	}
}
