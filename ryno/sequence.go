package ryno

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// A sequence is a named counter of an entity, its owner: TransactNext draws its next
// number and commits it with the operations that use it, in one transaction, so a
// number is used exactly when it is drawn. The last number drawn is one item in the
// owner's partition of the relationship entries table (schema.SequenceKey), which
// the owner's Delete deletes with its lists.

// drawAttempts multiplies Options.Conflicts.MaxAttempts for the draws of one call.
const drawAttempts = 4

// TransactNext draws the next number of owner's sequence name (1 first, then 2, and
// so on), and commits the draw with the operations build returns for that number
// in one TransactWriteItems: the number goes into an entity created, a unique
// index value, whatever the operations write. The owner must exist (ErrNotFound).
// It returns the number and the operations' results.
//
// A draw another call committed first refuses the transaction; TransactNext then
// reads the sequence and calls build again with the next number. As each such
// refusal means another draw committed, it makes four times the attempts of
// Options.Conflicts (40 by default), with its backoff: n calls drawing at once all
// succeed while n stays below that. Any other refusal fails the call with the
// *TransactionError of Transact, and nothing is drawn: numbers are never repeated,
// and a number is skipped only by a call that failed after its commit was sent
// (ErrOutcomeUnknown). It sends one GetItem of the sequence, then what Transact
// sends: 2 requests in 2 rounds when nobody else draws and the operations read
// nothing. A draw lost to another call adds a GetItem and an attempt.
func (c *Client) TransactNext(ctx context.Context, owner Key, name string, build func(n int64) ([]Op, error)) (_ int64, _ []OpResult, err error) {
	ctx, call, err := c.begin(ctx, "TransactNext")
	defer call.end(&err)
	if err != nil {
		return 0, nil, err
	}
	if err := validateSequence(owner, name); err != nil {
		return 0, nil, err
	}
	if build == nil {
		return 0, nil, invalid("TransactNext", name, "needs a function building the operations")
	}
	conflicts := batching.Policy(c.opts.Conflicts)
	conflicts.MaxAttempts *= drawAttempts
	pace := batching.NewPacer(conflicts, c.core.Batch.Sleep, retrying)
	giveUp := func(_, err error) error {
		return &ConflictError{Key: owner, Reason: "other calls kept drawing from sequence " + name + ": " + err.Error()}
	}
	var drawn int64
	results, err := batching.Attempts(ctx, pace, giveUp, func(ctx context.Context) ([]OpResult, batching.Step, error) {
		last, err := c.readSequence(ctx, owner, name, true)
		if err != nil {
			return nil, batching.Done, wrap(err, "sequence %s of %s", name, owner)
		}
		ops, err := build(last + 1)
		if err != nil {
			return nil, batching.Done, err
		}
		draw := Op{kind: opSequence, key: owner, predicate: name, from: last}
		results, err := c.Transact(ctx, append(ops, draw)...)
		if err == nil {
			drawn = last + 1
			return results[:len(ops)], batching.Done, nil
		}
		if moved, rerr := c.sequenceMoved(ctx, owner, name, last, err); rerr != nil || !moved {
			return nil, batching.Done, errors.Join(err, rerr)
		}
		return nil, batching.Retry, nil
	})
	if err != nil {
		return 0, nil, err
	}
	return drawn, results, nil
}

// sequenceMoved reports whether a transaction refused with err drew from a
// sequence another call drew from since it read last: then every operation built
// for the number after last may be refused for that alone (an entity of that number
// exists, a unique value is taken), whether at the commit or while planning, and
// the draw is made again.
func (c *Client) sequenceMoved(ctx context.Context, owner Key, name string, last int64, err error) (bool, error) {
	var refused *TransactionError
	switch {
	case errors.Is(err, store.ErrSequenceMoved):
		return true, nil
	case !errors.As(err, &refused):
		return false, nil
	}
	now, rerr := c.readSequence(ctx, owner, name, true)
	return now != last, rerr
}

// Sequence returns the last number drawn from owner's sequence name: 0 when none
// was. It is strongly consistent with Options.ConsistentRead. It sends one GetItem
// (one round).
func (c *Client) Sequence(ctx context.Context, owner Key, name string) (_ int64, err error) {
	ctx, call, err := c.begin(ctx, "Sequence")
	defer call.end(&err)
	if err != nil {
		return 0, err
	}
	if err := validateSequence(owner, name); err != nil {
		return 0, err
	}
	n, err := c.readSequence(ctx, owner, name, c.opts.ConsistentRead)
	return n, wrap(err, "sequence %s of %s", name, owner)
}

func validateSequence(owner Key, name string) error {
	if err := owner.Validate(); err != nil {
		return err
	}
	if err := schema.ValidateComponent("sequence", name); err != nil {
		return err
	}
	return schema.ValidateKeyLength("sequence", schema.SequenceKey(name), schema.MaxSortKeyBytes)
}

// readSequence reads the last number drawn from owner's sequence name.
func (c *Client) readSequence(ctx context.Context, owner Key, name string, consistent bool) (int64, error) {
	in := store.GetInput(c.core.Names.Relationships, store.SequenceKey(owner, name))
	in.ConsistentRead = aws.Bool(consistent)
	out, err := c.core.API.GetItem(ctx, in)
	if err != nil || out.Item == nil {
		return 0, err
	}
	return entitystate.VersionValue(out.Item[schema.AttrValue])
}
