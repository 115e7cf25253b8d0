package integration_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/migrations"
)

// TestExportCloudFormationRoundTrip creates the tables of an exported CloudFormation
// template in DynamoDB Local, read back by a reader of its own, with the entities
// table's time to live, and checks that ryno migrate finds them as it would have
// created them: no drift, nothing to create or turn on, only the schema version to
// record. Point-in-time recovery and KMS encryption stay
// out: DynamoDB Local 3.3.1 does not support the first and ignores the second (the
// migrations package tests them against its fake).
func TestExportCloudFormationRoundTrip(t *testing.T) {
	tests := []struct {
		name  string
		flags []string
		opts  func(*migrations.Options)
	}{
		{"defaults", nil, func(*migrations.Options) {}},
		{"provisioned, with deletion protection",
			[]string{"--billing-mode", "provisioned", "--read-capacity", "2", "--write-capacity", "3", "--deletion-protection"},
			func(o *migrations.Options) {
				o.Billing = schema.Billing{Mode: types.BillingModeProvisioned, ReadCapacity: 2, WriteCapacity: 3}
				o.DeletionProtection = true
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolateAWS(t)
			ctx := context.Background()
			api := dynamotest.API(t)
			prefix, names := cliPrefix(t)
			unprotectAtEnd(t, names) // runs before the tables are deleted

			out, errOut, code := runRyno(t, append([]string{"migrate", "export", "--prefix", prefix, "--format", "cloudformation"}, tt.flags...)...)
			require.Equal(t, 0, code, errOut)
			tables := readCloudFormation(t, []byte(out))
			require.Len(t, tables, 3)
			for _, tbl := range tables {
				tbl.create(t, api)
			}
			require.Equal(t, []*types.TimeToLiveSpecification{
				{AttributeName: aws.String(schema.AttrExpires), Enabled: aws.Bool(true)}, nil, nil,
			}, []*types.TimeToLiveSpecification{tables[0].timeToLive, tables[1].timeToLive, tables[2].timeToLive},
				"time to live on the entities table (the first by name), on _expires, only")

			opts := migrations.Options{TablePrefix: prefix, PollInterval: 20 * time.Millisecond}
			tt.opts(&opts)
			p, err := migrations.NewProvider(api, opts)
			require.NoError(t, err)
			st, err := p.Status(ctx)
			require.NoError(t, err)
			require.Empty(t, st.Drift, "the template's tables are the schema's")
			var pending []migrations.ActionKind
			for _, a := range st.Pending {
				pending = append(pending, a.Kind)
			}
			require.Equal(t, []migrations.ActionKind{migrations.ActionRunMigration, migrations.ActionRunMigration, migrations.ActionRecordVersion}, pending,
				"nothing to create: only the version to record")

			out, errOut, code = migrate(t, "up", prefix, tt.flags...)
			require.Equal(t, 0, code, errOut)
			require.NotContains(t, out, "create ")
			require.NotContains(t, out, "warning")
			out, errOut, code = migrate(t, "status", prefix, tt.flags...)
			require.Equal(t, 0, code, errOut)
			require.Contains(t, out, "drift: none\n")
			require.True(t, strings.HasSuffix(out, "up to date\n"), out)

			if opts.DeletionProtection {
				_, errOut, code = migrate(t, "down", prefix, "--delete-all-data")
				require.Equal(t, 1, code)
				require.Contains(t, errOut, "ryno: deletion protection is on for "+strings.Join(names.Tables(), ", "))
				require.NotNil(t, describeTable(t, names.Entities), "down deleted nothing")
			}
		})
	}
}

// unprotectAtEnd turns deletion protection off when the test ends, so that the
// tables can be deleted.
func unprotectAtEnd(t *testing.T, names schema.Names) {
	t.Helper()
	api := dynamotest.API(t)
	t.Cleanup(func() {
		for _, name := range names.Tables() {
			_, _ = api.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{
				TableName: aws.String(name), DeletionProtectionEnabled: aws.Bool(false)})
		}
	})
}

// cfnTemplate is the part of a CloudFormation template this test reads. The reader
// below is written for the test, from CloudFormation's documentation of
// AWS::DynamoDB::Table, and shares no code with the exporter.
type cfnTemplate struct {
	AWSTemplateFormatVersion string
	Resources                map[string]struct {
		Type       string
		Properties map[string]json.RawMessage
	}
	Outputs map[string]struct {
		Value map[string]any
	}
}

// cfnTable is a table of a template as the requests that set it up: CreateTable
// and, when it has a TimeToLiveSpecification, UpdateTimeToLive once it exists, as
// CloudFormation sends them.
type cfnTable struct {
	in         *dynamodb.CreateTableInput
	timeToLive *types.TimeToLiveSpecification // nil without time to live
}

// create sends the table's requests to api.
func (c cfnTable) create(t *testing.T, api *dynamodb.Client) {
	t.Helper()
	name := aws.ToString(c.in.TableName)
	_, err := api.CreateTable(context.Background(), c.in)
	require.NoError(t, err, "create %s", name)
	if c.timeToLive == nil {
		return
	}
	require.NoError(t, dynamodb.NewTableExistsWaiter(api).Wait(context.Background(),
		&dynamodb.DescribeTableInput{TableName: c.in.TableName}, time.Minute))
	_, err = api.UpdateTimeToLive(context.Background(), &dynamodb.UpdateTimeToLiveInput{TableName: c.in.TableName, TimeToLiveSpecification: c.timeToLive})
	require.NoError(t, err, "turn on time to live of %s", name)
}

// readCloudFormation returns the tables of a template, in the order of their names.
// It fails on a property it does not know, so that a new property of the exporter is
// not silently left out of the round trip.
func readCloudFormation(t *testing.T, src []byte) []cfnTable {
	t.Helper()
	var tpl cfnTemplate
	require.NoError(t, json.Unmarshal(src, &tpl))
	require.Equal(t, "2010-09-09", tpl.AWSTemplateFormatVersion)
	var out []cfnTable
	for id, r := range tpl.Resources {
		require.Equal(t, "AWS::DynamoDB::Table", r.Type, id)
		out = append(out, readTable(t, id, r.Properties))
		require.Equal(t, map[string]any{"Ref": id}, tpl.Outputs[id+"Name"].Value, "output of the name of %s", id)
		require.Equal(t, map[string]any{"Fn::GetAtt": []any{id, "Arn"}}, tpl.Outputs[id+"Arn"].Value, "output of the ARN of %s", id)
	}
	require.Len(t, tpl.Outputs, 2*len(tpl.Resources))
	slices.SortFunc(out, func(a, b cfnTable) int {
		return strings.Compare(aws.ToString(a.in.TableName), aws.ToString(b.in.TableName))
	})
	return out
}

type cfnKey struct{ AttributeName, KeyType string }

type cfnProjection struct {
	ProjectionType   string
	NonKeyAttributes []string
}

type cfnThroughput struct{ ReadCapacityUnits, WriteCapacityUnits int64 }

type cfnIndex struct {
	IndexName             string
	KeySchema             []cfnKey
	Projection            cfnProjection
	ProvisionedThroughput *cfnThroughput
}

func readTable(t *testing.T, id string, props map[string]json.RawMessage) cfnTable {
	t.Helper()
	in := &dynamodb.CreateTableInput{}
	var ttl *types.TimeToLiveSpecification
	for name, raw := range props {
		read := func(v any) { require.NoError(t, json.Unmarshal(raw, v), "%s.%s", id, name) }
		switch name {
		case "TableName":
			var s string
			read(&s)
			in.TableName = aws.String(s)
		case "BillingMode":
			var s string
			read(&s)
			in.BillingMode = types.BillingMode(s)
		case "ProvisionedThroughput":
			var tp cfnThroughput
			read(&tp)
			in.ProvisionedThroughput = tp.sdk()
		case "AttributeDefinitions":
			var defs []struct{ AttributeName, AttributeType string }
			read(&defs)
			for _, d := range defs {
				in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{
					AttributeName: aws.String(d.AttributeName), AttributeType: types.ScalarAttributeType(d.AttributeType)})
			}
		case "KeySchema":
			var keys []cfnKey
			read(&keys)
			in.KeySchema = sdkKeys(keys)
		case "GlobalSecondaryIndexes":
			var ixs []cfnIndex
			read(&ixs)
			for _, ix := range ixs {
				in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
					IndexName: aws.String(ix.IndexName), KeySchema: sdkKeys(ix.KeySchema),
					Projection: ix.Projection.sdk(), ProvisionedThroughput: ix.ProvisionedThroughput.sdk()})
			}
		case "LocalSecondaryIndexes":
			var ixs []cfnIndex
			read(&ixs)
			for _, ix := range ixs {
				in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, types.LocalSecondaryIndex{
					IndexName: aws.String(ix.IndexName), KeySchema: sdkKeys(ix.KeySchema), Projection: ix.Projection.sdk()})
			}
		case "DeletionProtectionEnabled":
			var b bool
			read(&b)
			in.DeletionProtectionEnabled = aws.Bool(b)
		case "TimeToLiveSpecification":
			var spec struct {
				AttributeName string
				Enabled       bool
			}
			read(&spec)
			ttl = &types.TimeToLiveSpecification{AttributeName: aws.String(spec.AttributeName), Enabled: aws.Bool(spec.Enabled)}
		default:
			t.Fatalf("%s: property %s is not read by this test", id, name)
		}
	}
	return cfnTable{in: in, timeToLive: ttl}
}

func sdkKeys(keys []cfnKey) []types.KeySchemaElement {
	out := make([]types.KeySchemaElement, len(keys))
	for i, k := range keys {
		out[i] = types.KeySchemaElement{AttributeName: aws.String(k.AttributeName), KeyType: types.KeyType(k.KeyType)}
	}
	return out
}

func (p cfnProjection) sdk() *types.Projection {
	return &types.Projection{ProjectionType: types.ProjectionType(p.ProjectionType), NonKeyAttributes: p.NonKeyAttributes}
}

func (tp *cfnThroughput) sdk() *types.ProvisionedThroughput {
	if tp == nil {
		return nil
	}
	return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(tp.ReadCapacityUnits), WriteCapacityUnits: aws.Int64(tp.WriteCapacityUnits)}
}
