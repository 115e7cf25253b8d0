package infra

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCloudFormation(t *testing.T) {
	tests := []struct {
		name       string
		table      Table
		properties string // the table's Properties, as JSON
	}{
		{
			name:  "on-demand table without indexes",
			table: simpleTable(),
			properties: `{
				"TableName": "app_simple",
				"BillingMode": "PAY_PER_REQUEST",
				"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
				"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]
			}`,
		},
		{
			name:  "AWS managed key",
			table: awsManagedKey(simpleTable()),
			properties: `{
				"TableName": "app_encrypted",
				"BillingMode": "PAY_PER_REQUEST",
				"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
				"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
				"SSESpecification": {"SSEEnabled": true, "SSEType": "KMS"}
			}`,
		},
		{
			name:  "provisioned table with indexes and every setting",
			table: fullTable(),
			properties: `{
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
				"PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true},
				"DeletionProtectionEnabled": true,
				"SSESpecification": {"SSEEnabled": true, "SSEType": "KMS", "KMSMasterKeyId": "` + testKey + `"},
				"StreamSpecification": {"StreamViewType": "NEW_AND_OLD_IMAGES"},
				"TimeToLiveSpecification": {"AttributeName": "expires", "Enabled": true}
			}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := CloudFormation(Stack{Description: "tables", Tables: []Table{tt.table}})
			require.NoError(t, err)
			var tpl struct {
				AWSTemplateFormatVersion string
				Description              string
				Resources                map[string]struct {
					Type                string
					DeletionPolicy      string
					UpdateReplacePolicy string
					Properties          json.RawMessage
				}
				Outputs map[string]json.RawMessage
			}
			require.NoError(t, json.Unmarshal(out, &tpl))
			require.Equal(t, "2010-09-09", tpl.AWSTemplateFormatVersion)
			require.Equal(t, "tables", tpl.Description)
			id := LogicalID(tt.table.ID)
			require.Len(t, tpl.Resources, 1)
			require.Equal(t, "AWS::DynamoDB::Table", tpl.Resources[id].Type)
			// Deleting the stack, or an update that replaces a table, keeps its data.
			require.Equal(t, "Retain", tpl.Resources[id].DeletionPolicy)
			require.Equal(t, "Retain", tpl.Resources[id].UpdateReplacePolicy)
			require.JSONEq(t, tt.properties, string(tpl.Resources[id].Properties))
			name := *tt.table.Create.TableName
			require.JSONEq(t, `{"Description": "the name of table `+name+`", "Value": {"Ref": "`+id+`"}}`, string(tpl.Outputs[id+"Name"]))
			require.JSONEq(t, `{"Description": "the ARN of table `+name+`", "Value": {"Fn::GetAtt": ["`+id+`", "Arn"]}}`, string(tpl.Outputs[id+"Arn"]))
			require.Len(t, tpl.Outputs, 2)
		})
	}
}

func TestLogicalID(t *testing.T) {
	tests := map[string]string{
		"entities":      "EntitiesTable",
		"index_entries": "IndexEntriesTable",
		"a1_b2":         "A1B2Table",
	}
	for id, want := range tests {
		require.Equal(t, want, LogicalID(id))
	}
}

func TestInvalidStacks(t *testing.T) {
	noName := simpleTable()
	noName.Create.TableName = nil
	tests := []struct {
		name   string
		tables []Table
		want   string
	}{
		{"ID not snake case", []Table{{ID: "Entities", Create: simpleTable().Create}}, `ryno: table ID "Entities" is not lower snake case`},
		{"empty ID", []Table{{Create: simpleTable().Create}}, `ryno: table ID "" is not lower snake case`},
		{"ID twice", []Table{simpleTable(), simpleTable()}, `ryno: table ID "simple" is used twice`},
		{"no request", []Table{{ID: "simple"}}, "ryno: table simple has no CreateTable request with a name"},
		{"no name", []Table{noName}, "ryno: table simple has no CreateTable request with a name"},
	}
	renderers := map[string]func(Stack) ([]byte, error){"CloudFormation": CloudFormation, "Terraform": Terraform, "JSON": JSON}
	for _, tt := range tests {
		for name, render := range renderers {
			t.Run(tt.name+"/"+name, func(t *testing.T) {
				_, err := render(Stack{Tables: tt.tables})
				require.EqualError(t, err, tt.want)
			})
		}
	}
}
