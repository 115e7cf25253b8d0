package integration_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/migrations"
	"github.com/rynodb/rynodb/ryno"
	"github.com/rynodb/rynodb/rynotest"
	"github.com/rynodb/rynodb/tables"
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

// streamOf returns the stream settings of table, nil for none.
func streamOf(t *testing.T, api *dynamodb.Client, table string) *types.StreamSpecification {
	t.Helper()
	out, err := api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	require.NoError(t, err)
	if s := out.Table.StreamSpecification; s != nil && aws.ToBool(s.StreamEnabled) {
		return s
	}
	return nil
}

func TestRynotestTakesTheOptionsOfMigrateUp(t *testing.T) {
	t.Setenv(rynotest.EndpointEnv, dynamotest.Endpoint())
	api := rynotest.API(dynamotest.Endpoint())
	tests := []struct {
		name    string
		names   func(t *testing.T) tables.Names
		streams bool
	}{
		{"New", func(t *testing.T) tables.Names { return rynotest.New(t, ryno.Options{}).Names() }, false},
		{"New with streams", func(t *testing.T) tables.Names {
			return rynotest.New(t, ryno.Options{}, migrations.Options{Streams: true}).Names()
		}, true},
		{"Tables with streams", func(t *testing.T) tables.Names {
			prefix := rynotest.Tables(t, api, migrations.Options{Streams: true})
			db, err := ryno.New(api, ryno.Options{TablePrefix: prefix})
			require.NoError(t, err)
			return db.Names()
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, table := range tt.names(t).Tables() {
				stream := streamOf(t, api, table)
				if !tt.streams {
					require.Nil(t, stream, "%s has no stream unless asked", table)
					continue
				}
				require.NotNil(t, stream, "%s has a stream", table)
				require.Equal(t, types.StreamViewTypeNewAndOldImages, stream.StreamViewType, "as `ryno migrate up --streams` makes it")
			}
		})
	}
}

// DynamoDB Local keeps the tables of each access key and region apart: those
// rynotest creates are the ones a client configured by the environment sees.
func TestRynotestUsesTheCredentialsOfTheEnvironment(t *testing.T) {
	t.Setenv(rynotest.EndpointEnv, dynamotest.Endpoint())
	t.Setenv("AWS_ACCESS_KEY_ID", "env"+rynotest.NewPrefix(t)) // DynamoDB Local takes letters and digits only
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_REGION", "eu-west-1")

	db := rynotest.New(t, ryno.Options{})
	_, err := db.Create(ctx, &ryno.Entity{Key: pk("ada")})
	require.NoError(t, err)

	// The service's own client, configured as users configure theirs.
	cfg, err := config.LoadDefaultConfig(ctx)
	require.NoError(t, err)
	own := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(dynamotest.Endpoint())
		o.DisableValidateResponseChecksum = true
	})
	service, err := ryno.New(own, ryno.Options{TablePrefix: db.Names().Prefix})
	require.NoError(t, err)
	_, err = service.Get(ctx, pk("ada"))
	require.NoError(t, err, "the service sees the test's tables and what it wrote")

	// Under the package's own credentials, DynamoDB Local shows none of them.
	var missing *types.ResourceNotFoundException
	_, err = dynamotest.NewAPI(dynamotest.Endpoint()).DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(db.Names().Entities)})
	require.NoError(t, err, "dynamotest's client reads the same environment")
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_REGION", "")
	_, err = rynotest.API(dynamotest.Endpoint()).DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(db.Names().Entities)})
	require.True(t, errors.As(err, &missing), "%s is not among the tables of access key %q in %s: %v",
		db.Names().Entities, rynotest.AccessKey, rynotest.Region, err)
}

func TestRynotestRefusesSeveralMigrationOptions(t *testing.T) {
	f := &fatalTB{}
	func() {
		defer func() {
			if r := recover(); r != nil && r != (fatalStop{}) {
				panic(r)
			}
		}()
		rynotest.Tables(f, rynotest.API(dynamotest.Endpoint()), migrations.Options{Streams: true}, migrations.Options{})
	}()
	require.Contains(t, f.msg, "2 migrations.Options given; give at most one")
}
