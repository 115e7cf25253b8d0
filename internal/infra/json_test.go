package infra

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestJSON(t *testing.T) {
	tests := []struct {
		name   string
		tables []Table
		want   string
	}{
		{
			name:   "CreateTable only",
			tables: []Table{simpleTable(), awsManagedKey(simpleTable())},
			want: `{"CreateTable": [
				{
					"TableName": "app_simple",
					"BillingMode": "PAY_PER_REQUEST",
					"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
					"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]
				},
				{
					"TableName": "app_encrypted",
					"BillingMode": "PAY_PER_REQUEST",
					"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
					"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
					"SSESpecification": {"Enabled": true, "SSEType": "KMS"}
				}
			]}`,
		},
		{
			name:   "with the requests that follow",
			tables: []Table{fullTable()},
			want: `{
				"CreateTable": [{
					"TableName": "app_index_entries",
					"BillingMode": "PROVISIONED",
					"ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 7},
					"AttributeDefinitions": [
						{"AttributeName": "pk", "AttributeType": "S"},
						{"AttributeName": "sk", "AttributeType": "S"},
						{"AttributeName": "n", "AttributeType": "N"}
					],
					"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
					"GlobalSecondaryIndexes": [{
						"IndexName": "app_by_n",
						"KeySchema": [{"AttributeName": "n", "KeyType": "HASH"}],
						"Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a", "b"]},
						"ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 7}
					}],
					"LocalSecondaryIndexes": [{
						"IndexName": "app_by_pk_n",
						"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "n", "KeyType": "RANGE"}],
						"Projection": {"ProjectionType": "KEYS_ONLY"}
					}],
					"DeletionProtectionEnabled": true,
					"SSESpecification": {"Enabled": true, "SSEType": "KMS", "KMSMasterKeyId": "` + testKey + `"},
					"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}
				}],
				"UpdateContinuousBackups": [{
					"TableName": "app_index_entries",
					"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true}
				}],
				"UpdateTimeToLive": [{
					"TableName": "app_index_entries",
					"TimeToLiveSpecification": {"AttributeName": "expires", "Enabled": true}
				}]
			}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := JSON(Stack{Tables: tt.tables})
			require.NoError(t, err)
			require.JSONEq(t, tt.want, string(got))
		})
	}
}
