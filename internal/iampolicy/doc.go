// Package iampolicy writes least-privilege IAM policies for the DynamoDB operations
// a client interface declares.
//
// The one map from DynamoDB API operations to the IAM actions that authorize them
// lives here, so that tests can hold every interface of the module against it. A
// transaction, for example, is authorized per item: TransactWriteItems needs
// dynamodb:PutItem, dynamodb:UpdateItem, dynamodb:DeleteItem and
// dynamodb:ConditionCheckItem, as the module sends all four kinds of item.
//
// The package performs no I/O.
package iampolicy
