package iampolicy

import (
	"reflect"
	"slices"
)

// access says which statement of a policy an IAM action goes in.
type access int

const (
	read   access = iota + 1 // reads items or table metadata
	write                    // writes items
	manage                   // creates, changes or deletes tables
)

// operationActions maps each DynamoDB API operation the module calls to the IAM
// actions that authorize it.
var operationActions = map[string][]string{
	"GetItem":                   {"dynamodb:GetItem"},
	"BatchGetItem":              {"dynamodb:BatchGetItem"},
	"Query":                     {"dynamodb:Query"},
	"Scan":                      {"dynamodb:Scan"},
	"DescribeTable":             {"dynamodb:DescribeTable"},
	"DescribeContinuousBackups": {"dynamodb:DescribeContinuousBackups"},
	"DescribeTimeToLive":        {"dynamodb:DescribeTimeToLive"},

	"PutItem":        {"dynamodb:PutItem"},
	"UpdateItem":     {"dynamodb:UpdateItem"},
	"DeleteItem":     {"dynamodb:DeleteItem"},
	"BatchWriteItem": {"dynamodb:BatchWriteItem"},
	// IAM has no action for a transaction: each item in it is authorized by the
	// action of its kind.
	"TransactWriteItems": {"dynamodb:ConditionCheckItem", "dynamodb:DeleteItem", "dynamodb:PutItem", "dynamodb:UpdateItem"},

	"CreateTable":             {"dynamodb:CreateTable"},
	"UpdateTable":             {"dynamodb:UpdateTable"},
	"DeleteTable":             {"dynamodb:DeleteTable"},
	"UpdateContinuousBackups": {"dynamodb:UpdateContinuousBackups"},
	"UpdateTimeToLive":        {"dynamodb:UpdateTimeToLive"},
}

// actionAccess classifies every action of operationActions.
var actionAccess = map[string]access{
	"dynamodb:GetItem":                   read,
	"dynamodb:BatchGetItem":              read,
	"dynamodb:Query":                     read,
	"dynamodb:Scan":                      read,
	"dynamodb:DescribeTable":             read,
	"dynamodb:DescribeContinuousBackups": read,
	"dynamodb:DescribeTimeToLive":        read,

	"dynamodb:PutItem":            write,
	"dynamodb:UpdateItem":         write,
	"dynamodb:DeleteItem":         write,
	"dynamodb:BatchWriteItem":     write,
	"dynamodb:ConditionCheckItem": write,

	"dynamodb:CreateTable":             manage,
	"dynamodb:UpdateTable":             manage,
	"dynamodb:DeleteTable":             manage,
	"dynamodb:UpdateContinuousBackups": manage,
	"dynamodb:UpdateTimeToLive":        manage,
}

// indexActions are the actions granted on index ARNs too: the module reads its
// indexes only with Query.
var indexActions = []string{"dynamodb:Query"}

// Actions returns the IAM actions that authorize calls of the DynamoDB API
// operation op, such as "TransactWriteItems", sorted; ok is false for an operation
// the module does not call.
func Actions(op string) (actions []string, ok bool) {
	actions, ok = operationActions[op]
	return slices.Sorted(slices.Values(actions)), ok
}

// Operations returns the names of the methods of iface, an interface type such as
// reflect.TypeFor[ryno.DynamoDBAPI](), sorted: the DynamoDB operations a client
// that satisfies it is called with.
func Operations(iface reflect.Type) []string {
	ops := make([]string, iface.NumMethod())
	for i := range ops {
		ops[i] = iface.Method(i).Name
	}
	return ops
}
