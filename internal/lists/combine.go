package lists

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// Writers of one list in different processes combine their calls on its head (see
// relationships.Request). A plain Add or Remove that lost an attempt to another
// writer's commit posts itself on the head; so does every such call of the client
// on that list for contendedFor after a loss, or after a wait that saw other
// requests on the head. The writer of the oldest request waiting
// commits every request it may in one transaction, leaving each other request's
// result on the head; the others read the head until theirs is there (see
// combine_taken.go for when it comes off). A request left by
// a writer cut off is committed by whoever finds it older than takeOver, or
// dropped once older than relationships.RequestTTL. A writer that stops waiting
// (its context ends, or the list needs finishing) takes its request back before
// it returns or writes on its own, so that nothing it posted is committed after.

const (
	// combineObjects bounds the objects of one combined commit: two items each
	// (entry and marker), with the head and the subject's check, within a
	// transaction's 100.
	combineObjects = 40
	// takeOver is the least time the oldest request waits, with no commit to the
	// list, before the writer next in line commits it (see takesOver): its writer
	// may have been cut off.
	takeOver = 100 * time.Millisecond
	// pollEvery is about how often a writer waiting for its result polls the head.
	pollEvery = 12 * time.Millisecond
	// contendedFor is how long after losing to another process's commit a client's
	// writes of that list are posted at once, without a first attempt alone.
	contendedFor = 2 * time.Second
	// awaitAtMost bounds how long a request waits on the head before its writer
	// takes it back and writes on its own.
	awaitAtMost = 5 * time.Second
)

var (
	// errNotCombined says a write did not combine (its head is gone, or its request
	// was taken back or dropped before any commit): it writes on its own.
	errNotCombined = errors.New("not combined")
	// errUnknown says a request's outcome cannot be known: the withdrawal of a
	// request that may have been committed got no answer (see unknownError).
	errUnknown = errors.New("the outcome of a combined list write is unknown")
	// errUnclean says the list, or a large write of its subject, needs finishing
	// before requests are committed.
	errUnclean = errors.New("the list is to be finished first")
)

// unknownError is the error of a withdrawal that got no answer: the request may
// have been committed, or may still be.
type unknownError struct{ err error }

func (e *unknownError) Error() string        { return errUnknown.Error() + ": " + e.err.Error() }
func (e *unknownError) Is(target error) bool { return target == errUnknown }
func (e *unknownError) Unwrap() error        { return e.err }

// recentlyContended reports whether op's list lost a write to another process's
// commit within contendedFor.
func (c *Engine) recentlyContended(op Op) bool {
	at, ok := c.contended.Load(ID{op.Subject, op.Predicate})
	return ok && c.core.Now().Sub(at.(time.Time)) < contendedFor
}

// combineAfterLoss is the next step of WriteList for op, a plain Add or Remove,
// whose attempt lost to another writer's commit: it combines, and so will the
// client's writes of the list for contendedFor; when it cannot, it yields.
func (c *Engine) combineAfterLoss(ctx context.Context, op Op) (relationships.Change, batching.Step, error) {
	c.contended.Store(ID{op.Subject, op.Predicate}, c.core.Now())
	ch, err := c.combine(ctx, op)
	if errors.Is(err, errNotCombined) {
		return relationships.Change{}, batching.Yield, nil // which reports the retry
	}
	if c.core.Retrying != nil {
		c.core.Retrying(ctx, batching.ReasonConflict, 0, nil)
	}
	return ch, batching.Done, err
}

// combine writes op, a plain Add or Remove, by posting it on the head of its list
// and awaiting its commit; errNotCombined when the caller is to write on its own.
func (c *Engine) combine(ctx context.Context, op Op) (relationships.Change, error) {
	r := relationships.Request{ID: commit.NewToken(), Remove: op.Kind == Remove,
		Objects: store.DistinctKeys(op.Objects), Posted: c.core.Now()}
	h, err := c.post(ctx, op, r)
	switch {
	case errors.Is(err, errNotCombined):
		return relationships.Change{}, err
	case err != nil: // it may have been posted
		return c.withdraw(op, r, err)
	}
	waiting, cancel := context.WithTimeout(ctx, awaitAtMost)
	defer cancel()
	ch, err := c.awaitRequest(waiting, op, r, h)
	switch {
	case err == nil, errors.Is(err, errNotCombined):
		return ch, err
	case ctx.Err() == nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, errUnclean)):
		err = errNotCombined
	}
	return c.withdraw(op, r, err)
}

// post puts r on the head of op's list, which must exist, and returns the head
// as it left it. It takes off the head the results the client read there before
// (see taken).
func (c *Engine) post(ctx context.Context, op Op, r relationships.Request) (relationships.Head, error) {
	list := ID{op.Subject, op.Predicate}
	results := c.read.claim(list)
	remove, names := removeResults(results)
	names["#w"], names["#v"] = schema.WaitingPrefix+r.ID, schema.AttrVersion
	out, err := c.core.API.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(c.core.Names.Relationships),
		Key:                       relationships.HeadPrimaryKey(op.Subject, op.Predicate),
		UpdateExpression:          aws.String("SET #w = :r" + remove),
		ConditionExpression:       aws.String("attribute_exists(#v)"),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: map[string]types.AttributeValue{":r": relationships.RequestValue(r)},
		ReturnValues:              types.ReturnValueAllNew,
	})
	var failed *types.ConditionalCheckFailedException
	switch {
	case errors.As(err, &failed): // no head: the results went with it
		return relationships.Head{}, errNotCombined
	case err != nil:
		c.read.leave(list, results...) // they may still be there
		return relationships.Head{}, err
	}
	return relationships.HeadFromItem(op.Subject, op.Predicate, out.Attributes)
}

// awaitRequest waits until r, posted, has a result: it commits the requests
// waiting itself when r is the oldest, or when its turn to stand in for the
// oldest's writer has come (takesOver), and polls otherwise. h is the head as
// posting left it.
func (c *Engine) awaitRequest(ctx context.Context, op Op, r relationships.Request, h relationships.Head) (relationships.Change, error) {
	version, still := h.Version, c.core.Now() // the last commit to the list this writer saw
	for {
		now := c.core.Now()
		if h.Version != version {
			version, still = h.Version, now
		}
		waiting := relationships.Live(h.Waiting, now)
		if len(waiting) > 1 { // others still race for the list: go on combining
			c.contended.Store(ID{op.Subject, op.Predicate}, now)
		}
		if d, done := h.Done[r.ID]; done {
			c.read.leave(ID{op.Subject, op.Predicate}, r.ID)
			return resultOf(op, d.Changed), nil
		}
		switch {
		case !slices.ContainsFunc(waiting, func(w relationships.Request) bool { return w.ID == r.ID }):
			return relationships.Change{}, errNotCombined // gone with no result: never committed
		case !h.Leased(now) && takesOver(slices.IndexFunc(waiting, func(w relationships.Request) bool { return w.ID == r.ID }),
			waiting[0].Posted, still, now, c.commits.standIn()):
			ch, mine, after, err := c.commitRequests(ctx, op, r, h)
			if err != nil || mine {
				return ch, err
			}
			if after != nil { // lost: the refusal showed the head
				h = *after
				continue
			}
		default:
			if err := c.core.Batch.Sleep(ctx, pollEvery/2+rand.N(pollEvery)); err != nil {
				return relationships.Change{}, err
			}
		}
		var err error
		if h, err = c.poll(ctx, op); err != nil {
			return relationships.Change{}, err
		}
	}
}

// poll reads the head of op's list as it stands. Reading takes nothing off the
// head, so a poll whose answer is lost is sent again: r's result stays there
// until the writer's next post removes it, or tidy does (see taken).
func (c *Engine) poll(ctx context.Context, op Op) (relationships.Head, error) {
	out, err := c.core.API.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(c.core.Names.Relationships),
		Key:            relationships.HeadPrimaryKey(op.Subject, op.Predicate),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return relationships.Head{}, err
	}
	return relationships.HeadFromItem(op.Subject, op.Predicate, out.Item)
}

// commitRequests commits the batch of requests waiting on the head of op's list,
// read as h (relationships.Batch), in one transaction, and reports whether r was
// among them, with its change; after a loss, the head as the refusal showed it.
func (c *Engine) commitRequests(ctx context.Context, op Op, r relationships.Request, h relationships.Head) (_ relationships.Change, mine bool, after *relationships.Head, _ error) {
	now := c.core.Now()
	adds, removes := relationships.Batch(relationships.Live(h.Waiting, now), combineObjects)
	batch := append(slices.Clone(adds), removes...)
	read := Op{Kind: Add, Subject: op.Subject, Predicate: op.Predicate, Objects: relationships.ObjectsOf(batch)}
	s, err := c.readListState(ctx, read, true)
	switch {
	case err != nil:
		return relationships.Change{}, false, nil, err
	case !s.Subject.Live():
		return relationships.Change{}, false, nil, c.subjectGone(ctx, op.Subject, s.Subject)
	case s.Head.Version == 0: // deleted with the requests on it
		return relationships.Change{}, false, nil, errNotCombined
	}
	var doubt relationships.Doubt
	if c.core.PendingLeft(s.Subject) || relationships.Inspect(s.Head, s.Markers, nil, false, now, &doubt) != relationships.Clean {
		return relationships.Change{}, false, nil, errUnclean // WriteList finishes it
	}
	ch := relationships.ChangeCombined(s.Head, s.Markers, relationships.ObjectsOf(adds), relationships.ObjectsOf(removes))
	shares := append(shareOut(ch.Added, opsOf(adds)), shareOut(ch.Removed, opsOf(removes))...)
	ch.At = now
	ch.Prune = relationships.Expired(s.Head, now)
	own := -1
	for i, b := range batch {
		if b.ID == r.ID {
			own = i
		}
		ch.Applied = append(ch.Applied, relationships.Applied{ID: b.ID, Changed: shares[i], Own: b.ID == r.ID})
	}
	t := &actions.Transaction{}
	if !s.SubjectStands {
		c.CheckEntity(t, op.Subject, actions.Role{Kind: actions.RoleEntity})
	}
	actions.AddChange(t, c.ListTables(), ch, false, now)
	a := c.transact(ctx, t)
	switch {
	case a.Outcome == commit.Committed && own >= 0:
		return resultOf(op, shares[own]), true, nil, nil
	case a.Outcome == commit.Committed:
		return relationships.Change{}, false, nil, nil
	case a.Outcome != commit.ConditionFailed:
		return relationships.Change{}, false, nil, a.Err
	}
	if c.core.Retrying != nil {
		c.core.Retrying(ctx, batching.ReasonConflict, 0, nil)
	}
	if role, ok := t.RoleOf(a.Action); ok && role.Kind == actions.RoleHead && a.Action < len(a.Reasons) {
		if now, err := relationships.HeadFromItem(op.Subject, op.Predicate, a.Reasons[a.Action].Item); err == nil {
			return relationships.Change{}, false, &now, nil
		}
	}
	return relationships.Change{}, false, nil, nil
}

// opsOf returns the requests of rs as ops naming their objects, for shareOut.
func opsOf(rs []relationships.Request) []Op {
	ops := make([]Op, len(rs))
	for i, r := range rs {
		ops[i] = Op{Objects: r.Objects}
	}
	return ops
}

// resultOf is the change a request of op reports: the objects it changed.
func resultOf(op Op, changed []store.Key) relationships.Change {
	ch := relationships.Change{Subject: op.Subject, Predicate: op.Predicate}
	if op.Kind == Remove {
		ch.Removed = changed
	} else {
		ch.Added = changed
	}
	return ch
}

// withdraw takes r off the head of a call that stops waiting with cause, unless
// it was committed meanwhile: then the call returns its result.
func (c *Engine) withdraw(op Op, r relationships.Request, cause error) (relationships.Change, error) {
	ctx, cancel := context.WithTimeout(context.Background(), awaitAtMost)
	defer cancel()
	_, err := c.core.API.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                           aws.String(c.core.Names.Relationships),
		Key:                                 relationships.HeadPrimaryKey(op.Subject, op.Predicate),
		UpdateExpression:                    aws.String("REMOVE #w"),
		ConditionExpression:                 aws.String("attribute_exists(#w)"),
		ExpressionAttributeNames:            map[string]string{"#w": schema.WaitingPrefix + r.ID},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var failed *types.ConditionalCheckFailedException
	switch {
	case err == nil: // taken back before any commit
		return relationships.Change{}, cause
	case !errors.As(err, &failed): // it may still be committed: the call cannot say
		return relationships.Change{}, &unknownError{err}
	}
	h, err := relationships.HeadFromItem(op.Subject, op.Predicate, failed.Item)
	if err != nil {
		return relationships.Change{}, err
	}
	if d, ok := h.Done[r.ID]; ok {
		c.read.leave(ID{op.Subject, op.Predicate}, r.ID)
		return resultOf(op, d.Changed), nil
	}
	// Gone with no result: never committed.
	return relationships.Change{}, cause
}
