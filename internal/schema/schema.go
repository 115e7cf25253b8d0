package schema

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Billing chooses how the tables and their global secondary indexes are billed.
// The zero value is on-demand (PAY_PER_REQUEST).
type Billing struct {
	// Mode is types.BillingModePayPerRequest (the default when empty) or
	// types.BillingModeProvisioned.
	Mode types.BillingMode
	// ReadCapacity and WriteCapacity apply to every table and GSI when Mode is
	// provisioned; both must then be at least 1. They must be zero otherwise.
	ReadCapacity  int64
	WriteCapacity int64
}

// EffectiveMode returns Mode, or PAY_PER_REQUEST when Mode is empty.
func (b Billing) EffectiveMode() types.BillingMode {
	if b.Mode == "" {
		return types.BillingModePayPerRequest
	}
	return b.Mode
}

// Validate reports a billing mode DynamoDB would reject or capacities that do not fit it.
func (b Billing) Validate() error {
	switch b.EffectiveMode() {
	case types.BillingModePayPerRequest:
		if b.ReadCapacity != 0 || b.WriteCapacity != 0 {
			return &ValidationError{Field: "Billing", Reason: "read and write capacity apply only to provisioned billing"}
		}
	case types.BillingModeProvisioned:
		if b.ReadCapacity < 1 || b.WriteCapacity < 1 {
			return &ValidationError{Field: "Billing",
				Reason: fmt.Sprintf("provisioned billing needs read and write capacity of at least 1 (got %d/%d)", b.ReadCapacity, b.WriteCapacity)}
		}
	default:
		return &ValidationError{Field: "Billing.Mode", Value: string(b.Mode),
			Reason: "must be PAY_PER_REQUEST or PROVISIONED"}
	}
	return nil
}

func (b Billing) throughput() *types.ProvisionedThroughput {
	if b.EffectiveMode() != types.BillingModeProvisioned {
		return nil
	}
	return &types.ProvisionedThroughput{
		ReadCapacityUnits:  aws.Int64(b.ReadCapacity),
		WriteCapacityUnits: aws.Int64(b.WriteCapacity),
	}
}

// Definitions returns the CreateTable inputs of the three tables, in creation order,
// each with its secondary indexes. Every call returns new values that the caller may
// modify.
func Definitions(n Names, b Billing) []*dynamodb.CreateTableInput {
	return []*dynamodb.CreateTableInput{
		entitiesTable(n, b),
		relationshipsTable(n, b),
		indexEntriesTable(n, b),
	}
}

func entitiesTable(n Names, b Billing) *dynamodb.CreateTableInput {
	t := &dynamodb.CreateTableInput{
		TableName:             aws.String(n.Entities),
		BillingMode:           b.EffectiveMode(),
		ProvisionedThroughput: b.throughput(),
		AttributeDefinitions: []types.AttributeDefinition{
			attr(AttrID, types.ScalarAttributeTypeS),
			attr(AttrScopeTypeKey, types.ScalarAttributeTypeS),
			attr(AttrUpdated, types.ScalarAttributeTypeS),
		},
		KeySchema: keySchema(AttrID, AttrScopeTypeKey),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:             aws.String(n.EntitiesByType),
			KeySchema:             keySchema(AttrScopeTypeKey, AttrUpdated),
			Projection:            &types.Projection{ProjectionType: types.ProjectionTypeAll},
			ProvisionedThroughput: b.throughput(),
		}},
	}
	for i, gsi := range n.EntitiesInline {
		t.AttributeDefinitions = append(t.AttributeDefinitions,
			attr(AttrInlineName[i], types.ScalarAttributeTypeS), attr(AttrInlineKey[i], types.ScalarAttributeTypeS))
		t.GlobalSecondaryIndexes = append(t.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName:             aws.String(gsi),
			KeySchema:             keySchema(AttrInlineName[i], AttrInlineKey[i]),
			Projection:            &types.Projection{ProjectionType: types.ProjectionTypeAll},
			ProvisionedThroughput: b.throughput(),
		})
	}
	return t
}

func relationshipsTable(n Names, b Billing) *dynamodb.CreateTableInput {
	return &dynamodb.CreateTableInput{
		TableName:             aws.String(n.Relationships),
		BillingMode:           b.EffectiveMode(),
		ProvisionedThroughput: b.throughput(),
		AttributeDefinitions: []types.AttributeDefinition{
			attr(AttrSubjectKey, types.ScalarAttributeTypeS),
			attr(AttrPredicateKey, types.ScalarAttributeTypeS),
			attr(AttrObjectKey, types.ScalarAttributeTypeS),
			attr(AttrReverseKey, types.ScalarAttributeTypeS),
			attr(AttrPredicateObjectKey, types.ScalarAttributeTypeS),
		},
		KeySchema: keySchema(AttrSubjectKey, AttrPredicateKey),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:             aws.String(n.ReverseRelationships),
			KeySchema:             keySchema(AttrObjectKey, AttrReverseKey),
			Projection:            &types.Projection{ProjectionType: types.ProjectionTypeAll},
			ProvisionedThroughput: b.throughput(),
		}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{
			IndexName:  aws.String(n.RelationshipsByObject),
			KeySchema:  keySchema(AttrSubjectKey, AttrPredicateObjectKey),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}},
	}
}

func indexEntriesTable(n Names, b Billing) *dynamodb.CreateTableInput {
	return &dynamodb.CreateTableInput{
		TableName:             aws.String(n.IndexEntries),
		BillingMode:           b.EffectiveMode(),
		ProvisionedThroughput: b.throughput(),
		AttributeDefinitions: []types.AttributeDefinition{
			attr(AttrSubjectKey, types.ScalarAttributeTypeS),
			attr(AttrUniqueKey, types.ScalarAttributeTypeS),
			attr(AttrScopeIndexName, types.ScalarAttributeTypeS),
			attr(AttrIndexKey, types.ScalarAttributeTypeS),
		},
		KeySchema: keySchema(AttrSubjectKey, AttrUniqueKey),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:             aws.String(n.IndexLookup),
			KeySchema:             keySchema(AttrScopeIndexName, AttrIndexKey),
			Projection:            &types.Projection{ProjectionType: types.ProjectionTypeAll},
			ProvisionedThroughput: b.throughput(),
		}},
	}
}

func attr(name string, t types.ScalarAttributeType) types.AttributeDefinition {
	return types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: t}
}

func keySchema(partition, sort string) []types.KeySchemaElement {
	return []types.KeySchemaElement{
		{AttributeName: aws.String(partition), KeyType: types.KeyTypeHash},
		{AttributeName: aws.String(sort), KeyType: types.KeyTypeRange},
	}
}
