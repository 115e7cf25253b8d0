package migrations

import (
	"context"
	"errors"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/schema"
)

// wantedTimeToLive returns the time-to-live attribute the schema wants, by table:
// the expiry of entities, on the entities table, so that DynamoDB deletes expired
// entities. It costs nothing and only acts on items that carry the attribute.
func wantedTimeToLive(n schema.Names) map[string]string {
	return map[string]string{n.Entities: schema.AttrExpires}
}

// readTimeToLive returns the time to live of table name. A description DynamoDB
// leaves out counts as DISABLED.
func (p *Provider) readTimeToLive(ctx context.Context, name string) (*types.TimeToLiveDescription, error) {
	out, err := p.api.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	if err != nil {
		return nil, errs.Wrap(unsupported(err, "time to live"), "describe time to live of table %s", name)
	}
	if out.TimeToLiveDescription == nil {
		return &types.TimeToLiveDescription{TimeToLiveStatus: types.TimeToLiveStatusDisabled}, nil
	}
	return out.TimeToLiveDescription, nil
}

// compareTimeToLive finds the time to live the schema wants that the live table
// lacks. Unlike the settings of Options it is part of the schema, so Up turns it on
// in existing tables too. A table whose time to live is on another attribute, or
// being turned off, is reported and left alone: DynamoDB allows one time-to-live
// attribute per table, and refuses to turn it on until turning it off has ended.
func (t *tableDiff) compareTimeToLive() {
	want, live := t.target.timeToLive[t.name()], t.timeToLive
	if want == "" || live == nil {
		return
	}
	switch attr := aws.ToString(live.AttributeName); live.TimeToLiveStatus {
	case types.TimeToLiveStatusDisabled:
		t.settings = append(t.settings, timeToLiveAction(t.name(), want))
	case types.TimeToLiveStatusEnabled, types.TimeToLiveStatusEnabling:
		if attr != want {
			t.add(DriftTimeToLive, SeverityWarning, "", "time to live is on attribute %s, want %s; up does not change it, "+
				"as DynamoDB allows one time-to-live attribute per table: turn it off, then run up again", attr, want)
		}
	case types.TimeToLiveStatusDisabling:
		t.add(DriftTimeToLive, SeverityWarning, "", "time to live is being turned off; "+
			"up can turn it on, on attribute %s, once DynamoDB has finished disabling it", want)
	default:
		t.add(DriftTimeToLive, SeverityWarning, "", "time to live is %s, want ENABLED on attribute %s", live.TimeToLiveStatus, want)
	}
}

// timeToLiveAction returns the action turning on time to live on attribute attr of
// table.
func timeToLiveAction(table, attr string) Action {
	return Action{Kind: ActionEnableTimeToLive, Table: table, UpdateTimeToLive: &dynamodb.UpdateTimeToLiveInput{
		TableName:               aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(attr), Enabled: aws.Bool(true)},
	}}
}

// enableTimeToLive sends a's UpdateTimeToLive. DynamoDB refuses it when time to live
// is already on, as another run of Up may have turned it on meanwhile; the refusal
// then means it is done.
func (p *Provider) enableTimeToLive(ctx context.Context, a Action) error {
	_, err := p.api.UpdateTimeToLive(ctx, a.UpdateTimeToLive)
	if alreadyEnabled(err) {
		return nil
	}
	return unsupported(err, "time to live")
}

// alreadyEnabled reports whether err is DynamoDB's refusal to turn on a time to live
// that is on: a ValidationException saying "TimeToLive is already enabled". One on
// another attribute is refused otherwise ("TimeToLive is active on a different
// AttributeName"), and stays an error.
func alreadyEnabled(err error) bool {
	var api smithy.APIError
	return errors.As(err, &api) && api.ErrorCode() == "ValidationException" &&
		strings.Contains(strings.ToLower(api.ErrorMessage()), "already enabled")
}
