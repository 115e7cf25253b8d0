package ryno

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
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/schema"
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
	item := stateKey.item()
	ccfReason := types.CancellationReason{Code: aws.String("ConditionalCheckFailed"), Item: item}
	tests := []struct {
		name    string
		err     error
		outcome outcome
		item    map[string]types.AttributeValue
		action  int
	}{
		{"nil", nil, committed, nil, 0},

		{"condition failed", &types.ConditionalCheckFailedException{Item: item}, conditionFailed, item, 0},
		{"condition failed without item", &types.ConditionalCheckFailedException{}, conditionFailed, nil, 0},
		{"condition failed wrapped", opError(&types.ConditionalCheckFailedException{Item: item}), conditionFailed, item, 0},

		{"canceled: condition of action 2", reasonsCanceled(reason("None"), reason("None"), ccfReason), conditionFailed, item, 2},
		{"canceled: condition of action 0", reasonsCanceled(ccfReason, reason("None")), conditionFailed, item, 0},
		{"canceled: condition wins over an earlier conflict", reasonsCanceled(reason("TransactionConflict"), ccfReason), conditionFailed, item, 1},
		{"canceled: condition wins over a later conflict", reasonsCanceled(ccfReason, reason("TransactionConflict")), conditionFailed, item, 0},
		{"canceled: conflict", reasonsCanceled(reason("None"), reason("TransactionConflict")), retryable, nil, 0},
		{"canceled: throttled", reasonsCanceled(reason("ThrottlingError")), retryable, nil, 0},
		{"canceled: over capacity", reasonsCanceled(reason("ProvisionedThroughputExceeded"), reason("None")), retryable, nil, 0},
		{"canceled: request limit", reasonsCanceled(reason("RequestLimitExceeded")), retryable, nil, 0},
		{"canceled: validation", reasonsCanceled(reason("None"), reason("ValidationError")), failed, nil, 0},
		{"canceled: validation beside a conflict", reasonsCanceled(reason("TransactionConflict"), reason("ValidationError")), failed, nil, 0},
		{"canceled: item too large", reasonsCanceled(reason("ItemCollectionSizeLimitExceeded")), failed, nil, 0},
		{"canceled: no code is no reason", reasonsCanceled(types.CancellationReason{}, reason("TransactionConflict")), retryable, nil, 0},
		{"canceled: wrapped", opError(reasonsCanceled(reason("TransactionConflict"))), retryable, nil, 0},

		{"throughput exceeded", &types.ProvisionedThroughputExceededException{}, retryable, nil, 0},
		{"throttling code", &smithy.GenericAPIError{Code: "ThrottlingException"}, retryable, nil, 0},
		{"throttling as a client fault", &smithy.GenericAPIError{Code: "ThrottlingException", Fault: smithy.FaultClient}, retryable, nil, 0},
		{"throttling wrapped", opError(&smithy.GenericAPIError{Code: "ProvisionedThroughputExceededException"}), retryable, nil, 0},
		{"request limit", &types.RequestLimitExceeded{}, retryable, nil, 0},
		{"transaction in progress", &types.TransactionInProgressException{}, retryable, nil, 0},
		{"transaction in progress wrapped", opError(&types.TransactionInProgressException{}), retryable, nil, 0},

		{"client fault", &smithy.GenericAPIError{Code: "ValidationException", Fault: smithy.FaultClient}, failed, nil, 0},
		{"client fault wrapped", opError(&smithy.GenericAPIError{Code: "ValidationException", Fault: smithy.FaultClient}), failed, nil, 0},
		{"resource not found", &types.ResourceNotFoundException{}, failed, nil, 0},
		{"HTTP 400", httpError(400), failed, nil, 0},
		{"HTTP 499", opError(httpError(499)), failed, nil, 0},

		{"server fault", &smithy.GenericAPIError{Code: "InternalFailure", Fault: smithy.FaultServer}, ambiguous, nil, 0},
		{"unknown fault", &smithy.GenericAPIError{Code: "Mystery"}, ambiguous, nil, 0},
		{"internal server error", &types.InternalServerError{}, ambiguous, nil, 0},
		{"HTTP 500", httpError(500), ambiguous, nil, 0},
		{"HTTP 503 wrapped", opError(httpError(503)), ambiguous, nil, 0},
		{"plain error", errors.New("connection reset"), ambiguous, nil, 0},
		{"context canceled", context.Canceled, ambiguous, nil, 0},
		{"deadline wrapped", opError(context.DeadlineExceeded), ambiguous, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := classify(tt.err)
			require.Equal(t, tt.outcome, a.outcome)
			require.Equal(t, tt.item, a.item)
			require.Equal(t, tt.action, a.action)
			require.Equal(t, tt.err, a.err, "the attempt keeps the error as it is")
		})
	}
}

// script answers the calls of a send or resolve with attempts in turn, the last
// one again and again.
type script struct {
	mu       sync.Mutex
	attempts []attempt
	calls    int
}

func (s *script) next(context.Context) attempt {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	return s.attempts[min(s.calls, len(s.attempts))-1]
}

func noSleep(context.Context, time.Duration) error { return nil }

// settleClient returns a client with just what settle uses.
func settleClient(maxAttempts int, sleep func(context.Context, time.Duration) error) *Client {
	return &Client{
		opts:  Options{Retry: RetryOptions{MaxAttempts: maxAttempts}},
		batch: &batching.Engine{Sleep: sleep},
	}
}

func TestSettle(t *testing.T) {
	item := stateKey.item()
	errThrottled := func(i int) error { return fmt.Errorf("throttled %d", i) }
	retry := func(i int) attempt { return attempt{outcome: retryable, err: errThrottled(i)} }
	lost := func(i int) attempt { return attempt{outcome: ambiguous, err: fmt.Errorf("lost %d", i)} }
	done := attempt{outcome: committed, item: item}
	refused := attempt{outcome: conditionFailed, item: item, action: 2, err: errors.New("refused")}
	rejected := attempt{outcome: failed, err: errors.New("rejected")}

	tests := []struct {
		name             string
		sends, resolves  []attempt
		want             attempt
		wantErr          []string // in the error, for an error that wraps
		sent, resolved   int
		outcomeUnknownIs bool
	}{
		{name: "committed at once", sends: []attempt{done}, want: done, sent: 1},
		{name: "condition failed as is", sends: []attempt{refused}, want: refused, sent: 1},
		{name: "failed as is", sends: []attempt{rejected}, want: rejected, sent: 1},
		{name: "retryable twice then committed", sends: []attempt{retry(1), retry(2), done}, want: done, sent: 3},
		{name: "retryable then refused", sends: []attempt{retry(1), refused}, want: refused, sent: 2},
		{name: "retryable until the budget ends", sends: []attempt{retry(1), retry(2), retry(3), retry(4), retry(5)},
			want: attempt{outcome: failed, err: errThrottled(4)}, sent: 4},
		{name: "ambiguous then resolved as committed", sends: []attempt{lost(1)}, resolves: []attempt{done},
			want: done, sent: 1, resolved: 1},
		{name: "ambiguous then resolved as refused", sends: []attempt{lost(1)}, resolves: []attempt{refused},
			want: refused, sent: 1, resolved: 1},
		{name: "resolve says retry", sends: []attempt{lost(1), done}, resolves: []attempt{retry(2)},
			want: done, sent: 2, resolved: 1},
		{name: "retryable then ambiguous then resolved", sends: []attempt{retry(1), lost(2)}, resolves: []attempt{done},
			want: done, sent: 2, resolved: 1},
		{name: "ambiguous until the budget ends", sends: []attempt{lost(1)}, resolves: []attempt{lost(2), lost(3), lost(4)},
			wantErr: []string{"lost 4"}, outcomeUnknownIs: true, sent: 1, resolved: 3},
		{name: "ambiguous last is unknown", sends: []attempt{retry(1), retry(2), retry(3), lost(4)},
			wantErr: []string{"lost 4"}, outcomeUnknownIs: true, sent: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sends, resolves := &script{attempts: tt.sends}, &script{attempts: tt.resolves}
			var sleeps int
			c := settleClient(4, func(ctx context.Context, d time.Duration) error {
				sleeps++
				return noSleep(ctx, d)
			})
			got := c.settle(context.Background(), sends.next, resolves.next)
			require.Equal(t, tt.sent, sends.calls, "sends")
			require.Equal(t, tt.resolved, resolves.calls, "resolves")
			require.Equal(t, tt.sent+tt.resolved-1, sleeps, "a backoff before every attempt but the first")
			if tt.outcomeUnknownIs {
				require.Equal(t, failed, got.outcome)
				require.ErrorIs(t, got.err, ErrOutcomeUnknown)
				for _, w := range tt.wantErr {
					require.ErrorContains(t, got.err, w)
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
		first          attempt
		outcomeUnknown bool
	}{
		{"after a retryable attempt", attempt{outcome: retryable, err: errors.New("throttled")}, false},
		{"after an ambiguous attempt", attempt{outcome: ambiguous, err: errors.New("lost")}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			sends, resolves := &script{attempts: []attempt{tt.first}}, &script{attempts: []attempt{{outcome: committed}}}
			c := settleClient(10, func(ctx context.Context, _ time.Duration) error { return ctx.Err() })
			got := c.settle(ctx, sends.next, resolves.next)
			require.Equal(t, 1, sends.calls)
			require.Zero(t, resolves.calls)
			require.Equal(t, failed, got.outcome)
			require.ErrorIs(t, got.err, tt.first.err)
			require.ErrorIs(t, got.err, context.Canceled, "the context's end shows")
			require.Equal(t, tt.outcomeUnknown, errors.Is(got.err, ErrOutcomeUnknown))
		})
	}
}

func TestSettleBacksOffWithinTheRetryCeiling(t *testing.T) {
	var waits []time.Duration
	c := settleClient(6, func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	})
	c.opts.Retry.BaseDelay, c.opts.Retry.MaxDelay = time.Millisecond, 3*time.Millisecond
	sends := &script{attempts: []attempt{{outcome: retryable, err: errors.New("throttled")}}}
	got := c.settle(context.Background(), sends.next, sends.next)
	require.Equal(t, failed, got.outcome)
	require.Equal(t, 6, sends.calls)
	ceilings := []time.Duration{1, 2, 3, 3, 3}
	require.Len(t, waits, len(ceilings))
	for i, w := range waits {
		require.GreaterOrEqual(t, w, time.Duration(0))
		require.LessOrEqual(t, w, ceilings[i]*time.Millisecond, "wait %d", i)
	}
}

// itemStub answers PutItem with the errors of puts in turn (nil once they run out)
// and GetItem with get.
type itemStub struct {
	DynamoDBAPI
	mu      sync.Mutex
	puts    []error
	putIns  []*dynamodb.PutItemInput
	putOpts []dynamodb.Options
	gets    int
	get     func(call int) (map[string]types.AttributeValue, error)
}

func (s *itemStub) PutItem(_ context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var o dynamodb.Options
	for _, f := range optFns {
		f(&o)
	}
	s.putIns = append(s.putIns, in)
	s.putOpts = append(s.putOpts, o)
	if len(s.putIns) > len(s.puts) {
		return &dynamodb.PutItemOutput{}, nil
	}
	return &dynamodb.PutItemOutput{}, s.puts[len(s.putIns)-1]
}

func (s *itemStub) GetItem(_ context.Context, in *dynamodb.GetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gets++
	if !aws.ToBool(in.ConsistentRead) {
		return nil, errors.New("stub: resolve must read consistently")
	}
	item, err := s.get(s.gets)
	return &dynamodb.GetItemOutput{Item: item}, err
}

func TestPutItemResolvesALostResponse(t *testing.T) {
	const token = "tok"
	mine := storedItem(map[string]any{schema.AttrVersion: number(4), schema.AttrToken: token})
	other := storedItem(map[string]any{schema.AttrVersion: number(4), schema.AttrToken: "other"})
	before := storedItem(map[string]any{schema.AttrVersion: number(3), schema.AttrToken: "older"})
	reads := func(items ...map[string]types.AttributeValue) func(int) (map[string]types.AttributeValue, error) {
		return func(call int) (map[string]types.AttributeValue, error) { return items[min(call, len(items))-1], nil }
	}
	lost := httpError(500)
	tests := []struct {
		name     string
		puts     []error
		get      func(int) (map[string]types.AttributeValue, error)
		outcome  outcome
		item     map[string]types.AttributeValue
		unknown  bool
		put, got int
	}{
		{"committed", nil, nil, committed, mine, false, 1, 0},
		{"refused", []error{&types.ConditionalCheckFailedException{Item: other}}, nil, conditionFailed, other, false, 1, 0},
		{"the lost write landed", []error{lost}, reads(mine), committed, mine, false, 1, 1},
		{"the lost write did not land", []error{lost}, reads(before), committed, mine, false, 2, 1},
		{"another writer came between", []error{lost}, reads(other), failed, nil, true, 1, 1},
		{"the read fails every time", []error{lost}, func(int) (map[string]types.AttributeValue, error) { return nil, errors.New("read failed") },
			failed, nil, true, 1, 2},
		{"the read fails once", []error{lost}, func(call int) (map[string]types.AttributeValue, error) {
			if call == 1 {
				return nil, errors.New("read failed")
			}
			return mine, nil
		}, committed, mine, false, 1, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stub := &itemStub{puts: tt.puts, get: tt.get}
			c, err := New(stub, Options{TablePrefix: "t", Retry: RetryOptions{MaxAttempts: 3}})
			require.NoError(t, err)
			c.batch.Sleep = noSleep
			x := expectation{version: 3}
			a := c.putItem(context.Background(), stateKey, mine, x, token)
			require.Equal(t, tt.outcome, a.outcome)
			require.Equal(t, tt.item, a.item)
			require.Equal(t, tt.unknown, errors.Is(a.err, ErrOutcomeUnknown), "error %v", a.err)
			require.Len(t, stub.putIns, tt.put)
			require.Equal(t, tt.got, stub.gets)
			for i, in := range stub.putIns {
				require.Equal(t, "t_entities_master", aws.ToString(in.TableName))
				require.Equal(t, mine, in.Item)
				require.Equal(t, "_version=3", renderExpr(t, in.ConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues))
				require.Equal(t, types.ReturnValuesOnConditionCheckFailureAllOld, in.ReturnValuesOnConditionCheckFailure)
				require.Equal(t, 1, stub.putOpts[i].RetryMaxAttempts, "the SDK must not resend a conditional write")
			}
		})
	}
}

func TestConflictErrorMatches(t *testing.T) {
	tests := []struct {
		name                       string
		err                        error
		conflict, notFound, exists bool
	}{
		{"stored another version", &ConflictError{Key: stateKey, Expected: 2, Stored: 3, Reason: "r"}, true, false, false},
		{"missing", &ConflictError{Key: stateKey, Expected: 2, Missing: true, Reason: "r"}, true, true, false},
		{"missing, wrapped", fmt.Errorf("update: %w", &ConflictError{Key: stateKey, Missing: true}), true, true, false},
		{"ErrExists wrapped", fmt.Errorf("%w: x", ErrExists), true, false, true},
		{"ErrConflict is not ErrExists", ErrConflict, true, false, false},
		{"ErrNotFound", ErrNotFound, false, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.conflict, errors.Is(tt.err, ErrConflict), "ErrConflict")
			require.Equal(t, tt.notFound, errors.Is(tt.err, ErrNotFound), "ErrNotFound")
			require.Equal(t, tt.exists, errors.Is(tt.err, ErrExists), "ErrExists")
			require.False(t, errors.Is(tt.err, ErrUnknownIndex))
		})
	}
}

func TestConflictErrorMessage(t *testing.T) {
	err := &ConflictError{Key: Key{Scope: "s", Type: "t", ID: "a:b"}, Expected: 2, Stored: 3, Reason: "expected version 2, stored is 3"}
	require.EqualError(t, err, "ryno: conflicting write of s:t:a%3Ab: expected version 2, stored is 3")
}

func TestPartialWriteError(t *testing.T) {
	e := &PartialWriteError{Entity: &Entity{Key: Key{Scope: "s", Type: "t", ID: "a:b"}, Version: 4}, Err: errInjected}
	wrapped := fmt.Errorf("put: %w", e)
	require.ErrorIs(t, wrapped, errInjected)
	require.Same(t, errInjected, errors.Unwrap(e))
	var pw *PartialWriteError
	require.ErrorAs(t, wrapped, &pw)
	require.Same(t, e, pw)
	require.ErrorContains(t, e, "s:t:a%3Ab")
	require.ErrorContains(t, e, "version 4")
	require.ErrorContains(t, e, errInjected.Error())
	require.False(t, errors.Is(e, ErrConflict))
}

func TestUnknownIndexError(t *testing.T) {
	e := &UnknownIndexError{Key: stateKey, Indexes: []string{"byName", "by:age"}}
	wrapped := fmt.Errorf("update: %w", e)
	require.ErrorIs(t, wrapped, ErrUnknownIndex)
	require.False(t, errors.Is(wrapped, ErrConflict))
	require.ErrorContains(t, e, "byName, by:age")
	require.ErrorContains(t, e, stateKey.String())
	require.ErrorContains(t, e, `type "t"`)
}
