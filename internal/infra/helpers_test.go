package infra

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const testKey = "arn:aws:kms:us-east-1:111122223333:key/1234abcd"

// simpleTable is an on-demand table with a partition key only and no index.
func simpleTable() Table {
	return Table{ID: "simple", Create: &dynamodb.CreateTableInput{
		TableName:            aws.String("app_simple"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	}}
}

// fullTable is a provisioned table with a GSI projecting some attributes, an LSI and
// every setting.
func fullTable() Table {
	capacity := &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(7)}
	key := func(name string, kt types.KeyType) types.KeySchemaElement {
		return types.KeySchemaElement{AttributeName: aws.String(name), KeyType: kt}
	}
	return Table{
		ID:                  "index_entries",
		PointInTimeRecovery: true,
		TTLAttribute:        "expires",
		Create: &dynamodb.CreateTableInput{
			TableName:             aws.String("app_index_entries"),
			BillingMode:           types.BillingModeProvisioned,
			ProvisionedThroughput: capacity,
			AttributeDefinitions: []types.AttributeDefinition{
				{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: aws.String("n"), AttributeType: types.ScalarAttributeTypeN},
			},
			KeySchema: []types.KeySchemaElement{key("pk", types.KeyTypeHash), key("sk", types.KeyTypeRange)},
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
				IndexName:             aws.String("app_by_n"),
				KeySchema:             []types.KeySchemaElement{key("n", types.KeyTypeHash)},
				Projection:            &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"a", "b"}},
				ProvisionedThroughput: capacity,
			}},
			LocalSecondaryIndexes: []types.LocalSecondaryIndex{{
				IndexName:  aws.String("app_by_pk_n"),
				KeySchema:  []types.KeySchemaElement{key("pk", types.KeyTypeHash), key("n", types.KeyTypeRange)},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
			}},
			DeletionProtectionEnabled: aws.Bool(true),
			StreamSpecification:       &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
			SSESpecification:          &types.SSESpecification{Enabled: aws.Bool(true), SSEType: types.SSETypeKms, KMSMasterKeyId: aws.String(testKey)},
		},
	}
}

// awsManagedKey returns t encrypted with the AWS managed KMS key, with the ID and
// name "encrypted".
func awsManagedKey(t Table) Table {
	t.ID, t.Create.TableName = "encrypted", aws.String("app_encrypted")
	t.Create.SSESpecification = &types.SSESpecification{Enabled: aws.Bool(true), SSEType: types.SSETypeKms}
	return t
}
