package migrations

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/tables"
)

// Provider plans and applies the migrations of one store, named by its table prefix.
// It is safe for concurrent use, but runs of Up on the same store should not overlap.
type Provider struct {
	api        API
	opts       Options
	names      schema.Names
	migrations []migration

	// timeToLive makes the provider read and turn on the entities table's time to
	// live. Check turns it off: its client cannot read it.
	timeToLive bool
}

// NewProvider returns a Provider for the store opts.TablePrefix names. It sends no
// request. Invalid options are reported as a *tables.ValidationError.
func NewProvider(api API, opts Options) (*Provider, error) {
	if api == nil {
		return nil, errs.New("nil API")
	}
	if err := opts.validate(); err != nil {
		return nil, err
	}
	names, err := schema.NewNames(opts.TablePrefix)
	if err != nil {
		return nil, err
	}
	return &Provider{api: api, opts: opts.withDefaults(), names: names, migrations: allMigrations(), timeToLive: true}, nil
}

// Names returns the names of the store's tables and indexes.
func (p *Provider) Names() tables.Names { return p.names }

// Plan returns what Up would do now, and any drift. It only reads: one DescribeTable
// per table in parallel, then, when the entities table exists, a GetItem of the
// recorded version and a DescribeTimeToLive; with PointInTimeRecovery, a
// DescribeContinuousBackups per table too, in parallel. For a store in place, 5
// requests in 3 rounds.
func (p *Provider) Plan(ctx context.Context) (*Plan, error) {
	s, err := p.inspect(ctx)
	if err != nil {
		return nil, err
	}
	return p.diff(s), nil
}

// Status returns the state of every table and index, the recorded version, the drift
// and what Up would do. It only reads, and sends what Plan sends.
func (p *Provider) Status(ctx context.Context) (*Status, error) {
	s, err := p.inspect(ctx)
	if err != nil {
		return nil, err
	}
	plan := p.diff(s)
	return &Status{
		RecordedVersion: plan.RecordedVersion,
		TargetVersion:   plan.TargetVersion,
		Tables:          tableStatuses(p.definitions(), s.live),
		Drift:           plan.Drift,
		Pending:         plan.Actions,
	}, nil
}

// snapshot is what inspect finds in the store.
type snapshot struct {
	live       map[string]*types.TableDescription      // by table name; missing tables are absent
	version    int                                     // recorded schema version; 0 when none
	compatible int                                     // the oldest version whose programs work at it; 0 when not recorded
	recovery   map[string]bool                         // point-in-time recovery by table; nil when not read
	timeToLive map[string]*types.TimeToLiveDescription // by table; absent when not read
}

// recoveryOf returns whether table name has point-in-time recovery, or nil when
// that was not read.
func (s *snapshot) recoveryOf(name string) *bool {
	on, ok := s.recovery[name]
	if !ok {
		return nil
	}
	return &on
}

// inspect describes the tables, in parallel, and reads the recorded version and, when
// the provider handles it, the entities table's time to live.
func (p *Provider) inspect(ctx context.Context) (*snapshot, error) {
	s := &snapshot{live: map[string]*types.TableDescription{}}
	names := p.names.Tables()
	found := make([]*types.TableDescription, len(names))
	g, gctx := errgroup.WithContext(ctx)
	for i, name := range names {
		g.Go(func() (err error) {
			found[i], err = p.describe(gctx, name)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for i, d := range found {
		if d != nil {
			s.live[names[i]] = d
		}
	}
	// With other keys the record cannot be read; that table is reported as drift.
	if e := s.live[p.names.Entities]; e != nil && keysMatch(p.definitions()[0], e) {
		r, err := p.readVersion(ctx)
		if err != nil {
			return nil, err
		}
		s.version, s.compatible = r.version, r.compatible
	}
	if p.opts.PointInTimeRecovery {
		recovery, err := p.readRecovery(ctx, s.live)
		if err != nil {
			return nil, err
		}
		s.recovery = recovery
	}
	if p.timeToLive && s.live[p.names.Entities] != nil {
		ttl, err := p.readTimeToLive(ctx, p.names.Entities)
		if err != nil {
			return nil, err
		}
		s.timeToLive = map[string]*types.TimeToLiveDescription{p.names.Entities: ttl}
	}
	return s, nil
}

func (p *Provider) diff(s *snapshot) *Plan {
	t := target{tables: p.definitions(), recovery: p.opts.PointInTimeRecovery, updateExisting: p.opts.UpdateExisting,
		retired: p.names.RetiredIndexes()}
	if p.timeToLive {
		t.timeToLive = wantedTimeToLive(p.names)
	}
	return diff(t, s, p.migrations)
}

// definitions returns the wanted tables; the entities table, which holds the version
// record, comes first.
func (p *Provider) definitions() []*dynamodb.CreateTableInput {
	return p.opts.definitions(p.names)
}

// describe returns the description of table name, or nil when it does not exist.
func (p *Provider) describe(ctx context.Context, name string) (*types.TableDescription, error) {
	out, err := p.api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, errs.Wrap(err, "describe table %s", name)
	}
	return out.Table, nil
}

func isNotFound(err error) bool {
	var rnf *types.ResourceNotFoundException
	return errors.As(err, &rnf)
}

func (p *Provider) logf(format string, args ...any) {
	if p.opts.Logger != nil {
		p.opts.Logger.Printf(format, args...)
	}
}
