// Package infra renders DynamoDB table definitions as infrastructure code: an AWS
// CloudFormation template, Terraform configuration (aws_dynamodb_table resources) or
// the JSON of the DynamoDB requests that create them.
//
// Its input is the CreateTable request of each table, the one Up of package
// migrations sends, with the settings CreateTable cannot carry (point-in-time recovery
// and time to live), so a template and the migrations always describe the same
// tables. The package performs no I/O.
package infra
