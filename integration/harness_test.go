package integration_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/internal/schema"
)

func TestHarnessCreatesTables(t *testing.T) {
	api := dynamotest.API(t)
	prefix := dynamotest.Tables(t, api)
	names, err := schema.NewNames(prefix)
	require.NoError(t, err)

	out, err := api.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	require.Subset(t, out.TableNames, names.Tables())
}

// A parallel test's tables live in the database of its own access key: its subtests
// reach them, a client with the default credentials does not.
func TestAParallelTestsTablesAreItsKeysOwn(t *testing.T) {
	dynamotest.Parallel(t)
	prefix := dynamotest.Tables(t, dynamotest.API(t))
	names, err := schema.NewNames(prefix)
	require.NoError(t, err)
	in := &dynamodb.DescribeTableInput{TableName: &names.Entities}

	t.Run("subtest", func(t *testing.T) {
		_, err := dynamotest.API(t).DescribeTable(context.Background(), in)
		require.NoError(t, err)
	})
	_, err = dynamotest.NewAPI(dynamotest.Endpoint()).DescribeTable(context.Background(), in)
	var missing *types.ResourceNotFoundException
	require.ErrorAs(t, err, &missing)
}
