package integration_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
	"github.com/rynodb/rynodb/rynotest"
)

func TestRynotestGivesEachTestTablesOfItsOwnAndDropsThem(t *testing.T) {
	t.Setenv(rynotest.EndpointEnv, dynamotest.Endpoint())
	var names []string
	for i := range 2 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			db := rynotest.New(t, ryno.Options{Sets: []string{"likes"}})
			names = append(names, db.Names().Entities)
			_, err := db.Create(ctx, &ryno.Entity{Key: pk("ada")})
			require.NoError(t, err, "the tables are there, and empty: each test creates ada")
			require.NoError(t, db.CheckSchema(ctx))
		})
	}
	require.Len(t, names, 2)
	require.NotEqual(t, names[0], names[1], "a prefix per test")
	api := rynotest.API(dynamotest.Endpoint())
	for _, name := range names {
		_, err := api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		var missing *types.ResourceNotFoundException
		require.True(t, errors.As(err, &missing), "%s was deleted when its test ended: %v", name, err)
	}
}

// fatalTB records the failure of a helper, ending it as testing.T's FailNow does.
type fatalTB struct {
	testing.TB
	msg string
}

type fatalStop struct{}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(fatalStop{})
}

func TestRynotestFailsATestWithoutAnEndpoint(t *testing.T) {
	t.Setenv(rynotest.EndpointEnv, "")
	f := &fatalTB{}
	func() {
		defer func() {
			if r := recover(); r != nil && r != (fatalStop{}) {
				panic(r)
			}
		}()
		rynotest.Endpoint(f)
	}()
	require.Contains(t, f.msg, rynotest.EndpointEnv+" is not set")
}
