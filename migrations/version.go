package migrations

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/schema"
)

func versionKey() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		schema.AttrID:           &types.AttributeValueMemberS{Value: schema.VersionItemID},
		schema.AttrScopeTypeKey: &types.AttributeValueMemberS{Value: schema.VersionItemSortKey},
	}
}

// recorded is what the schema version record holds.
type recorded struct {
	version    int // the version applied last; 0 when none is recorded
	compatible int // the oldest version whose programs work at it; 0 when not recorded
}

// readVersion returns the recorded schema version, zero when there is none.
func (p *Provider) readVersion(ctx context.Context) (recorded, error) {
	out, err := p.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(p.names.Entities),
		Key:            versionKey(),
		ConsistentRead: aws.Bool(true),
	})
	if isNotFound(err) { // a table still being created cannot be read yet
		return recorded{}, nil
	}
	if err != nil {
		return recorded{}, errs.Wrap(err, "read schema version")
	}
	var r recorded
	if r.version, err = p.versionNumber(out.Item, schema.AttrSchemaVersion); err != nil {
		return recorded{}, err
	}
	if r.compatible, err = p.versionNumber(out.Item, schema.AttrSchemaCompatible); err != nil {
		return recorded{}, err
	}
	return r, nil
}

// versionNumber reads the version attribute name of the record item: 0 when it is
// missing.
func (p *Provider) versionNumber(item map[string]types.AttributeValue, name string) (int, error) {
	av, ok := item[name]
	if !ok {
		return 0, nil
	}
	n, isN := av.(*types.AttributeValueMemberN)
	if !isN {
		return 0, errs.New("read schema version: %s in %s is not a number", name, p.names.Entities)
	}
	v, err := strconv.Atoi(n.Value)
	if err != nil || v < 0 {
		return 0, errs.New("read schema version: %s in %s is %q, not a version", name, p.names.Entities, n.Value)
	}
	return v, nil
}

// writeVersion records version v. The condition keeps an older program from lowering
// a version that a newer one recorded meanwhile.
func (p *Provider) writeVersion(ctx context.Context, v int) error {
	item := versionKey()
	item[schema.AttrSchemaVersion] = &types.AttributeValueMemberN{Value: strconv.Itoa(v)}
	item[schema.AttrSchemaApplied] = &types.AttributeValueMemberS{Value: schema.FormatTime(time.Now())}
	item[schema.AttrSchemaCompatible] = &types.AttributeValueMemberN{Value: strconv.Itoa(compatibleWith(p.migrations, v))}
	_, err := p.api.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                 aws.String(p.names.Entities),
		Item:                      item,
		ConditionExpression:       aws.String("attribute_not_exists(#v) OR #v <= :v"),
		ExpressionAttributeNames:  map[string]string{"#v": schema.AttrSchemaVersion},
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": item[schema.AttrSchemaVersion]},
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return &DriftError{Drift: []Drift{{Kind: DriftVersion, Severity: SeverityError, Table: p.names.Entities,
			Detail: fmt.Sprintf("a schema version newer than %d was recorded meanwhile", v)}}}
	}
	if err != nil {
		return errs.Wrap(err, "record schema version %d", v)
	}
	return nil
}
