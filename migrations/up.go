package migrations

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/errs"
)

// Result reports what Up or Down did.
type Result struct {
	Actions  []Action // the actions completed, in order; empty when there was nothing to do
	Pending  []Action // Up: when it failed, the actions of its plan not completed, in order
	Warnings []Drift  // drift of SeverityWarning found before starting (Up only)

	RecordedVersion int // Up: the version recorded before the run
	Version         int // Up: the version recorded after it

	Duration time.Duration // how long the run took
}

// Changed reports whether the run did anything.
func (r *Result) Changed() bool { return len(r.Actions) > 0 }

// Up brings the store to CurrentVersion: it creates the missing tables and GSIs,
// waits until every table and GSI is ACTIVE, turns on the entities table's time to
// live when it is off, runs pending data steps and records the version. When the
// plan has drift of SeverityError, Up sends no write and returns a *DriftError. On
// any other error the Result lists the actions completed before it
// (Actions) and those of the plan it left undone (Pending); running Up again
// continues from there. With PointInTimeRecovery, Up first checks that the
// endpoint supports it (DynamoDB Local does not), and fails before any write when
// it does not.
//
// It reads what Plan reads, then sends the actions of the plan one after the other
// (a CreateTable, an UpdateTable, an UpdateTimeToLive, an UpdateContinuousBackups, a
// data step's Scans and writes, the PutItem of the version), with a DescribeTable
// every PollInterval until a table it changed is ACTIVE, and last until every table
// is: a store up to date costs Plan's reads and 3 DescribeTable.
func (p *Provider) Up(ctx context.Context) (*Result, error) {
	start := time.Now()
	s, err := p.inspect(ctx)
	if err != nil {
		return nil, err
	}
	plan := p.diff(s)
	if errs := plan.Errors(); len(errs) > 0 {
		return nil, &DriftError{Drift: errs}
	}
	if plan.Newer() {
		// A newer release migrated the store: what this one would create or retire
		// may undo it, even where its programs still work at that version.
		return nil, &DriftError{Drift: []Drift{{Kind: DriftVersion, Severity: SeverityError, Table: p.names.Entities,
			Detail: fmt.Sprintf("recorded schema version %d is newer than %d, the newest this program knows; migrate with a newer release",
				plan.RecordedVersion, plan.TargetVersion)}}}
	}
	res := &Result{Warnings: plan.Warnings(), RecordedVersion: plan.RecordedVersion, Version: plan.RecordedVersion}
	err = p.run(ctx, plan, s.version, res)
	res.Duration = time.Since(start)
	return res, err
}

// run applies the plan's actions, appending each to res once it is done, and on
// failure those not done to res.Pending. Schema actions come first; everything
// must be ACTIVE before the others run.
func (p *Provider) run(ctx context.Context, plan *Plan, version int, res *Result) (err error) {
	defer func() {
		if done := len(res.Actions); err != nil && done < len(plan.Actions) {
			res.Pending = slices.Clone(plan.Actions[done:])
		}
	}()
	ready := false
	for _, a := range plan.Actions {
		if !a.isSchema() && !ready {
			if err := p.waitReady(ctx, version); err != nil {
				return err
			}
			ready = true
		}
		p.logf("%s", a)
		if err := p.apply(ctx, a); err != nil {
			return errs.Wrap(err, "%s", a)
		}
		res.Actions = append(res.Actions, a)
		if a.Kind == ActionRecordVersion {
			res.Version = a.Version
		}
	}
	if ready {
		return nil
	}
	return p.waitReady(ctx, version)
}

func (p *Provider) apply(ctx context.Context, a Action) error {
	switch a.Kind {
	case ActionCreateTable:
		_, err := p.api.CreateTable(ctx, a.CreateTable)
		var inUse *types.ResourceInUseException
		if err != nil && !errors.As(err, &inUse) { // in use: created meanwhile; waitReady checks it
			return err
		}
		_, err = p.waitActive(ctx, a.Table)
		return err
	case ActionCreateIndex, ActionDeleteIndex, ActionEnableDeletionProtection, ActionEnableStream, ActionSetEncryption:
		return p.updateTable(ctx, a)
	case ActionEnableRecovery:
		return p.enableRecovery(ctx, a)
	case ActionEnableTimeToLive:
		return p.enableTimeToLive(ctx, a)
	case ActionRunMigration:
		for _, m := range p.migrations {
			if m.Version == a.Version && m.run != nil {
				return m.run(ctx, p.api, p.names)
			}
		}
		return errs.New("no data step for version %d", a.Version)
	case ActionRecordVersion:
		return p.writeVersion(ctx, a.Version)
	}
	return errs.New("unexpected action %s", a.Kind)
}

// updateTable sends a's UpdateTable once the table is ACTIVE, since DynamoDB rejects
// it while the table or an index is changing, and waits until it is ACTIVE again.
func (p *Provider) updateTable(ctx context.Context, a Action) error {
	if _, err := p.waitActive(ctx, a.Table); err != nil {
		return err
	}
	if _, err := p.api.UpdateTable(ctx, a.UpdateTable); err != nil {
		return err
	}
	_, err := p.waitActive(ctx, a.Table)
	return err
}

// waitReady waits until every table and GSI is ACTIVE, then checks that the tables now
// match the schema: something may have changed them while Up ran.
func (p *Provider) waitReady(ctx context.Context, version int) error {
	s := &snapshot{live: map[string]*types.TableDescription{}, version: version}
	for _, name := range p.names.Tables() {
		d, err := p.waitActive(ctx, name)
		if err != nil {
			return err
		}
		s.live[name] = d
	}
	plan := p.diff(s)
	if errs := plan.Errors(); len(errs) > 0 {
		return &DriftError{Drift: errs}
	}
	for _, a := range plan.Actions {
		if a.isSchema() {
			return errs.New("the tables changed while up ran: %s is still needed; run up again", a)
		}
	}
	return nil
}
