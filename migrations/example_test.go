package migrations_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/migrations"
)

// emptyStore is an API with no tables, standing in for a new DynamoDB account. Real
// programs pass a *dynamodb.Client.
type emptyStore struct{}

func (emptyStore) DescribeTable(_ context.Context, in *dynamodb.DescribeTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return nil, &types.ResourceNotFoundException{Message: aws.String("Table not found: " + aws.ToString(in.TableName))}
}

var errReadOnly = errors.New("read-only example")

func (emptyStore) CreateTable(context.Context, *dynamodb.CreateTableInput, ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	return nil, errReadOnly
}

func (emptyStore) UpdateTable(context.Context, *dynamodb.UpdateTableInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error) {
	return nil, errReadOnly
}

func (emptyStore) DeleteTable(context.Context, *dynamodb.DeleteTableInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error) {
	return nil, errReadOnly
}

func (emptyStore) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return nil, errReadOnly
}

func (emptyStore) DescribeContinuousBackups(context.Context, *dynamodb.DescribeContinuousBackupsInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeContinuousBackupsOutput, error) {
	return nil, errReadOnly
}

func (emptyStore) UpdateContinuousBackups(context.Context, *dynamodb.UpdateContinuousBackupsInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateContinuousBackupsOutput, error) {
	return nil, errReadOnly
}

func (emptyStore) DescribeTimeToLive(context.Context, *dynamodb.DescribeTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	return nil, errReadOnly
}

func (emptyStore) UpdateTimeToLive(context.Context, *dynamodb.UpdateTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	return nil, errReadOnly
}

func (emptyStore) PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return nil, errReadOnly
}

func (emptyStore) Scan(context.Context, *dynamodb.ScanInput, ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return nil, errReadOnly
}

func (emptyStore) BatchWriteItem(context.Context, *dynamodb.BatchWriteItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return nil, errReadOnly
}

func (emptyStore) UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return nil, errReadOnly
}

func ExampleProvider_Plan() {
	p, err := migrations.NewProvider(emptyStore{}, migrations.Options{TablePrefix: "myapp"})
	if err != nil {
		log.Fatal(err)
	}
	plan, err := p.Plan(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("schema version %d -> %d\n", plan.RecordedVersion, plan.TargetVersion)
	for _, a := range plan.Actions {
		fmt.Println(a)
	}
	// Output:
	// schema version 0 -> 4
	// create table myapp_entities_master (GSI myapp_entities_by_type, GSI myapp_entities_by_type_shard, GSI myapp_entities_inline_1, GSI myapp_entities_inline_2)
	// create table myapp_relationship_entries (GSI myapp_incoming_relationships, GSI myapp_incoming_shard, LSI myapp_relationships_by_object)
	// create table myapp_index_entries (GSI myapp_index_lookup)
	// turn on time to live (attribute _expires) on table myapp_entities_master
	// run migration 2: build the heads and markers of relationship lists written before them
	// run migration 3: give every relationship entry its _reverse_key, the sort key of the reverse index replacing reverse_relationships
	// record schema version 4
}

func ExampleProvider_Up() {
	var client *dynamodb.Client // for example dynamodb.NewFromConfig(cfg)
	if client == nil {
		return // this example has no DynamoDB to talk to
	}
	p, err := migrations.NewProvider(client, migrations.Options{
		TablePrefix: "myapp",
		Logger:      log.New(os.Stdout, "", 0), // one line per action
	})
	if err != nil {
		log.Fatal(err)
	}
	res, err := p.Up(context.Background())
	var drift *migrations.DriftError
	switch {
	case errors.As(err, &drift):
		for _, d := range drift.Drift {
			fmt.Println("drift:", d)
		}
		os.Exit(1)
	case err != nil:
		log.Fatal(err)
	case !res.Changed():
		fmt.Printf("schema version %d is up to date\n", res.Version)
	}
}

// Export writes the tables as infrastructure code, here Terraform, without any
// request: to provision them with Terraform or CloudFormation instead of Up.
func ExampleExport() {
	tf, err := migrations.Export(migrations.Options{
		TablePrefix:        "myapp",
		DeletionProtection: true,
		Encryption:         migrations.Encryption{Type: migrations.EncryptionKMS},
	}, migrations.FormatTerraform)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(strings.SplitAfterN(string(tf), "\n\n", 3)[1]) // the entities table's attributes
	// Output:
	// resource "aws_dynamodb_table" "entities" {
	//   name                        = "myapp_entities_master"
	//   billing_mode                = "PAY_PER_REQUEST"
	//   hash_key                    = "_id"
	//   range_key                   = "_scope_type_key"
	//   deletion_protection_enabled = true
}
