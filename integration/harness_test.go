package integration_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
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
