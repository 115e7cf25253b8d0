package infra

import (
	"encoding/json"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// cfnTemplate is a CloudFormation template. encoding/json writes map keys sorted, so
// the template is the same for the same stack.
type cfnTemplate struct {
	AWSTemplateFormatVersion string                 `json:"AWSTemplateFormatVersion"`
	Description              string                 `json:"Description,omitempty"`
	Resources                map[string]cfnResource `json:"Resources"`
	Outputs                  map[string]cfnOutput   `json:"Outputs"`
}

// cfnResource is a table resource. Its policies retain the table, and its data,
// when the stack is deleted or an update would replace the table: losing a store
// takes more than a stack operation.
type cfnResource struct {
	Type                string   `json:"Type"`
	DeletionPolicy      string   `json:"DeletionPolicy"`
	UpdateReplacePolicy string   `json:"UpdateReplacePolicy"`
	Properties          cfnTable `json:"Properties"`
}

// cfnTable holds the properties of an AWS::DynamoDB::Table.
type cfnTable struct {
	tableShape
	PointInTimeRecoverySpecification *cfnRecovery `json:"PointInTimeRecoverySpecification,omitempty"`
	DeletionProtectionEnabled        *bool        `json:"DeletionProtectionEnabled,omitempty"`
	SSESpecification                 *cfnSSE      `json:"SSESpecification,omitempty"`
	StreamSpecification              *cfnStream   `json:"StreamSpecification,omitempty"`
	TimeToLiveSpecification          *cfnTTL      `json:"TimeToLiveSpecification,omitempty"`
}

type cfnRecovery struct {
	PointInTimeRecoveryEnabled bool `json:"PointInTimeRecoveryEnabled"`
}

type cfnSSE struct {
	SSEEnabled     bool   `json:"SSEEnabled"`
	SSEType        string `json:"SSEType,omitempty"`
	KMSMasterKeyID string `json:"KMSMasterKeyId,omitempty"`
}

type cfnStream struct {
	StreamViewType string `json:"StreamViewType"`
}

type cfnTTL struct {
	AttributeName string `json:"AttributeName"`
	Enabled       bool   `json:"Enabled"`
}

type cfnOutput struct {
	Description string `json:"Description"`
	Value       any    `json:"Value"`
}

// CloudFormation returns s as a CloudFormation template in JSON: one
// AWS::DynamoDB::Table resource per table, retained when the stack is deleted,
// and outputs with each table's name and ARN.
func CloudFormation(s Stack) ([]byte, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	tpl := cfnTemplate{
		AWSTemplateFormatVersion: "2010-09-09",
		Description:              s.Description,
		Resources:                map[string]cfnResource{},
		Outputs:                  map[string]cfnOutput{},
	}
	for _, t := range s.Tables {
		id := LogicalID(t.ID)
		tpl.Resources[id] = cfnResource{Type: "AWS::DynamoDB::Table", DeletionPolicy: "Retain", UpdateReplacePolicy: "Retain", Properties: cfnTableOf(t)}
		name := aws.ToString(t.Create.TableName)
		tpl.Outputs[id+"Name"] = cfnOutput{Description: "the name of table " + name, Value: map[string]string{"Ref": id}}
		tpl.Outputs[id+"Arn"] = cfnOutput{Description: "the ARN of table " + name, Value: map[string][]string{"Fn::GetAtt": {id, "Arn"}}}
	}
	out, err := json.MarshalIndent(tpl, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// LogicalID returns the CloudFormation logical ID of the table with ID id:
// "index_entries" gives "IndexEntriesTable".
func LogicalID(id string) string {
	var b strings.Builder
	for _, word := range strings.Split(id, "_") {
		if word != "" {
			b.WriteString(strings.ToUpper(word[:1]) + word[1:])
		}
	}
	return b.String() + "Table"
}

func cfnTableOf(t Table) cfnTable {
	p := cfnTable{tableShape: shapeOf(t.Create), DeletionProtectionEnabled: t.Create.DeletionProtectionEnabled}
	if t.PointInTimeRecovery {
		p.PointInTimeRecoverySpecification = &cfnRecovery{PointInTimeRecoveryEnabled: true}
	}
	if key, ok := kmsEncryption(t.Create.SSESpecification); ok {
		p.SSESpecification = &cfnSSE{SSEEnabled: true, SSEType: "KMS", KMSMasterKeyID: key}
	}
	if view, ok := stream(t.Create.StreamSpecification); ok {
		p.StreamSpecification = &cfnStream{StreamViewType: view}
	}
	if t.TTLAttribute != "" {
		p.TimeToLiveSpecification = &cfnTTL{AttributeName: t.TTLAttribute, Enabled: true}
	}
	return p
}
