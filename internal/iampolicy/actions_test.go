package iampolicy

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestActions(t *testing.T) {
	tests := []struct {
		op   string
		want []string
	}{
		{"GetItem", []string{"dynamodb:GetItem"}},
		{"BatchGetItem", []string{"dynamodb:BatchGetItem"}},
		{"Query", []string{"dynamodb:Query"}},
		{"Scan", []string{"dynamodb:Scan"}},
		{"DescribeTable", []string{"dynamodb:DescribeTable"}},
		{"DescribeContinuousBackups", []string{"dynamodb:DescribeContinuousBackups"}},
		{"DescribeTimeToLive", []string{"dynamodb:DescribeTimeToLive"}},
		{"PutItem", []string{"dynamodb:PutItem"}},
		{"UpdateItem", []string{"dynamodb:UpdateItem"}},
		{"DeleteItem", []string{"dynamodb:DeleteItem"}},
		{"BatchWriteItem", []string{"dynamodb:BatchWriteItem"}},
		{"TransactWriteItems", []string{"dynamodb:ConditionCheckItem", "dynamodb:DeleteItem", "dynamodb:PutItem", "dynamodb:UpdateItem"}},
		{"CreateTable", []string{"dynamodb:CreateTable"}},
		{"UpdateTable", []string{"dynamodb:UpdateTable"}},
		{"DeleteTable", []string{"dynamodb:DeleteTable"}},
		{"UpdateContinuousBackups", []string{"dynamodb:UpdateContinuousBackups"}},
		{"UpdateTimeToLive", []string{"dynamodb:UpdateTimeToLive"}},
	}
	for _, tt := range tests {
		got, ok := Actions(tt.op)
		require.True(t, ok, tt.op)
		require.Equal(t, tt.want, got, tt.op)
	}
	require.Len(t, operationActions, len(tests), "every operation is tested above")
	_, ok := Actions("TransactGetItems")
	require.False(t, ok)
}

// Every action has a statement to go in, and every classified action is used.
func TestActionAccessMatchesActions(t *testing.T) {
	used := map[string]bool{}
	for op, actions := range operationActions {
		for _, a := range actions {
			require.Contains(t, actionAccess, a, "%s of %s has no access class", a, op)
			used[a] = true
		}
	}
	for a := range actionAccess {
		require.True(t, used[a], "%s is classified but no operation needs it", a)
	}
	for _, a := range indexActions {
		require.Equal(t, read, actionAccess[a], "index actions only read")
	}
}

type reader interface {
	Query(context.Context) error
	GetItem(context.Context) error
}

func TestOperations(t *testing.T) {
	ops := Operations(reflect.TypeFor[reader]())
	require.Equal(t, []string{"GetItem", "Query"}, ops)
	require.True(t, slices.IsSorted(ops))
}
