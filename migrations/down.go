package migrations

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/errs"
)

// DownOptions configures Down.
type DownOptions struct {
	// ConfirmDataLoss must be true: Down deletes the tables and every item in them.
	ConfirmDataLoss bool
}

// Down deletes the store's three tables and waits until they are gone. Tables that do
// not exist are skipped, so running Down twice is not an error. Without
// opts.ConfirmDataLoss it sends no request and returns ErrNotConfirmed. Otherwise
// it sends a DescribeTable of each table (to find deletion protection) and another
// before its DeleteTable, then a DescribeTable every PollInterval until each is
// gone.
func (p *Provider) Down(ctx context.Context, opts DownOptions) (*Result, error) {
	if !opts.ConfirmDataLoss {
		return nil, ErrNotConfirmed
	}
	start := time.Now()
	res := &Result{}
	err := p.deleteAll(ctx, res)
	res.Duration = time.Since(start)
	return res, err
}

// deleteAll deletes the tables, appending an action to res for each deletion sent,
// then waits until all are gone.
func (p *Provider) deleteAll(ctx context.Context, res *Result) error {
	if err := p.checkUnprotected(ctx); err != nil {
		return err
	}
	for _, name := range p.names.Tables() {
		deleted, err := p.deleteTable(ctx, name)
		if err != nil {
			return errs.Wrap(err, "delete table %s", name)
		}
		if deleted {
			res.Actions = append(res.Actions, Action{Kind: ActionDeleteTable, Table: name})
		}
	}
	for _, name := range p.names.Tables() {
		if err := p.waitGone(ctx, name); err != nil {
			return err
		}
	}
	return nil
}

// deleteTable deletes table name and reports whether it sent the deletion: false when
// the table does not exist or is already being deleted.
func (p *Provider) deleteTable(ctx context.Context, name string) (bool, error) {
	d, err := p.describe(ctx, name)
	if err != nil || d == nil || d.TableStatus == types.TableStatusDeleting {
		return false, err
	}
	if d.TableStatus != types.TableStatusActive { // DynamoDB refuses to delete a table being created or updated
		if _, err := p.waitActive(ctx, name); err != nil {
			return false, err
		}
	}
	p.logf("%s", Action{Kind: ActionDeleteTable, Table: name})
	_, err = p.api.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	if isNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// checkUnprotected fails, before any table is deleted, when a table has deletion
// protection on: DynamoDB would refuse to delete it, leaving the store half deleted.
func (p *Provider) checkUnprotected(ctx context.Context) error {
	var protected []string
	for _, name := range p.names.Tables() {
		d, err := p.describe(ctx, name)
		if err != nil {
			return err
		}
		if d != nil && aws.ToBool(d.DeletionProtectionEnabled) {
			protected = append(protected, name)
		}
	}
	if len(protected) > 0 {
		return &ProtectedError{Tables: protected}
	}
	return nil
}
