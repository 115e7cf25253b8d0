package actions

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/batching"
)

const opsTable = "t_index_entries"

func str(s string) *types.AttributeValueMemberS { return &types.AttributeValueMemberS{Value: s} }

func testKey(i int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": str(fmt.Sprintf("k%04d", i)), "sk": str("s")}
}

func testItem(i int, value string) map[string]types.AttributeValue {
	item := testKey(i)
	item["v"] = str(value)
	return item
}

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

func TestFitsOps(t *testing.T) {
	small := paddedOps(100, 1)
	large := paddedOps(11, 390*1024) // about 4.2 MB
	tests := []struct {
		name                    string
		reserved, reservedBytes int
		ops                     []batching.WriteOp
		want                    bool
	}{
		{"nothing", 0, 0, nil, true},
		{"99 ops beside one action", 1, 100, small[:99], true},
		{"100 ops beside one action", 1, 100, small, false},
		{"100 ops alone", 0, 0, small, true},
		{"100 reserved actions", 100, 0, nil, true},
		{"101 reserved actions", 101, 0, nil, false},
		{"exactly 4 MB with the reserved bytes", 1, MaxBytes - opsSize(large[:10]), large[:10], true},
		{"one byte over 4 MB with the reserved bytes", 1, MaxBytes - opsSize(large[:10]) + 1, large[:10], false},
		{"over 4 MB of ops", 0, 0, large, false},
		{"reserved bytes alone over 4 MB", 1, MaxBytes + 1, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, FitsOps(tt.reserved, tt.reservedBytes, tt.ops))
		})
	}
}

func TestItems(t *testing.T) {
	put := batching.PutOp(opsTable, testKey(1), testItem(1, "v"))
	del := batching.DeleteOp("t_relationships", testKey(2))
	got := Items([]batching.WriteOp{put, del})
	require.Equal(t, []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(opsTable), Item: testItem(1, "v")}},
		{Delete: &types.Delete{TableName: aws.String("t_relationships"), Key: testKey(2)}},
	}, got)
	require.Empty(t, Items(nil))
}

func TestTransactionKeepsARolePerActionAndItsLimits(t *testing.T) {
	var tx Transaction
	for i := range MaxItems {
		tx.Add(types.TransactWriteItem{}, Role{Kind: RoleEntry, List: fmt.Sprint(i)}, 10)
	}
	require.True(t, tx.Fits())
	require.Equal(t, 10*MaxItems, tx.Bytes)
	role, ok := tx.RoleOf(42)
	require.True(t, ok)
	require.Equal(t, Role{Kind: RoleEntry, List: "42"}, role)
	for _, action := range []int{-1, MaxItems} {
		_, ok := tx.RoleOf(action)
		require.False(t, ok, "a cancellation naming no action of it: %d", action)
	}

	grown := tx.Clone()
	grown.Add(types.TransactWriteItem{}, Role{Kind: RoleHead}, 0)
	require.False(t, grown.Fits(), "101 actions")
	require.True(t, tx.Fits(), "the clone grows apart")
	require.Len(t, tx.Actions, MaxItems)

	var big Transaction
	big.Add(types.TransactWriteItem{}, Role{}, MaxBytes+1)
	require.False(t, big.Fits(), "over 4 MB")
}
