package infra

import (
	"encoding/json"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// requests are the DynamoDB requests that set up a stack, grouped by operation.
// Each is a request body of DynamoDB's JSON API, which the AWS CLI also takes:
// aws dynamodb create-table --cli-input-json.
type requests struct {
	CreateTable             []createTable      `json:"CreateTable"`
	UpdateContinuousBackups []updateRecovery   `json:"UpdateContinuousBackups,omitempty"`
	UpdateTimeToLive        []updateTimeToLive `json:"UpdateTimeToLive,omitempty"`
}

type createTable struct {
	tableShape
	DeletionProtectionEnabled *bool      `json:"DeletionProtectionEnabled,omitempty"`
	SSESpecification          *apiSSE    `json:"SSESpecification,omitempty"`
	StreamSpecification       *apiStream `json:"StreamSpecification,omitempty"`
}

type apiStream struct {
	StreamEnabled  bool   `json:"StreamEnabled"`
	StreamViewType string `json:"StreamViewType"`
}

type apiSSE struct {
	Enabled        bool   `json:"Enabled"`
	SSEType        string `json:"SSEType"`
	KMSMasterKeyID string `json:"KMSMasterKeyId,omitempty"`
}

type updateRecovery struct {
	TableName                        string      `json:"TableName"`
	PointInTimeRecoverySpecification cfnRecovery `json:"PointInTimeRecoverySpecification"`
}

type updateTimeToLive struct {
	TableName               string `json:"TableName"`
	TimeToLiveSpecification cfnTTL `json:"TimeToLiveSpecification"`
}

// JSON returns the requests that set up s, as a JSON object: "CreateTable" lists
// one CreateTable request per table, in creation order; "UpdateContinuousBackups"
// and "UpdateTimeToLive", when needed, the requests that follow once the tables are
// ACTIVE.
func JSON(s Stack) ([]byte, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	var r requests
	for _, t := range s.Tables {
		name := aws.ToString(t.Create.TableName)
		c := createTable{tableShape: shapeOf(t.Create), DeletionProtectionEnabled: t.Create.DeletionProtectionEnabled}
		if key, ok := kmsEncryption(t.Create.SSESpecification); ok {
			c.SSESpecification = &apiSSE{Enabled: true, SSEType: "KMS", KMSMasterKeyID: key}
		}
		if view, ok := stream(t.Create.StreamSpecification); ok {
			c.StreamSpecification = &apiStream{StreamEnabled: true, StreamViewType: view}
		}
		r.CreateTable = append(r.CreateTable, c)
		if t.PointInTimeRecovery {
			r.UpdateContinuousBackups = append(r.UpdateContinuousBackups,
				updateRecovery{TableName: name, PointInTimeRecoverySpecification: cfnRecovery{PointInTimeRecoveryEnabled: true}})
		}
		if t.TTLAttribute != "" {
			r.UpdateTimeToLive = append(r.UpdateTimeToLive,
				updateTimeToLive{TableName: name, TimeToLiveSpecification: cfnTTL{AttributeName: t.TTLAttribute, Enabled: true}})
		}
	}
	out, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}
