package infra

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The JSON shapes below are shared by CloudFormation's AWS::DynamoDB::Table and
// DynamoDB's own API, which name these properties alike.

type attributeDefinition struct {
	AttributeName string `json:"AttributeName"`
	AttributeType string `json:"AttributeType"`
}

type keySchemaElement struct {
	AttributeName string `json:"AttributeName"`
	KeyType       string `json:"KeyType"`
}

type projection struct {
	ProjectionType   string   `json:"ProjectionType"`
	NonKeyAttributes []string `json:"NonKeyAttributes,omitempty"`
}

type throughput struct {
	ReadCapacityUnits  int64 `json:"ReadCapacityUnits"`
	WriteCapacityUnits int64 `json:"WriteCapacityUnits"`
}

type globalIndex struct {
	IndexName             string             `json:"IndexName"`
	KeySchema             []keySchemaElement `json:"KeySchema"`
	Projection            projection         `json:"Projection"`
	ProvisionedThroughput *throughput        `json:"ProvisionedThroughput,omitempty"`
}

type localIndex struct {
	IndexName  string             `json:"IndexName"`
	KeySchema  []keySchemaElement `json:"KeySchema"`
	Projection projection         `json:"Projection"`
}

// tableShape holds the properties both formats name alike.
type tableShape struct {
	TableName              string                `json:"TableName"`
	BillingMode            string                `json:"BillingMode,omitempty"`
	AttributeDefinitions   []attributeDefinition `json:"AttributeDefinitions"`
	KeySchema              []keySchemaElement    `json:"KeySchema"`
	GlobalSecondaryIndexes []globalIndex         `json:"GlobalSecondaryIndexes,omitempty"`
	LocalSecondaryIndexes  []localIndex          `json:"LocalSecondaryIndexes,omitempty"`
	ProvisionedThroughput  *throughput           `json:"ProvisionedThroughput,omitempty"`
}

func shapeOf(in *dynamodb.CreateTableInput) tableShape {
	s := tableShape{
		TableName:             aws.ToString(in.TableName),
		BillingMode:           string(in.BillingMode),
		KeySchema:             keySchemaOf(in.KeySchema),
		ProvisionedThroughput: throughputOf(in.ProvisionedThroughput),
	}
	for _, a := range in.AttributeDefinitions {
		s.AttributeDefinitions = append(s.AttributeDefinitions,
			attributeDefinition{AttributeName: aws.ToString(a.AttributeName), AttributeType: string(a.AttributeType)})
	}
	for _, g := range in.GlobalSecondaryIndexes {
		s.GlobalSecondaryIndexes = append(s.GlobalSecondaryIndexes, globalIndex{
			IndexName:             aws.ToString(g.IndexName),
			KeySchema:             keySchemaOf(g.KeySchema),
			Projection:            projectionOf(g.Projection),
			ProvisionedThroughput: throughputOf(g.ProvisionedThroughput),
		})
	}
	for _, l := range in.LocalSecondaryIndexes {
		s.LocalSecondaryIndexes = append(s.LocalSecondaryIndexes, localIndex{
			IndexName:  aws.ToString(l.IndexName),
			KeySchema:  keySchemaOf(l.KeySchema),
			Projection: projectionOf(l.Projection),
		})
	}
	return s
}

func keySchemaOf(keys []types.KeySchemaElement) []keySchemaElement {
	out := make([]keySchemaElement, len(keys))
	for i, k := range keys {
		out[i] = keySchemaElement{AttributeName: aws.ToString(k.AttributeName), KeyType: string(k.KeyType)}
	}
	return out
}

func projectionOf(p *types.Projection) projection {
	if p == nil {
		return projection{ProjectionType: string(types.ProjectionTypeAll)}
	}
	return projection{ProjectionType: string(p.ProjectionType), NonKeyAttributes: p.NonKeyAttributes}
}

func throughputOf(t *types.ProvisionedThroughput) *throughput {
	if t == nil {
		return nil
	}
	return &throughput{ReadCapacityUnits: aws.ToInt64(t.ReadCapacityUnits), WriteCapacityUnits: aws.ToInt64(t.WriteCapacityUnits)}
}

// kmsEncryption reports whether spec asks for a KMS key, and which: "" for the AWS
// managed key. Anything else is DynamoDB's default, the AWS owned key.
func kmsEncryption(spec *types.SSESpecification) (key string, ok bool) {
	if spec == nil || !aws.ToBool(spec.Enabled) {
		return "", false
	}
	return aws.ToString(spec.KMSMasterKeyId), true
}

// stream reports whether spec turns a stream on, and its view type.
func stream(spec *types.StreamSpecification) (view string, ok bool) {
	if spec == nil || !aws.ToBool(spec.StreamEnabled) {
		return "", false
	}
	return string(spec.StreamViewType), true
}
