package tables

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

// The key attributes of the tables and their indexes. Package internal/schema names
// them for the rest of the module; its tests hold the two to the same spelling.
const (
	attrID                 = "_id"
	attrScopeTypeKey       = "_scope_type_key"
	attrUpdated            = "_updated"
	attrTypeShard          = "_type_shard"
	attrShardUpdated       = "_shard_updated"
	attrSubjectKey         = "_subject_key"
	attrPredicateKey       = "_predicate_key"
	attrObjectKey          = "_object_key"
	attrReverseKey         = "_reverse_key"
	attrObjectShard        = "_object_shard"
	attrPredicateObjectKey = "_predicate_object_key"
	attrUniqueKey          = "_unique_key"
	attrScopeIndexName     = "_scope_index_name"
	attrIndexKey           = "_index_key"
)

// The key attributes of the inline indexes' GSIs, by slot - 1.
var (
	attrInlineName = [len(Names{}.EntitiesInline)]string{"_inline1_name", "_inline2_name"}
	attrInlineKey  = [len(Names{}.EntitiesInline)]string{"_inline1_key", "_inline2_key"}
)

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
			attr(attrID, types.ScalarAttributeTypeS),
			attr(attrScopeTypeKey, types.ScalarAttributeTypeS),
			attr(attrUpdated, types.ScalarAttributeTypeS),
			attr(attrTypeShard, types.ScalarAttributeTypeS),
			attr(attrShardUpdated, types.ScalarAttributeTypeS),
		},
		KeySchema: keySchema(attrID, attrScopeTypeKey),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:             aws.String(n.EntitiesByType),
			KeySchema:             keySchema(attrScopeTypeKey, attrUpdated),
			Projection:            &types.Projection{ProjectionType: types.ProjectionTypeAll},
			ProvisionedThroughput: b.throughput(),
		}, {
			// Entities of sharded types only: the others have no _type_shard.
			IndexName:             aws.String(n.EntitiesByTypeShard),
			KeySchema:             keySchema(attrTypeShard, attrShardUpdated),
			Projection:            &types.Projection{ProjectionType: types.ProjectionTypeAll},
			ProvisionedThroughput: b.throughput(),
		}},
	}
	for i, gsi := range n.EntitiesInline {
		t.AttributeDefinitions = append(t.AttributeDefinitions,
			attr(attrInlineName[i], types.ScalarAttributeTypeS), attr(attrInlineKey[i], types.ScalarAttributeTypeS))
		t.GlobalSecondaryIndexes = append(t.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName:             aws.String(gsi),
			KeySchema:             keySchema(attrInlineName[i], attrInlineKey[i]),
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
			attr(attrSubjectKey, types.ScalarAttributeTypeS),
			attr(attrPredicateKey, types.ScalarAttributeTypeS),
			attr(attrObjectKey, types.ScalarAttributeTypeS),
			attr(attrReverseKey, types.ScalarAttributeTypeS),
			attr(attrPredicateObjectKey, types.ScalarAttributeTypeS),
			attr(attrObjectShard, types.ScalarAttributeTypeS),
		},
		KeySchema: keySchema(attrSubjectKey, attrPredicateKey),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:             aws.String(n.ReverseRelationships),
			KeySchema:             keySchema(attrObjectKey, attrReverseKey),
			Projection:            &types.Projection{ProjectionType: types.ProjectionTypeAll},
			ProvisionedThroughput: b.throughput(),
		}, {
			// Entries pointing at entities of sharded types only: they have no
			// _object_key, the others no _object_shard.
			IndexName:             aws.String(n.IncomingShard),
			KeySchema:             keySchema(attrObjectShard, attrReverseKey),
			Projection:            &types.Projection{ProjectionType: types.ProjectionTypeAll},
			ProvisionedThroughput: b.throughput(),
		}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{
			IndexName:  aws.String(n.RelationshipsByObject),
			KeySchema:  keySchema(attrSubjectKey, attrPredicateObjectKey),
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
			attr(attrSubjectKey, types.ScalarAttributeTypeS),
			attr(attrUniqueKey, types.ScalarAttributeTypeS),
			attr(attrScopeIndexName, types.ScalarAttributeTypeS),
			attr(attrIndexKey, types.ScalarAttributeTypeS),
		},
		KeySchema: keySchema(attrSubjectKey, attrUniqueKey),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:             aws.String(n.IndexLookup),
			KeySchema:             keySchema(attrScopeIndexName, attrIndexKey),
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
