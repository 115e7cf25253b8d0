package migrations

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/errs"
)

// waitActive waits until table name and all its GSIs are ACTIVE and returns its
// description. A missing table counts as not ready yet: DescribeTable may lag behind a
// CreateTable that just succeeded.
func (p *Provider) waitActive(ctx context.Context, name string) (*types.TableDescription, error) {
	var desc *types.TableDescription
	err := p.poll(ctx, "table "+name+" to become ACTIVE", func() (string, error) {
		d, err := p.describe(ctx, name)
		desc = d
		return notActive(d), err
	})
	return desc, err
}

// waitGone waits until table name no longer exists.
func (p *Provider) waitGone(ctx context.Context, name string) error {
	return p.poll(ctx, "table "+name+" to be deleted", func() (string, error) {
		d, err := p.describe(ctx, name)
		if err != nil || d == nil {
			return "", err
		}
		return "table " + string(d.TableStatus), nil
	})
}

// notActive returns why d is not ready, or "" when the table and every GSI are ACTIVE.
func notActive(d *types.TableDescription) string {
	if d == nil {
		return "table not found yet"
	}
	if d.TableStatus != types.TableStatusActive {
		return "table " + string(d.TableStatus)
	}
	for _, g := range d.GlobalSecondaryIndexes {
		if g.IndexStatus != types.IndexStatusActive {
			return fmt.Sprintf("GSI %s %s", aws.ToString(g.IndexName), g.IndexStatus)
		}
	}
	return ""
}

// poll calls check at once and then every PollInterval until check returns "" (done)
// or an error, or ctx ends. Otherwise check returns why it is not done yet; the first
// such reason is logged as "waiting for <what> (<reason>)".
func (p *Provider) poll(ctx context.Context, what string, check func() (string, error)) error {
	logged := false
	for {
		reason, err := check()
		if err != nil || reason == "" {
			return err
		}
		if !logged {
			p.logf("waiting for %s (%s)", what, reason)
			logged = true
		}
		select {
		case <-ctx.Done():
			return errs.Wrap(context.Cause(ctx), "waiting for %s (%s)", what, reason)
		case <-time.After(p.opts.PollInterval):
		}
	}
}
