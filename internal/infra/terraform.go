package infra

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Terraform returns s as Terraform configuration, formatted as terraform fmt
// formats it: one aws_dynamodb_table resource per table (for the AWS provider), and
// outputs with each table's name and ARN.
func Terraform(s Stack) ([]byte, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	var file hclBody
	for _, t := range s.Tables {
		tfTable(file.block("resource", "aws_dynamodb_table", t.ID), t)
	}
	for _, t := range s.Tables {
		name := aws.ToString(t.Create.TableName)
		for _, o := range []struct{ attr, what string }{{"name", "name"}, {"arn", "ARN"}} {
			out := file.block("output", t.ID+"_table_"+o.attr)
			out.attr("description", hclString("the "+o.what+" of table "+name))
			out.attr("value", "aws_dynamodb_table."+t.ID+"."+o.attr)
		}
	}
	var w strings.Builder
	for _, line := range strings.Split(s.Description, "\n") {
		if line != "" {
			w.WriteString("# " + line + "\n")
		}
	}
	if w.Len() > 0 {
		w.WriteString("\n")
	}
	file.write(&w, 0)
	return []byte(w.String()), nil
}

func tfTable(b *hclBody, t Table) {
	c := t.Create
	b.attr("name", hclString(aws.ToString(c.TableName)))
	b.attr("billing_mode", hclString(string(billingMode(c))))
	tfCapacity(b, c.ProvisionedThroughput)
	tfKeys(b, c.KeySchema)
	if aws.ToBool(c.DeletionProtectionEnabled) {
		b.attr("deletion_protection_enabled", hclBool(true))
	}
	if view, ok := stream(c.StreamSpecification); ok {
		b.attr("stream_enabled", hclBool(true))
		b.attr("stream_view_type", hclString(view))
	}
	for _, a := range c.AttributeDefinitions {
		attr := b.block("attribute")
		attr.attr("name", hclString(aws.ToString(a.AttributeName)))
		attr.attr("type", hclString(string(a.AttributeType)))
	}
	for _, g := range c.GlobalSecondaryIndexes {
		gsi := b.block("global_secondary_index")
		gsi.attr("name", hclString(aws.ToString(g.IndexName)))
		tfKeys(gsi, g.KeySchema)
		tfProjection(gsi, g.Projection)
		tfCapacity(gsi, g.ProvisionedThroughput)
	}
	for _, l := range c.LocalSecondaryIndexes {
		lsi := b.block("local_secondary_index")
		lsi.attr("name", hclString(aws.ToString(l.IndexName)))
		lsi.attr("range_key", hclString(keyOf(l.KeySchema, types.KeyTypeRange)))
		tfProjection(lsi, l.Projection)
	}
	if t.PointInTimeRecovery {
		b.block("point_in_time_recovery").attr("enabled", hclBool(true))
	}
	if key, ok := kmsEncryption(c.SSESpecification); ok {
		sse := b.block("server_side_encryption")
		sse.attr("enabled", hclBool(true))
		if key != "" {
			sse.attr("kms_key_arn", hclString(key))
		}
	}
	if t.TTLAttribute != "" {
		ttl := b.block("ttl")
		ttl.attr("attribute_name", hclString(t.TTLAttribute))
		ttl.attr("enabled", hclBool(true))
	}
}

// billingMode returns the table's billing mode, which DynamoDB defaults to
// PROVISIONED and the AWS provider too.
func billingMode(c *dynamodb.CreateTableInput) types.BillingMode {
	if c.BillingMode == "" {
		return types.BillingModeProvisioned
	}
	return c.BillingMode
}

func tfKeys(b *hclBody, keys []types.KeySchemaElement) {
	b.attr("hash_key", hclString(keyOf(keys, types.KeyTypeHash)))
	if r := keyOf(keys, types.KeyTypeRange); r != "" {
		b.attr("range_key", hclString(r))
	}
}

func tfProjection(b *hclBody, p *types.Projection) {
	proj := projectionOf(p)
	b.attr("projection_type", hclString(proj.ProjectionType))
	if len(proj.NonKeyAttributes) > 0 {
		b.attr("non_key_attributes", hclStrings(proj.NonKeyAttributes))
	}
}

func tfCapacity(b *hclBody, t *types.ProvisionedThroughput) {
	if t == nil {
		return
	}
	b.attr("read_capacity", hclInt(aws.ToInt64(t.ReadCapacityUnits)))
	b.attr("write_capacity", hclInt(aws.ToInt64(t.WriteCapacityUnits)))
}

// keyOf returns the attribute of the key of type kt, or "" when there is none.
func keyOf(keys []types.KeySchemaElement, kt types.KeyType) string {
	for _, k := range keys {
		if k.KeyType == kt {
			return aws.ToString(k.AttributeName)
		}
	}
	return ""
}
