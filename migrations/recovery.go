package migrations

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"golang.org/x/sync/errgroup"

	"github.com/rynodb/rynodb/internal/errs"
)

// readRecovery returns whether each live table has point-in-time recovery, asking
// for all of them in parallel. Reading it also finds out that the endpoint cannot
// turn it on (DynamoDB Local): when no table exists yet, it asks about one that
// does not, so that Up fails before it creates anything rather than after.
func (p *Provider) readRecovery(ctx context.Context, live map[string]*types.TableDescription) (map[string]bool, error) {
	var names []string
	for _, name := range p.names.Tables() {
		if live[name] != nil {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return map[string]bool{}, p.probeRecovery(ctx, p.names.Entities)
	}
	on := make([]bool, len(names))
	g, gctx := errgroup.WithContext(ctx)
	for i, name := range names {
		g.Go(func() error {
			out, err := p.api.DescribeContinuousBackups(gctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(name)})
			if err != nil {
				return errs.Wrap(unsupported(err, "point-in-time recovery"), "describe continuous backups of table %s", name)
			}
			on[i] = recoveryEnabled(out.ContinuousBackupsDescription)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	recovery := make(map[string]bool, len(names))
	for i, name := range names {
		recovery[name] = on[i]
	}
	return recovery, nil
}

// probeRecovery checks that the endpoint knows point-in-time recovery by asking
// for that of table name, which does not exist: DynamoDB answers that the table is
// not found, an endpoint without the feature that the operation is unknown.
func (p *Provider) probeRecovery(ctx context.Context, name string) error {
	_, err := p.api.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(name)})
	var tableNotFound *types.TableNotFoundException
	if err == nil || errors.As(err, &tableNotFound) || isNotFound(err) {
		return nil
	}
	return errs.Wrap(unsupported(err, "point-in-time recovery"), "describe continuous backups of table %s", name)
}

func recoveryEnabled(d *types.ContinuousBackupsDescription) bool {
	return d != nil && d.PointInTimeRecoveryDescription != nil &&
		d.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus == types.PointInTimeRecoveryStatusEnabled
}

// enableRecovery turns on point-in-time recovery as a asks. DynamoDB refuses for a
// while after it creates a table, with ContinuousBackupsUnavailableException, so
// that refusal is waited out.
func (p *Provider) enableRecovery(ctx context.Context, a Action) error {
	return p.poll(ctx, "continuous backups of table "+a.Table+" to become available", func() (string, error) {
		_, err := p.api.UpdateContinuousBackups(ctx, a.UpdateContinuousBackups)
		var unavailable *types.ContinuousBackupsUnavailableException
		if errors.As(err, &unavailable) {
			return "ContinuousBackupsUnavailableException", nil
		}
		return "", unsupported(err, "point-in-time recovery")
	})
}

// unsupported adds to err, when the endpoint does not know the operation, which
// feature needs it: DynamoDB Local does not support every one.
func unsupported(err error, feature string) error {
	var api smithy.APIError
	if errors.As(err, &api) && api.ErrorCode() == "UnknownOperationException" {
		return errs.Wrap(err, "this endpoint does not support %s (DynamoDB Local does not)", feature)
	}
	return err
}
