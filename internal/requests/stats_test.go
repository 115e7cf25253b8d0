package requests

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/rynodb/rynodb/tables"
	"github.com/stretchr/testify/require"
)

func TestStatsCountRoundsAndSumCapacity(t *testing.T) {
	s := NewStats("AddRelationships")
	s.Sent("BatchGetItem") // round 1
	s.Answered(0, 0, 0, []types.ConsumedCapacity{{TableName: aws.String("t_rel"), CapacityUnits: aws.Float64(1)}}, false)
	s.Sent("GetItem") // round 2, with the Query sent before it returns
	s.Sent("Query")
	s.Answered(1, 2, 0, nil, false)
	s.Answered(0, 0, 3, []types.ConsumedCapacity{{
		TableName: aws.String("t_rel"), Table: &types.Capacity{ReadCapacityUnits: aws.Float64(0.5)},
		GlobalSecondaryIndexes: map[string]types.Capacity{"t_incoming": {CapacityUnits: aws.Float64(2)}},
	}}, true)
	s.Retried()
	s.Sent("TransactWriteItems") // round 3
	s.Answered(0, 0, 0, []types.ConsumedCapacity{{TableName: aws.String("t_entities"), CapacityUnits: aws.Float64(4)}}, true)

	failed := errors.New("failed")
	r := s.Report(failed)
	require.Equal(t, "AddRelationships", r.Op)
	require.Equal(t, map[string]int{"BatchGetItem": 1, "GetItem": 1, "Query": 1, "TransactWriteItems": 1}, r.Requests)
	require.Equal(t, 3, r.Rounds)
	require.Equal(t, 3, r.Retries, "the SDK's 2 and the store's 1")
	require.Equal(t, 1, r.Throttles)
	require.Equal(t, 3, r.Unprocessed)
	require.Equal(t, []tables.Capacity{
		{Table: "t_entities", Write: 4},
		{Table: "t_rel", Read: 1.5},
		{Table: "t_rel", Index: "t_incoming", Write: 2},
	}, r.Capacity, "by table then index; a total counts as write capacity for a write")
	require.Same(t, failed, r.Err)
}
