package dynamotest

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// EnableStream turns on a stream of new and old images on table, as
// `ryno migrate up --streams --update-existing` does.
func EnableStream(t testing.TB, api *dynamodb.Client, table string) {
	t.Helper()
	EnableStreamOf(t, api, table, types.StreamViewTypeNewAndOldImages)
}

// EnableStreamOf turns on a stream of view on table.
func EnableStreamOf(t testing.TB, api *dynamodb.Client, table string, view types.StreamViewType) {
	t.Helper()
	_, err := api.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String(table),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: view}})
	if err != nil {
		t.Fatal(err)
	}
}

// Streams returns a DynamoDB Streams client of the DynamoDB Local api sends to,
// with its credentials and region.
func Streams(api *dynamodb.Client) *dynamodbstreams.Client {
	own := api.Options()
	return dynamodbstreams.New(dynamodbstreams.Options{Region: own.Region, BaseEndpoint: own.BaseEndpoint, Credentials: own.Credentials})
}

// StreamRecords reads every record of the stream of table, shard after shard, each
// in its order, from the DynamoDB Local the tests run against. It returns the
// stream's ARN with them.
func StreamRecords(t testing.TB, api *dynamodb.Client, table string) (string, []streamtypes.Record) {
	t.Helper()
	ctx := context.Background()
	desc, err := api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(desc.Table.LatestStreamArn)
	if arn == "" {
		t.Fatalf("table %s has no stream", table)
	}
	streams := Streams(api)
	stream, err := streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	if err != nil {
		t.Fatal(err)
	}
	var records []streamtypes.Record
	for _, shard := range stream.StreamDescription.Shards {
		it, err := streams.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn),
			ShardId: shard.ShardId, ShardIteratorType: streamtypes.ShardIteratorTypeTrimHorizon})
		if err != nil {
			t.Fatal(err)
		}
		// An open shard keeps giving iterators: two empty reads in a row end it.
		for iter, empty := it.ShardIterator, 0; iter != nil && empty < 2; {
			out, err := streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Records) == 0 {
				empty++
			}
			records = append(records, out.Records...)
			iter = out.NextShardIterator
		}
	}
	return arn, records
}
