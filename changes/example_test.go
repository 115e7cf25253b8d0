package changes_test

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/rynodb/rynodb/changes"
	"github.com/rynodb/rynodb/ryno"
)

// A Lambda function on the stream of the entities table (`ryno migrate up
// --streams`), with ReportBatchItemFailures on its event source mapping, completes
// each deletion DynamoDB's time to live starts, and each Delete cut off.
func ExampleCompleter_Lambda() {
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		log.Fatal(err)
	}
	db, err := ryno.New(dynamodb.NewFromConfig(cfg), ryno.Options{TablePrefix: "myapp"})
	if err != nil {
		log.Fatal(err)
	}
	completer, err := changes.NewCompleter(db)
	if err != nil {
		log.Fatal(err)
	}
	lambda.Start(completer.Lambda)
}
