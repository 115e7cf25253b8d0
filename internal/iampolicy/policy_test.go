package iampolicy

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPolicy(t *testing.T) {
	res := Resources{
		Region: "eu-west-1", Account: "111122223333",
		Tables:  []string{"app_a", "app_b"},
		Indexes: []Index{{Table: "app_a", Name: "app_a_by_x"}},
	}
	tables := []string{"arn:aws:dynamodb:eu-west-1:111122223333:table/app_a", "arn:aws:dynamodb:eu-west-1:111122223333:table/app_b"}
	index := []string{"arn:aws:dynamodb:eu-west-1:111122223333:table/app_a/index/app_a_by_x"}
	tests := []struct {
		name string
		ops  []string
		want []Statement
	}{
		{"reads without Query", []string{"GetItem", "DescribeTable"}, []Statement{
			{Sid: "ReadTables", Effect: "Allow", Action: []string{"dynamodb:DescribeTable", "dynamodb:GetItem"}, Resource: tables},
		}},
		{"Query also on the indexes", []string{"Query", "Scan"}, []Statement{
			{Sid: "ReadTables", Effect: "Allow", Action: []string{"dynamodb:Query", "dynamodb:Scan"}, Resource: tables},
			{Sid: "QueryIndexes", Effect: "Allow", Action: []string{"dynamodb:Query"}, Resource: index},
		}},
		{"a transaction and a put share their action", []string{"TransactWriteItems", "PutItem"}, []Statement{
			{Sid: "WriteItems", Effect: "Allow", Action: []string{
				"dynamodb:ConditionCheckItem", "dynamodb:DeleteItem", "dynamodb:PutItem", "dynamodb:UpdateItem"}, Resource: tables},
		}},
		{"every kind", []string{"DeleteTable", "DeleteItem", "Query"}, []Statement{
			{Sid: "ReadTables", Effect: "Allow", Action: []string{"dynamodb:Query"}, Resource: tables},
			{Sid: "QueryIndexes", Effect: "Allow", Action: []string{"dynamodb:Query"}, Resource: index},
			{Sid: "WriteItems", Effect: "Allow", Action: []string{"dynamodb:DeleteItem"}, Resource: tables},
			{Sid: "ManageTables", Effect: "Allow", Action: []string{"dynamodb:DeleteTable"}, Resource: tables},
		}},
		{"nothing", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Policy(tt.ops, res)
			require.NoError(t, err)
			require.Equal(t, "2012-10-17", doc.Version)
			require.Equal(t, tt.want, doc.Statement)
		})
	}
}

func TestPolicyRefusesAnUnknownOperation(t *testing.T) {
	_, err := Policy([]string{"GetItem", "ExecuteStatement"}, Resources{Tables: []string{"t"}})
	require.EqualError(t, err, "ryno: no IAM actions known for DynamoDB operation ExecuteStatement")
}

func TestARNs(t *testing.T) {
	tests := []struct {
		region, account string
		table, index    string
	}{
		{"", "", "arn:aws:dynamodb:*:*:table/t", "arn:aws:dynamodb:*:*:table/t/index/i"},
		{"us-east-1", "", "arn:aws:dynamodb:us-east-1:*:table/t", "arn:aws:dynamodb:us-east-1:*:table/t/index/i"},
		{"", "111122223333", "arn:aws:dynamodb:*:111122223333:table/t", "arn:aws:dynamodb:*:111122223333:table/t/index/i"},
		{"cn-north-1", "111122223333", "arn:aws-cn:dynamodb:cn-north-1:111122223333:table/t", "arn:aws-cn:dynamodb:cn-north-1:111122223333:table/t/index/i"},
		{"us-gov-west-1", "1", "arn:aws-us-gov:dynamodb:us-gov-west-1:1:table/t", "arn:aws-us-gov:dynamodb:us-gov-west-1:1:table/t/index/i"},
	}
	for _, tt := range tests {
		r := Resources{Region: tt.region, Account: tt.account}
		require.Equal(t, tt.table, r.TableARN("t"))
		require.Equal(t, tt.index, r.IndexARN(Index{Table: "t", Name: "i"}))
	}
}
