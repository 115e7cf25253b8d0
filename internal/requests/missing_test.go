package requests

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/errs"
)

func TestJoinOr(t *testing.T) {
	tests := []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"a"}, "a"},
		{[]string{"a", "b"}, "a or b"},
		{[]string{"a", "b", "c"}, "a, b or c"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, joinOr(tt.names))
	}
}

func TestTransactTablesAreDistinctInOrder(t *testing.T) {
	items := []types.TransactWriteItem{
		{Update: &types.Update{TableName: aws.String("rel")}},
		{Put: &types.Put{TableName: aws.String("ent")}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String("rel")}},
		{Delete: &types.Delete{TableName: aws.String("idx")}},
	}
	var got []string
	for _, n := range transactTables(items) {
		got = append(got, aws.ToString(n))
	}
	require.Equal(t, []string{"rel", "ent", "idx"}, got)
}

func TestTableNotFoundErrorMatches(t *testing.T) {
	rnf := &types.ResourceNotFoundException{Message: aws.String("Requested resource not found")}
	err := errs.Wrap(&TableNotFoundError{Table: "p_entities_master", Err: rnf}, "get %s", "acme:user:ada")
	require.ErrorIs(t, err, ErrTableNotFound)
	var got *types.ResourceNotFoundException
	require.ErrorAs(t, err, &got)
	require.Equal(t, "ryno: get acme:user:ada: table p_entities_master not found; create the tables with `ryno migrate up` or check Options.TablePrefix", err.Error())
}
