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
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/schema"
)

func httpError(status int) error {
	return &awshttp.ResponseError{ResponseError: &smithyhttp.ResponseError{
		Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status}},
		Err:      errors.New("x"),
	}}
}

func reasonsCanceled(reasons ...types.CancellationReason) error {
	return &types.TransactionCanceledException{Message: aws.String("canceled"), CancellationReasons: reasons}
}

func reason(code string) types.CancellationReason {
	return types.CancellationReason{Code: aws.String(code)}
}

func noSleep(context.Context, time.Duration) error { return nil }

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
		outcome  commit.Outcome
		item     map[string]types.AttributeValue
		unknown  bool
		put, got int
	}{
		{"committed", nil, nil, commit.Committed, mine, false, 1, 0},
		{"refused", []error{&types.ConditionalCheckFailedException{Item: other}}, nil, commit.ConditionFailed, other, false, 1, 0},
		{"the lost write landed", []error{lost}, reads(mine), commit.Committed, mine, false, 1, 1},
		{"the lost write did not land", []error{lost}, reads(before), commit.Committed, mine, false, 2, 1},
		{"another writer came between", []error{lost}, reads(other), commit.Failed, nil, true, 1, 1},
		{"the read fails every time", []error{lost}, func(int) (map[string]types.AttributeValue, error) { return nil, errors.New("read failed") },
			commit.Failed, nil, true, 1, 2},
		{"the read fails once", []error{lost}, func(call int) (map[string]types.AttributeValue, error) {
			if call == 1 {
				return nil, errors.New("read failed")
			}
			return mine, nil
		}, commit.Committed, mine, false, 1, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stub := &itemStub{puts: tt.puts, get: tt.get}
			c, err := New(stub, Options{TablePrefix: "t", Retry: RetryOptions{MaxAttempts: 3}})
			require.NoError(t, err)
			c.batch.Sleep = noSleep
			x := entitystate.Expectation{Version: 3}
			a := c.putItem(context.Background(), stateKey, mine, x, token)
			require.Equal(t, tt.outcome, a.Outcome)
			require.Equal(t, tt.item, a.Item)
			require.Equal(t, tt.unknown, errors.Is(a.Err, ErrOutcomeUnknown), "error %v", a.Err)
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
