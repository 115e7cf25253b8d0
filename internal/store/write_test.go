package store

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/exprtest"
	"github.com/rynodb/rynodb/internal/requests"
	"github.com/rynodb/rynodb/internal/schema"
)

// itemStub answers PutItem with the errors of puts in turn (nil once they run out)
// and GetItem with get.
type itemStub struct {
	requests.API
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
	mine := storedItem(map[string]any{schema.AttrVersion: AttrN(4), schema.AttrToken: token})
	other := storedItem(map[string]any{schema.AttrVersion: AttrN(4), schema.AttrToken: "other"})
	before := storedItem(map[string]any{schema.AttrVersion: AttrN(3), schema.AttrToken: "older"})
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
			c := testCore(t, stub, 1, 3)
			x := entitystate.Expectation{Version: 3}
			a := c.PutItem(context.Background(), stateKey, mine, x, token)
			require.Equal(t, tt.outcome, a.Outcome)
			require.Equal(t, tt.item, a.Item)
			require.Equal(t, tt.unknown, errors.Is(a.Err, commit.ErrOutcomeUnknown), "error %v", a.Err)
			require.Len(t, stub.putIns, tt.put)
			require.Equal(t, tt.got, stub.gets)
			for i, in := range stub.putIns {
				require.Equal(t, "t_entities_master", aws.ToString(in.TableName))
				require.Equal(t, mine, in.Item)
				require.Equal(t, "_version=3", exprtest.Render(t, in.ConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues))
				require.Equal(t, types.ReturnValuesOnConditionCheckFailureAllOld, in.ReturnValuesOnConditionCheckFailure)
				require.Equal(t, 1, stub.putOpts[i].RetryMaxAttempts, "the SDK must not resend a conditional write")
			}
		})
	}
}
