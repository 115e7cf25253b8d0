package infra

import (
	"regexp"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/rynodb/rynodb/internal/errs"
)

// Stack is what a template describes: a set of tables.
type Stack struct {
	// Description says what the tables are for; it heads the template.
	Description string
	Tables      []Table // in creation order
}

// Table is one table: the request that creates it, and the settings DynamoDB sets
// apart from CreateTable.
type Table struct {
	// ID names the table in a template, in lower snake case: "index_entries" gives
	// the CloudFormation logical ID IndexEntriesTable and the Terraform resource
	// aws_dynamodb_table.index_entries.
	ID string

	// Create is the CreateTable request: name, keys, attributes, indexes, billing,
	// deletion protection and encryption.
	Create *dynamodb.CreateTableInput

	// PointInTimeRecovery turns on continuous backups once the table exists.
	PointInTimeRecovery bool

	// TTLAttribute names the attribute whose time DynamoDB deletes items at; empty
	// for none.
	TTLAttribute string
}

var tableID = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// validate reports a stack no template can describe.
func (s Stack) validate() error {
	seen := map[string]bool{}
	for _, t := range s.Tables {
		if !tableID.MatchString(t.ID) {
			return errs.New("table ID %q is not lower snake case", t.ID)
		}
		if seen[t.ID] {
			return errs.New("table ID %q is used twice", t.ID)
		}
		seen[t.ID] = true
		if t.Create == nil || aws.ToString(t.Create.TableName) == "" {
			return errs.New("table %s has no CreateTable request with a name", t.ID)
		}
	}
	return nil
}
