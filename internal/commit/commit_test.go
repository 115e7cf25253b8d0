package commit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/batching"
)

func httpError(status int) error {
	return &awshttp.ResponseError{ResponseError: &smithyhttp.ResponseError{
		Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status}},
		Err:      errors.New("x"),
	}}
}

func opError(err error) error {
	return &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "PutItem", Err: err}
}

func reasonsCanceled(reasons ...types.CancellationReason) error {
	return &types.TransactionCanceledException{Message: aws.String("canceled"), CancellationReasons: reasons}
}

func reason(code string) types.CancellationReason {
	return types.CancellationReason{Code: aws.String(code)}
}

func TestClassify(t *testing.T) {
	item := map[string]types.AttributeValue{"_id": &types.AttributeValueMemberS{Value: "k"}}
	ccfReason := types.CancellationReason{Code: aws.String("ConditionalCheckFailed"), Item: item}
	tests := []struct {
		name    string
		err     error
		outcome Outcome
		item    map[string]types.AttributeValue
		action  int
	}{
		{"nil", nil, Committed, nil, 0},

		{"condition failed", &types.ConditionalCheckFailedException{Item: item}, ConditionFailed, item, 0},
		{"condition failed without item", &types.ConditionalCheckFailedException{}, ConditionFailed, nil, 0},
		{"condition failed wrapped", opError(&types.ConditionalCheckFailedException{Item: item}), ConditionFailed, item, 0},

		{"canceled: condition of action 2", reasonsCanceled(reason("None"), reason("None"), ccfReason), ConditionFailed, item, 2},
		{"canceled: condition of action 0", reasonsCanceled(ccfReason, reason("None")), ConditionFailed, item, 0},
		{"canceled: condition wins over an earlier conflict", reasonsCanceled(reason("TransactionConflict"), ccfReason), ConditionFailed, item, 1},
		{"canceled: condition wins over a later conflict", reasonsCanceled(ccfReason, reason("TransactionConflict")), ConditionFailed, item, 0},
		{"canceled: conflict", reasonsCanceled(reason("None"), reason("TransactionConflict")), Retryable, nil, 0},
		{"canceled: throttled", reasonsCanceled(reason("ThrottlingError")), Retryable, nil, 0},
		{"canceled: over capacity", reasonsCanceled(reason("ProvisionedThroughputExceeded"), reason("None")), Retryable, nil, 0},
		{"canceled: request limit", reasonsCanceled(reason("RequestLimitExceeded")), Retryable, nil, 0},
		{"canceled: validation", reasonsCanceled(reason("None"), reason("ValidationError")), Failed, nil, 0},
		{"canceled: validation beside a conflict", reasonsCanceled(reason("TransactionConflict"), reason("ValidationError")), Failed, nil, 0},
		{"canceled: item too large", reasonsCanceled(reason("ItemCollectionSizeLimitExceeded")), Failed, nil, 0},
		{"canceled: no code is no reason", reasonsCanceled(types.CancellationReason{}, reason("TransactionConflict")), Retryable, nil, 0},
		{"canceled: wrapped", opError(reasonsCanceled(reason("TransactionConflict"))), Retryable, nil, 0},

		{"throughput exceeded", &types.ProvisionedThroughputExceededException{}, Retryable, nil, 0},
		{"throttling code", &smithy.GenericAPIError{Code: "ThrottlingException"}, Retryable, nil, 0},
		{"throttling as a client fault", &smithy.GenericAPIError{Code: "ThrottlingException", Fault: smithy.FaultClient}, Retryable, nil, 0},
		{"throttling wrapped", opError(&smithy.GenericAPIError{Code: "ProvisionedThroughputExceededException"}), Retryable, nil, 0},
		{"request limit", &types.RequestLimitExceeded{}, Retryable, nil, 0},
		{"transaction in progress", &types.TransactionInProgressException{}, Retryable, nil, 0},
		{"transaction in progress wrapped", opError(&types.TransactionInProgressException{}), Retryable, nil, 0},

		{"client fault", &smithy.GenericAPIError{Code: "ValidationException", Fault: smithy.FaultClient}, Failed, nil, 0},
		{"client fault wrapped", opError(&smithy.GenericAPIError{Code: "ValidationException", Fault: smithy.FaultClient}), Failed, nil, 0},
		{"resource not found", &types.ResourceNotFoundException{}, Failed, nil, 0},
		{"refused by the SDK before sending", opError(&smithy.InvalidParamsError{Context: "TransactWriteItemsInput"}), Failed, nil, 0},
		{"HTTP 400", httpError(400), Failed, nil, 0},
		{"HTTP 499", opError(httpError(499)), Failed, nil, 0},

		{"server fault", &smithy.GenericAPIError{Code: "InternalFailure", Fault: smithy.FaultServer}, Ambiguous, nil, 0},
		{"unknown fault", &smithy.GenericAPIError{Code: "Mystery"}, Ambiguous, nil, 0},
		{"internal server error", &types.InternalServerError{}, Ambiguous, nil, 0},
		{"HTTP 500", httpError(500), Ambiguous, nil, 0},
		{"HTTP 503 wrapped", opError(httpError(503)), Ambiguous, nil, 0},
		{"plain error", errors.New("connection reset"), Ambiguous, nil, 0},
		{"context canceled", context.Canceled, Ambiguous, nil, 0},
		{"deadline wrapped", opError(context.DeadlineExceeded), Ambiguous, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Classify(tt.err)
			require.Equal(t, tt.outcome, a.Outcome)
			require.Equal(t, tt.item, a.Item)
			require.Equal(t, tt.action, a.Action)
			require.Equal(t, tt.err, a.Err, "the attempt keeps the error as it is")
		})
	}
}

// script answers the calls of a send or resolve with attempts in turn, the last
// one again and again.
type script struct {
	mu       sync.Mutex
	attempts []Attempt
	calls    int
}

func (s *script) next(context.Context) Attempt {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	return s.attempts[min(s.calls, len(s.attempts))-1]
}

func noSleep(context.Context, time.Duration) error { return nil }

// pacing returns the pacing of maxAttempts attempts, sleeping with sleep.
func pacing(maxAttempts int, sleep func(context.Context, time.Duration) error) Pacing {
	return Pacing{Retry: batching.Policy{MaxAttempts: maxAttempts}, Sleep: sleep}
}

func TestSettle(t *testing.T) {
	item := map[string]types.AttributeValue{"_id": &types.AttributeValueMemberS{Value: "k"}}
	errThrottled := func(i int) error { return fmt.Errorf("throttled %d", i) }
	retry := func(i int) Attempt { return Attempt{Outcome: Retryable, Err: errThrottled(i)} }
	lost := func(i int) Attempt {
		return Attempt{Outcome: Ambiguous, Err: fmt.Errorf("lost %d", i)}
	}
	done := Attempt{Outcome: Committed, Item: item}
	refused := Attempt{Outcome: ConditionFailed, Item: item, Action: 2, Err: errors.New("refused")}
	rejected := Attempt{Outcome: Failed, Err: errors.New("rejected")}

	tests := []struct {
		name             string
		sends, resolves  []Attempt
		want             Attempt
		wantErr          []string // in the error, for an error that wraps
		sent, resolved   int
		outcomeUnknownIs bool
	}{
		{name: "committed at once", sends: []Attempt{done}, want: done, sent: 1},
		{name: "condition failed as is", sends: []Attempt{refused}, want: refused, sent: 1},
		{name: "failed as is", sends: []Attempt{rejected}, want: rejected, sent: 1},
		{name: "retryable twice then committed", sends: []Attempt{retry(1), retry(2), done}, want: done, sent: 3},
		{name: "retryable then refused", sends: []Attempt{retry(1), refused}, want: refused, sent: 2},
		{name: "retryable until the budget ends", sends: []Attempt{retry(1), retry(2), retry(3), retry(4), retry(5)},
			want: Attempt{Outcome: Failed, Err: errThrottled(4)}, sent: 4},
		{name: "ambiguous then resolved as committed", sends: []Attempt{lost(1)}, resolves: []Attempt{done},
			want: done, sent: 1, resolved: 1},
		{name: "ambiguous then resolved as refused", sends: []Attempt{lost(1)}, resolves: []Attempt{refused},
			want: refused, sent: 1, resolved: 1},
		{name: "resolve says retry", sends: []Attempt{lost(1), done}, resolves: []Attempt{retry(2)},
			want: done, sent: 2, resolved: 1},
		{name: "retryable then ambiguous then resolved", sends: []Attempt{retry(1), lost(2)}, resolves: []Attempt{done},
			want: done, sent: 2, resolved: 1},
		{name: "ambiguous until the budget ends", sends: []Attempt{lost(1)}, resolves: []Attempt{lost(2), lost(3), lost(4)},
			wantErr: []string{"lost 4"}, outcomeUnknownIs: true, sent: 1, resolved: 3},
		{name: "ambiguous last is unknown", sends: []Attempt{retry(1), retry(2), retry(3), lost(4)},
			wantErr: []string{"lost 4"}, outcomeUnknownIs: true, sent: 4},
		{name: "ambiguous, then retryable until the budget ends, is unknown", sends: []Attempt{lost(1), retry(3), retry(4)},
			resolves: []Attempt{retry(2)}, wantErr: []string{"throttled 4"}, outcomeUnknownIs: true, sent: 3, resolved: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sends, resolves := &script{attempts: tt.sends}, &script{attempts: tt.resolves}
			var sleeps int
			p := pacing(4, func(ctx context.Context, d time.Duration) error {
				sleeps++
				return noSleep(ctx, d)
			})
			got := Settle(context.Background(), p, sends.next, resolves.next)
			require.Equal(t, tt.sent, sends.calls, "sends")
			require.Equal(t, tt.resolved, resolves.calls, "resolves")
			require.Equal(t, tt.sent+tt.resolved-1, sleeps, "a backoff before every attempt but the first")
			if tt.outcomeUnknownIs {
				require.Equal(t, Failed, got.Outcome)
				require.ErrorIs(t, got.Err, ErrOutcomeUnknown)
				for _, w := range tt.wantErr {
					require.ErrorContains(t, got.Err, w)
				}
				return
			}
			require.Equal(t, tt.want, got)
		})
	}
}

func TestSettleStopsWhenTheSleepFails(t *testing.T) {
	tests := []struct {
		name           string
		first          Attempt
		outcomeUnknown bool
	}{
		{"after a retryable attempt", Attempt{Outcome: Retryable, Err: errors.New("throttled")}, false},
		{"after an ambiguous attempt", Attempt{Outcome: Ambiguous, Err: errors.New("lost")}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			sends, resolves := &script{attempts: []Attempt{tt.first}}, &script{attempts: []Attempt{{Outcome: Committed}}}
			p := pacing(10, func(ctx context.Context, _ time.Duration) error { return ctx.Err() })
			got := Settle(ctx, p, sends.next, resolves.next)
			require.Equal(t, 1, sends.calls)
			require.Zero(t, resolves.calls)
			require.Equal(t, Failed, got.Outcome)
			require.ErrorIs(t, got.Err, tt.first.Err)
			require.ErrorIs(t, got.Err, context.Canceled, "the context's end shows")
			require.Equal(t, tt.outcomeUnknown, errors.Is(got.Err, ErrOutcomeUnknown))
		})
	}
}

func TestSettleBacksOffWithinTheRetryCeiling(t *testing.T) {
	var waits []time.Duration
	p := pacing(6, func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	})
	p.Retry.BaseDelay, p.Retry.MaxDelay = time.Millisecond, 3*time.Millisecond
	sends := &script{attempts: []Attempt{{Outcome: Retryable, Err: errors.New("throttled")}}}
	got := Settle(context.Background(), p, sends.next, sends.next)
	require.Equal(t, Failed, got.Outcome)
	require.Equal(t, 6, sends.calls)
	ceilings := []time.Duration{1, 2, 3, 3, 3}
	require.Len(t, waits, len(ceilings))
	for i, w := range waits {
		require.GreaterOrEqual(t, w, time.Duration(0))
		require.LessOrEqual(t, w, ceilings[i]*time.Millisecond, "wait %d", i)
	}
}
