package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"reflect"
	"regexp"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/rynodb/rynodb/internal/iampolicy"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/migrations"
	"github.com/rynodb/rynodb/ryno"
)

// commandAPI is every request the ryno command sends: migrate sends those of
// migrations.API, check and reindex those of ryno.DynamoDBAPI. The --migrations
// policy grants what it declares.
type commandAPI interface {
	migrations.API
	ryno.DynamoDBAPI
}

var _ commandAPI = (*dynamodb.Client)(nil)

var iamPolicyCommand = &command{
	name:    "iam-policy",
	summary: "print the least-privilege IAM policy of the application, or of this command",
	help: `Prints an IAM policy document that allows exactly the DynamoDB actions the library
sends (ryno.DynamoDBAPI), on the store's three tables and on the four indexes it
queries, named by ARN. Read actions, queries of indexes and writes of items are
separate statements. A transaction needs the actions of the items in it:
dynamodb:PutItem, UpdateItem, DeleteItem and ConditionCheckItem.

With --migrations, the policy is that of this command instead: migrate up, plan,
status and down (which create, update and delete the tables, and read and turn on
point-in-time recovery and time to live), check [--repair] and reindex.

Without --account and --region, the ARNs hold "*" in their place. Access to a
customer managed KMS key (--sse kms --kms-key) is granted by the key's policy and is
not part of this one. It connects to nothing.`,
	offline: runIAMPolicy,
}

var (
	accountID  = regexp.MustCompile(`^[0-9]{12}$`)
	regionName = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+$`)
)

func (r *runner) iamPolicy(args []string) error {
	s, err := r.parse(iamPolicyCommand, args)
	if errors.Is(err, flag.ErrHelp) {
		r.printCommandHelp(iamPolicyCommand)
		return nil
	}
	if err != nil {
		return err
	}
	return runIAMPolicy(r, s)
}

func runIAMPolicy(r *runner, s *settings) error {
	if s.account != "" && !accountID.MatchString(s.account) {
		return iamPolicyUsage(fmt.Sprintf("--account must be a 12-digit AWS account ID, not %q", s.account))
	}
	if s.region != "" && !regionName.MatchString(s.region) {
		return iamPolicyUsage(fmt.Sprintf("--region must be an AWS region such as us-east-1, not %q", s.region))
	}
	names, err := schema.NewNames(s.prefix)
	if err != nil {
		return iamPolicyUsage(err.Error())
	}
	doc, err := iampolicy.Policy(policyOperations(s.migrations), storeResources(names, s.region, s.account))
	if err != nil {
		return err
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(r.stdout, "%s\n", out)
	return err
}

// policyOperations returns the DynamoDB operations the application sends, or with
// forCommand those this command sends.
func policyOperations(forCommand bool) []string {
	if forCommand {
		return iampolicy.Operations(reflect.TypeFor[commandAPI]())
	}
	return iampolicy.Operations(reflect.TypeFor[ryno.DynamoDBAPI]())
}

// storeResources returns the store's tables and their indexes, from the definitions
// the migrations create.
func storeResources(names schema.Names, region, account string) iampolicy.Resources {
	res := iampolicy.Resources{Region: region, Account: account, Tables: names.Tables()}
	for _, def := range schema.Definitions(names, schema.Billing{}) {
		table := aws.ToString(def.TableName)
		for _, g := range def.GlobalSecondaryIndexes {
			res.Indexes = append(res.Indexes, iampolicy.Index{Table: table, Name: aws.ToString(g.IndexName)})
		}
		for _, l := range def.LocalSecondaryIndexes {
			res.Indexes = append(res.Indexes, iampolicy.Index{Table: table, Name: aws.ToString(l.IndexName)})
		}
	}
	return res
}

// iamPolicyUsage is iamPolicyCommand.usage, which the command's own run cannot refer
// to.
func iamPolicyUsage(msg string) error { return &usageError{command: "iam-policy", msg: msg} }
