package store

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/exprtest"
	"github.com/rynodb/rynodb/internal/requests"
	"github.com/rynodb/rynodb/internal/schema"
)

const opsTable = "t_index_entries"

// paddedOps returns n puts of entries, each with a value of pad bytes.
func paddedOps(n, pad int) []batching.WriteOp {
	ops := make([]batching.WriteOp, n)
	for i := range ops {
		ops[i] = batching.PutOp(opsTable, testKey(i), testItem(i, strings.Repeat("x", pad)))
	}
	return ops
}

func opsSize(ops []batching.WriteOp) int {
	n := 0
	for _, op := range ops {
		n += op.Size()
	}
	return n
}

func TestGuardAction(t *testing.T) {
	k := Key{Scope: "s", Type: "t", ID: "a:b"}
	tests := []struct {
		name string
		g    Guard
		want string
	}{
		{"pending", Guard{Key: k, Attr: schema.AttrPending, Token: "tok"}, `_pending="tok"`},
		{"deleting", Guard{Key: k, Attr: schema.AttrDeleting, Token: "tok"}, `_deleting="tok"`},
		{"absent", Guard{Key: k, Absent: true}, "attribute_not_exists(_id)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			act := tt.g.Action("t_entities_master")
			require.Nil(t, act.Put)
			require.Nil(t, act.Delete)
			require.Nil(t, act.Update)
			cc := act.ConditionCheck
			require.NotNil(t, cc)
			require.Equal(t, "t_entities_master", aws.ToString(cc.TableName))
			require.Equal(t, actions.EntityKey(k), cc.Key)
			require.Equal(t, tt.want, exprtest.Render(t, cc.ConditionExpression, cc.ExpressionAttributeNames, cc.ExpressionAttributeValues))
		})
	}
}

// transactRecorder records the TransactWriteItems requests it gets and answers
// them with reply (nil: all commit). Like DynamoDB, it refuses a request naming
// an item twice or with over 100 actions, and ends with the context.
type transactRecorder struct {
	requests.API
	t     *testing.T
	reply func(call int, in *dynamodb.TransactWriteItemsInput) error

	mu       sync.Mutex
	requests []*dynamodb.TransactWriteItemsInput
}

func (r *transactRecorder) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, _ ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// A copy, as sent: the store sends the same input again when it retries.
	sent := *in
	sent.TransactItems = slices.Clone(in.TransactItems)
	r.mu.Lock()
	r.requests = append(r.requests, &sent)
	call := len(r.requests)
	r.mu.Unlock()
	if len(in.TransactItems) > actions.MaxItems {
		r.t.Errorf("request %d has %d actions", call, len(in.TransactItems))
	}
	seen := map[string]bool{}
	for _, id := range actionIDs(in.TransactItems) {
		if seen[id] {
			r.t.Errorf("request %d names %q twice", call, id)
		}
		seen[id] = true
	}
	if r.reply == nil {
		return &dynamodb.TransactWriteItemsOutput{}, nil
	}
	return &dynamodb.TransactWriteItemsOutput{}, r.reply(call, in)
}

// actionIDs identifies the item of each action: entity items by their key, entries
// by pk and sk.
func actionIDs(acts []types.TransactWriteItem) []string {
	ids := make([]string, len(acts))
	entryKey := func(item map[string]types.AttributeValue) map[string]types.AttributeValue {
		return batching.Project(item, []string{"pk", "sk"})
	}
	for i, a := range acts {
		switch {
		case a.ConditionCheck != nil:
			ids[i] = batching.ItemID(aws.ToString(a.ConditionCheck.TableName), a.ConditionCheck.Key)
		case a.Put != nil:
			ids[i] = batching.ItemID(aws.ToString(a.Put.TableName), entryKey(a.Put.Item))
		case a.Delete != nil:
			ids[i] = batching.ItemID(aws.ToString(a.Delete.TableName), a.Delete.Key)
		}
	}
	return ids
}

// opsOfSize returns n puts of total bytes in all.
func opsOfSize(n, total int) []batching.WriteOp {
	ops := paddedOps(n, (total-opsSize(paddedOps(n, 0)))/n)
	last := n - 1
	pad := total - opsSize(ops[:last]) - schema.ItemSize(testItem(last, ""))
	ops[last] = batching.PutOp(opsTable, testKey(last), testItem(last, strings.Repeat("x", pad)))
	return ops
}

func TestTransactGuardedChunks(t *testing.T) {
	g := Guard{Key: stateKey, Attr: schema.AttrPending, Token: "tok"}
	checkBytes := schema.ItemSize(actions.EntityKey(stateKey))
	withRepeats := append(paddedOps(250, 10), batching.DeleteOp(opsTable, testKey(7)), batching.PutOp(opsTable, testKey(8), testItem(8, "last")))
	tests := []struct {
		name  string
		ops   []batching.WriteOp
		sizes []int // actions of each request, sorted
	}{
		{"none", nil, nil},
		{"one", paddedOps(1, 10), []int{2}},
		{"99 fill one", paddedOps(99, 10), []int{100}},
		{"100 spill over", paddedOps(100, 10), []int{2, 100}},
		{"250", paddedOps(250, 10), []int{53, 100, 100}},
		{"the last op on an item wins", withRepeats, []int{53, 100, 100}},
		{"bytes split too", paddedOps(12, 390*1024), []int{3, 11}},
		{"4 MB with the check fill one", opsOfSize(11, actions.MaxBytes-checkBytes), []int{12}},
		{"a byte more spills over", opsOfSize(11, actions.MaxBytes-checkBytes+1), []int{2, 11}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := &transactRecorder{t: t}
			c := testCore(t, api, 4, 3)
			require.NoError(t, c.TransactGuarded(context.Background(), c.Batch.Shared(), g, tt.ops))

			check := g.Action(c.Names.Entities)
			want := actions.Items(batching.LastWriteWins(tt.ops))
			var sizes []int
			var sent []types.TransactWriteItem
			for _, in := range api.requests {
				sizes = append(sizes, len(in.TransactItems))
				require.Equal(t, check, in.TransactItems[0], "the guard's check is action 0")
				require.NotEmpty(t, aws.ToString(in.ClientRequestToken))
				require.LessOrEqual(t, checkBytes+actionsSize(in.TransactItems[1:]), actions.MaxBytes)
				sent = append(sent, in.TransactItems[1:]...)
			}
			slices.Sort(sizes)
			require.Equal(t, tt.sizes, sizes)
			require.ElementsMatch(t, want, sent, "every op once")
		})
	}
}

// actionsSize returns the bytes of the items that puts and deletes write.
func actionsSize(acts []types.TransactWriteItem) int {
	n := 0
	for _, a := range acts {
		if a.Put != nil {
			n += schema.ItemSize(a.Put.Item)
		} else {
			n += schema.ItemSize(a.Delete.Key)
		}
	}
	return n
}

func TestTransactGuardedLastOpOnAnItemWins(t *testing.T) {
	ops := []batching.WriteOp{
		batching.PutOp(opsTable, testKey(1), testItem(1, "first")),
		batching.DeleteOp(opsTable, testKey(2)),
		batching.DeleteOp(opsTable, testKey(1)),
		batching.PutOp(opsTable, testKey(2), testItem(2, "second")),
	}
	api := &transactRecorder{t: t}
	c := testCore(t, api, 1, 3)
	require.NoError(t, c.TransactGuarded(context.Background(), c.Batch, Guard{Key: stateKey, Absent: true}, ops))
	require.Len(t, api.requests, 1)
	require.Equal(t, []types.TransactWriteItem{
		{Delete: &types.Delete{TableName: aws.String(opsTable), Key: testKey(1)}},
		{Put: &types.Put{TableName: aws.String(opsTable), Item: testItem(2, "second")}},
	}, api.requests[0].TransactItems[1:])
}

func TestTransactGuardedOutcomes(t *testing.T) {
	g := Guard{Key: stateKey, Attr: schema.AttrDeleting, Token: "tok"}
	ccfOf := func(action int) error {
		reasons := make([]types.CancellationReason, actions.MaxItems)
		for i := range reasons {
			reasons[i] = reason("None")
		}
		reasons[action] = types.CancellationReason{Code: aws.String("ConditionalCheckFailed")}
		return reasonsCanceled(reasons...)
	}
	onCall := func(n int, err error) func(int, *dynamodb.TransactWriteItemsInput) error {
		return func(call int, _ *dynamodb.TransactWriteItemsInput) error {
			if call == n {
				return err
			}
			return nil
		}
	}
	tests := []struct {
		name        string
		reply       func(int, *dynamodb.TransactWriteItemsInput) error
		guardFailed bool
		canceled    bool // the error is the cancellation
		requests    int
	}{
		{"all commit", nil, false, false, 3},
		{"the first chunk's guard fails", onCall(1, ccfOf(0)), true, false, 1},
		{"a later chunk's guard fails", onCall(2, ccfOf(0)), true, false, 2},
		{"another action's condition fails", onCall(1, ccfOf(5)), false, true, 1},
		{"a validation error", onCall(1, reasonsCanceled(reason("None"), reason("ValidationError"))), false, true, 1},
		{"a conflict is sent again", onCall(2, reasonsCanceled(reason("None"), reason("TransactionConflict"))), false, false, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := &transactRecorder{t: t, reply: tt.reply}
			c := testCore(t, api, 1, 3) // one chunk at a time: later chunks are not sent after a failure
			err := c.TransactGuarded(context.Background(), c.Batch.Shared(), g, paddedOps(250, 10))
			require.Len(t, api.requests, tt.requests)
			switch {
			case tt.guardFailed:
				require.ErrorIs(t, err, ErrGuardFailed)
			case tt.canceled:
				require.NotErrorIs(t, err, ErrGuardFailed)
				var canceled *types.TransactionCanceledException
				require.ErrorAs(t, err, &canceled)
			default:
				require.NoError(t, err)
			}
		})
	}
}

func TestTransactGuardedResendsWithTheSameToken(t *testing.T) {
	api := &transactRecorder{t: t, reply: func(call int, _ *dynamodb.TransactWriteItemsInput) error {
		switch call {
		case 1:
			return reasonsCanceled(reason("TransactionConflict"))
		case 2:
			return httpError(500)
		}
		return nil
	}}
	c := testCore(t, api, 1, 3)
	g := Guard{Key: stateKey, Attr: schema.AttrPending, Token: "tok"}
	require.NoError(t, c.TransactGuarded(context.Background(), c.Batch, g, paddedOps(5, 1)))
	require.Len(t, api.requests, 3)
	for i, in := range api.requests[1:] {
		require.Equal(t, aws.ToString(api.requests[0].ClientRequestToken), aws.ToString(in.ClientRequestToken), "request %d", i+2)
		require.Equal(t, api.requests[0].TransactItems, in.TransactItems, "request %d", i+2)
	}
}

func TestGuardHolds(t *testing.T) {
	k := Key{Scope: "s", Type: "t", ID: "1"}
	live := map[string]types.AttributeValue{schema.AttrID: &types.AttributeValueMemberS{Value: "1"}}
	marked := func(token string) map[string]types.AttributeValue {
		item := map[string]types.AttributeValue{schema.AttrID: &types.AttributeValueMemberS{Value: "1"}}
		item[schema.AttrDeleting] = &types.AttributeValueMemberS{Value: token}
		return item
	}
	tombstone := Guard{Key: k, Attr: schema.AttrDeleting, Token: "tok"}
	absent := Guard{Key: k, Absent: true}
	tests := []struct {
		name string
		g    Guard
		item map[string]types.AttributeValue
		want bool
	}{
		{"its tombstone", tombstone, marked("tok"), true},
		{"another Delete's tombstone", tombstone, marked("other"), false},
		{"the entity created anew", tombstone, live, false},
		{"the entity gone", tombstone, nil, false},
		{"missing, and missing", absent, nil, true},
		{"missing, then created anew", absent, live, false},
		{"missing, then being deleted", absent, marked("tok"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, tt.g.Holds(tt.item))
		})
	}
}
