package migrations

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/rynodb/rynodb/internal/infra"
	"github.com/rynodb/rynodb/internal/schema"
)

// Format is a kind of infrastructure code that Export writes.
type Format string

// The formats Export writes.
const (
	// FormatCloudFormation is an AWS CloudFormation template in JSON, with an
	// AWS::DynamoDB::Table resource per table and the tables' names and ARNs as
	// outputs.
	FormatCloudFormation Format = "cloudformation"
	// FormatTerraform is Terraform configuration for the AWS provider, with an
	// aws_dynamodb_table resource per table and the tables' names and ARNs as outputs.
	FormatTerraform Format = "terraform"
	// FormatJSON is a JSON object whose "CreateTable" member lists the CreateTable
	// requests of the tables in DynamoDB's JSON form (which aws dynamodb create-table
	// --cli-input-json also takes), followed, when point-in-time recovery is asked
	// for, by "UpdateContinuousBackups" with the requests that turn it on, and by
	// "UpdateTimeToLive" with the request that turns on the entities table's time to
	// live. Both follow once the tables are ACTIVE.
	FormatJSON Format = "json"
)

// tableIDs name the tables in templates, in the order of schema.Definitions.
var tableIDs = []string{"entities", "relationships", "index_entries"}

// Export returns the store's tables as infrastructure code in format: the tables,
// keys, attributes and indexes Up creates for opts, with its billing, point-in-time
// recovery, deletion protection, streams and encryption, and the entities table's
// time to live on _expires. It sends no request: it needs only the options, of
// which it ignores PollInterval, Logger and UpdateExisting.
//
// Tables created this way have no schema version recorded yet: run Up (ryno
// migrate up) once they exist. It finds every table and index in place, creates
// nothing, and records the version, which CheckSchema in package ryno expects.
//
// Invalid options, and a format other than those above, are reported as a
// *tables.ValidationError.
func Export(opts Options, format Format) ([]byte, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	names, err := schema.NewNames(opts.TablePrefix)
	if err != nil {
		return nil, err
	}
	stack := infra.Stack{Description: fmt.Sprintf(
		"DynamoDB tables of the RynoDB store %s, schema version %d.\n"+
			"Once they exist, run `ryno migrate up --prefix %s`, with the flags given to export,\n"+
			"to record the schema version: it creates nothing.",
		opts.TablePrefix, CurrentVersion, opts.TablePrefix)}
	ttl := wantedTimeToLive(names)
	for i, def := range opts.definitions(names) {
		stack.Tables = append(stack.Tables, infra.Table{ID: tableIDs[i], Create: def, PointInTimeRecovery: opts.PointInTimeRecovery,
			TTLAttribute: ttl[aws.ToString(def.TableName)]})
	}
	switch format {
	case FormatCloudFormation:
		return infra.CloudFormation(stack)
	case FormatTerraform:
		return infra.Terraform(stack)
	case FormatJSON:
		return infra.JSON(stack)
	}
	return nil, &schema.ValidationError{Field: "Format", Value: string(format), Reason: "must be cloudformation, terraform or json"}
}
