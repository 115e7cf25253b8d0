package migrations

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// compareSettings finds what the live table lacks of the settings asked for. A
// setting the table has beyond them is left alone: Up only ever adds protection.
func (t *tableDiff) compareSettings() {
	if aws.ToBool(t.want.DeletionProtectionEnabled) && !aws.ToBool(t.live.DeletionProtectionEnabled) {
		t.lacks(DriftDeletionProtection, "deletion protection is off, want on", Action{
			Kind:        ActionEnableDeletionProtection,
			UpdateTable: &dynamodb.UpdateTableInput{TableName: t.want.TableName, DeletionProtectionEnabled: aws.Bool(true)},
		})
	}
	if d := encryptionDiff(t.want.SSESpecification, t.live.SSEDescription); d != "" {
		t.lacks(DriftEncryption, d, Action{
			Kind:        ActionSetEncryption,
			UpdateTable: &dynamodb.UpdateTableInput{TableName: t.want.TableName, SSESpecification: t.want.SSESpecification},
		})
	}
	t.compareStream()
	if t.target.recovery && t.recovery != nil && !*t.recovery {
		t.lacks(DriftRecovery, "point-in-time recovery is off, want on", Action{
			Kind:                    ActionEnableRecovery,
			UpdateContinuousBackups: recoveryInput(t.name()),
		})
	}
}

// compareStream finds a stream asked for that the live table lacks. A stream of
// another view type is reported, never changed: DynamoDB changes one only by turning
// it off, which would lose the records its consumers have not read.
func (t *tableDiff) compareStream() {
	want := t.want.StreamSpecification
	if want == nil || !aws.ToBool(want.StreamEnabled) {
		return
	}
	live := t.live.StreamSpecification
	switch {
	case live == nil || !aws.ToBool(live.StreamEnabled):
		t.lacks(DriftStream, "has no stream, want one of NEW_AND_OLD_IMAGES", Action{
			Kind:        ActionEnableStream,
			UpdateTable: &dynamodb.UpdateTableInput{TableName: t.want.TableName, StreamSpecification: want},
		})
	case live.StreamViewType != want.StreamViewType:
		t.add(DriftStream, SeverityWarning, "", "has a stream of %s, want NEW_AND_OLD_IMAGES; up does not change it: turn it off, then run up again",
			live.StreamViewType)
	}
}

// lacks records a setting the live table lacks: as the action a that applies it when
// Up may update existing tables, otherwise as a warning.
func (t *tableDiff) lacks(kind DriftKind, detail string, a Action) {
	if t.target.updateExisting {
		a.Table = t.name()
		t.settings = append(t.settings, a)
		return
	}
	t.add(kind, SeverityWarning, "", "%s; up changes existing tables only when asked to update them", detail)
}

// encryptionDiff describes how the live encryption falls short of want, or returns
// "". Any KMS key satisfies a want of the AWS managed key; a customer managed key
// must be the one named.
func encryptionDiff(want *types.SSESpecification, live *types.SSEDescription) string {
	if want == nil || !aws.ToBool(want.Enabled) {
		return ""
	}
	liveKMS := live != nil && live.SSEType == types.SSETypeKms && live.Status != types.SSEStatusDisabled && live.Status != types.SSEStatusDisabling
	wantKey := aws.ToString(want.KMSMasterKeyId)
	switch {
	case !liveKMS:
		return "encrypted with the AWS owned key, want a KMS key"
	case wantKey != "" && aws.ToString(live.KMSMasterKeyArn) != wantKey:
		return fmt.Sprintf("encrypted with KMS key %s, want %s", aws.ToString(live.KMSMasterKeyArn), wantKey)
	}
	return ""
}
