package migrations

import (
	"regexp"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/schema"
)

// Encryption chooses how DynamoDB encrypts the tables at rest.
type Encryption struct {
	// Type is EncryptionAWSOwned (the zero value) or EncryptionKMS.
	Type EncryptionType

	// KMSKey is the ARN of the customer managed KMS key to encrypt with, such as
	// arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab.
	// Empty means the AWS managed key aws/dynamodb. Only with EncryptionKMS.
	KMSKey string
}

// EncryptionType names a kind of server-side encryption.
type EncryptionType string

// The kinds of server-side encryption.
const (
	// EncryptionAWSOwned is DynamoDB's default: a key AWS owns, at no charge.
	EncryptionAWSOwned EncryptionType = ""
	// EncryptionKMS uses an AWS KMS key in the account: Encryption.KMSKey, or the
	// AWS managed key aws/dynamodb.
	EncryptionKMS EncryptionType = "KMS"
)

// kmsKeyARN matches the ARN of a KMS key, multi-Region keys included. Aliases and
// bare key IDs are refused: DynamoDB reports the key of a table by its ARN, and only
// an ARN can be compared with it.
var kmsKeyARN = regexp.MustCompile(`^arn:aws[a-z-]*:kms:[a-z0-9-]+:[0-9]{12}:key/[A-Za-z0-9-]+$`)

// Validate reports an encryption DynamoDB would reject, or a KMSKey that is not the
// ARN of a KMS key, as a *tables.ValidationError.
func (e Encryption) Validate() error {
	switch e.Type {
	case EncryptionAWSOwned:
		if e.KMSKey != "" {
			return &schema.ValidationError{Field: "Encryption.KMSKey", Value: e.KMSKey, Reason: "applies only to KMS encryption"}
		}
	case EncryptionKMS:
		if e.KMSKey != "" && !kmsKeyARN.MatchString(e.KMSKey) {
			return &schema.ValidationError{Field: "Encryption.KMSKey", Value: e.KMSKey,
				Reason: "must be the ARN of a KMS key, arn:aws:kms:REGION:ACCOUNT:key/ID"}
		}
	default:
		return &schema.ValidationError{Field: "Encryption.Type", Value: string(e.Type), Reason: "must be empty (AWS owned key) or KMS"}
	}
	return nil
}

// specification returns the SSESpecification CreateTable and UpdateTable take, or
// nil for the default encryption, which needs none.
func (e Encryption) specification() *types.SSESpecification {
	if e.Type != EncryptionKMS {
		return nil
	}
	spec := &types.SSESpecification{Enabled: aws.Bool(true), SSEType: types.SSETypeKms}
	if e.KMSKey != "" {
		spec.KMSMasterKeyId = aws.String(e.KMSKey)
	}
	return spec
}

// definitions returns the CreateTable inputs of the store's tables as Up sends them,
// in creation order, with the settings CreateTable can carry. Point-in-time recovery
// is not one: it is turned on once a table exists.
func (o Options) definitions(n schema.Names) []*dynamodb.CreateTableInput {
	defs := schema.Definitions(n, o.Billing)
	for _, d := range defs {
		if o.DeletionProtection {
			d.DeletionProtectionEnabled = aws.Bool(true)
		}
		if o.Streams {
			d.StreamSpecification = streamSpecification()
		}
		d.SSESpecification = o.Encryption.specification()
	}
	return defs
}

// streamSpecification is the stream package changes reads: every change with the
// item before and after it.
func streamSpecification() *types.StreamSpecification {
	return &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}
}

// recoveryInput returns the request that turns on point-in-time recovery for table.
func recoveryInput(table string) *dynamodb.UpdateContinuousBackupsInput {
	return &dynamodb.UpdateContinuousBackupsInput{
		TableName: aws.String(table),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{
			PointInTimeRecoveryEnabled: aws.Bool(true),
		},
	}
}
