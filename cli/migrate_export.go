package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rynodb/rynodb/migrations"
)

// exportFormats are the values --format takes.
var exportFormats = []string{
	string(migrations.FormatCloudFormation),
	string(migrations.FormatTerraform),
	string(migrations.FormatJSON),
}

var migrateExportCommand = &command{
	group:   "migrate",
	name:    "export",
	summary: "print the tables as CloudFormation, Terraform or JSON; change nothing",
	help: `Prints the store's tables as infrastructure code, from the definitions "ryno migrate
up" uses: each table with its keys, attributes, global and local secondary indexes,
billing, the settings asked for, and the time to live of the entities table. It
connects to nothing.

  cloudformation  a template with an AWS::DynamoDB::Table per table, and the tables'
                  names and ARNs as outputs
  terraform       aws_dynamodb_table resources and outputs, as terraform fmt lays
                  them out
  json            the CreateTable requests, as aws dynamodb create-table
                  --cli-input-json takes them, then the UpdateContinuousBackups
                  requests of --pitr and the UpdateTimeToLive request of the
                  entities table

Once the tables exist, run "ryno migrate up" with the same flags: it finds them in
place, creates nothing and records the schema version, which the library's
CheckSchema expects.`,
	billing:  true,
	settings: true,
	offline:  runExport,
}

func runExport(r *runner, s *settings) error {
	if !slices.Contains(exportFormats, s.format) {
		msg := "missing --format"
		if s.format != "" {
			msg = fmt.Sprintf("unknown --format %q", s.format)
		}
		return exportUsage(msg + ": use " + strings.Join(exportFormats, ", "))
	}
	out, err := migrations.Export(s.options(), migrations.Format(s.format))
	if err != nil {
		return exportUsage(err.Error()) // parse has validated the options: only a new check lands here
	}
	_, err = r.stdout.Write(out)
	return err
}

// exportUsage is migrateExportCommand.usage, which the command's own run cannot refer to.
func exportUsage(msg string) error { return &usageError{command: "migrate export", msg: msg} }
