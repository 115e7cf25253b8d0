package writes

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// TxKind is what an operation of a transaction does.
type TxKind int

const (
	TxCreate TxKind = iota
	TxUpdate
	TxSet
	TxPatch
	TxDelete
	TxCheck
	TxAdd
	TxRemove
	TxSequence
)

func (k TxKind) String() string {
	return [...]string{"create", "update", "set", "patch", "delete", "check", "add relationships", "remove relationships", "draw from sequence"}[k]
}

// TxOp is one operation of a transaction, checked by package ryno.
type TxOp struct {
	Kind TxKind
	Key  store.Key // the entity, or the subject of a list or sequence
	Put  Put       // Create, Update, Set
	// Patch is the patch of a TxPatch. Of an indexed type, Patched returns the base
	// item (as Put.Base) of the entity stored as item with the patch applied.
	Patch     Patch
	Patched   func(item map[string]types.AttributeValue) (map[string]types.AttributeValue, error)
	Version   int64           // the version a Patch or Delete requires (0: any)
	Created   time.Time       // the life a Patch or Delete requires (IfCreated; zero: any)
	Cond      store.Condition // If; the condition of a TxCheck
	Predicate string          // of a list; the name of a sequence
	Objects   []store.Key
	From      int64 // the number a draw from a sequence last read
}

// TxResult is what one operation of a committed transaction did: the item of the
// entity it wrote, as stored, and the objects it added or removed.
type TxResult struct {
	Item    map[string]types.AttributeValue
	Changed []store.Key
}

// ErrSequenceMoved is the refusal of a draw another call made first.
var ErrSequenceMoved = errors.New(errs.Prefix + "the sequence was drawn from meanwhile")

// errRetryTx asks for another attempt after a backoff: an entity is in the middle
// of a large write.
var errRetryTx = errors.New(errs.Prefix + "an entity of the transaction is being written")

// pendingError is errRetryTx for the entity Key, which holds the pending mark of a
// large write: cut off, or still writing its index entries. The transaction
// finishes those entries first, as every writer meeting the mark does (a writer
// still at work finds its mark gone, and leaves the rest to it).
type pendingError struct{ Key store.Key }

func (e *pendingError) Error() string { return errRetryTx.Error() + ": " + e.Key.String() }
func (e *pendingError) Unwrap() error { return errRetryTx }

// Tx is a transaction being prepared: NewTx, Add for each operation, Seal, then
// Commit.
type Tx struct {
	c   *Writer
	ops []*txOp
	// written are the entities written by an operation: a list operation of the
	// same subject checks it through that write.
	written map[store.Key]TxKind
	lists   map[string]bool     // the lists and sequences of operations
	checks  map[store.Key]*txOp // the TxChecks
	// joined are the TxChecks of the subjects of list operations: each list's check
	// of its subject requires the TxCheck's condition too, one action for both.
	joined map[store.Key]*txOp
	bytes  int
}

// txOp is one operation, with what it needs between attempts.
type txOp struct {
	TxOp
	index int
	write *write // Create, Update, Set
	// subjectChecked says that an earlier operation on a list or sequence of the
	// same subject checks it: a transaction may hold one action on an item.
	subjectChecked bool
	// headsStand says every operation on the subject's lists and sequences is an
	// Add or Remove of a list, with no TxCheck of the subject and no other write of
	// it: each reads the subject with its list, and assemble checks the subject only
	// when one of them needs it (it creates a head or writes none, its list owns its
	// objects, or the subject expires). Otherwise the heads written stand for the
	// subject, as for a list write of its own (lists.go).
	headsStand bool
	// created is the stored _created a TxPatch of a type without indexes requires
	// (PatchOptions.Created), once a refusal showed it in another layout.
	created string
}

// NewTx starts a transaction of n operations.
func (c *Writer) NewTx(n int) (*Tx, error) {
	switch {
	case n == 0:
		return nil, store.Invalid("Transact", "", "needs an operation")
	case n > actions.MaxItems:
		return nil, &store.TransactionLimitError{Limit: "actions", Detail: fmt.Sprintf("%d operations; a transaction holds at most %d actions", n, actions.MaxItems)}
	}
	return &Tx{c: c, written: map[store.Key]TxKind{}, lists: map[string]bool{}, checks: map[store.Key]*txOp{}}, nil
}

// Add adds the next operation, after checking it against the others.
func (t *Tx) Add(op TxOp) error {
	p := &txOp{TxOp: op, index: len(t.ops)}
	switch op.Kind {
	case TxCreate, TxUpdate, TxSet:
		w, err := t.c.newWrite(op.Put)
		if err != nil {
			return errs.Wrap(err, "transaction operation %d (%s)", p.index, op.Kind)
		}
		p.write, p.Key = w, op.Put.Key
		t.bytes += schema.ItemSize(op.Put.Base)
	case TxPatch:
		t.bytes += schema.ItemSize(actions.EntityKey(op.Key)) + op.Patch.Size()
	}
	switch op.Kind {
	case TxAdd, TxRemove, TxSequence:
		id := fmt.Sprint(op.Kind == TxSequence, "\x00", p.Key.String(), "\x00", op.Predicate)
		if t.lists[id] {
			return &store.TransactionLimitError{Limit: "item", Detail: fmt.Sprintf("the list or sequence %s %s is in two operations", p.Key, op.Predicate)}
		}
		t.lists[id] = true
	default:
		if _, dup := t.written[p.Key]; dup {
			return &store.TransactionLimitError{Limit: "item", Detail: fmt.Sprintf("%s is in two operations", p.Key)}
		}
		t.written[p.Key] = op.Kind
		if op.Kind == TxCheck {
			t.checks[p.Key] = p
		}
	}
	t.ops = append(t.ops, p)
	return nil
}

// Seal ends the preparation: it joins the checks of list subjects, leaves the
// check of a subject to the first operation on its lists and sequences, and checks
// the size of what the operations send.
func (t *Tx) Seal() error {
	t.joined = map[store.Key]*txOp{}
	checked := map[store.Key]bool{}
	listsOnly := map[store.Key]bool{} // by subject: every operation on it is an Add or Remove of a list
	for _, p := range t.ops {
		if p.Kind == TxAdd || p.Kind == TxRemove || p.Kind == TxSequence {
			if kind, ok := t.written[p.Key]; ok && kind == TxDelete {
				what := map[TxKind]string{TxAdd: "list", TxRemove: "list", TxSequence: "sequence"}[p.Kind]
				return store.Invalid("Transact", p.Key.String(), "deletes the subject of a "+what+" it writes")
			}
			if chk, ok := t.checks[p.Key]; ok {
				t.joined[p.Key] = chk
			}
			p.subjectChecked = checked[p.Key]
			checked[p.Key] = true
			list := p.Kind != TxSequence && !t.c.core.Sets[p.Predicate]
			if only, seen := listsOnly[p.Key]; seen {
				list = list && only
			}
			listsOnly[p.Key] = list
		}
	}
	for _, p := range t.ops {
		_, written := t.written[p.Key] // a TxCheck of it too
		if listsOnly[p.Key] && !written {
			p.headsStand, p.subjectChecked = true, false
		}
	}
	if t.bytes > actions.MaxBytes {
		return &store.TransactionLimitError{Limit: "bytes", Detail: fmt.Sprintf("the entities and patches alone are %d bytes; a transaction holds at most %d", t.bytes, actions.MaxBytes)}
	}
	return nil
}

// Commit reads what the operations need in one parallel round, plans and sends the
// transaction, and plans again when another writer got there first, within
// Config.Conflicts.
func (t *Tx) Commit(ctx context.Context) ([]TxResult, error) {
	giveUp := func(conflict, _ error) error { return conflict }
	return batching.Attempts(ctx, t.c.core.ConflictPacer(), giveUp, t.attempt)
}

// attempt reads, plans and sends the transaction once. When it must be planned
// again, its error is the one the call fails with should the attempts run out.
func (t *Tx) attempt(ctx context.Context) ([]TxResult, batching.Step, error) {
	parts, err := t.read(ctx)
	var early *entity.TransactionError
	var pending *pendingError
	switch {
	case errors.As(err, &pending):
		if _, err := t.c.core.FinishPending(ctx, pending.Key); err != nil {
			return nil, batching.Done, errs.Wrap(err, "transaction")
		}
		fallthrough // and read again, within Config.Conflicts
	case errors.Is(err, errRetryTx):
		return nil, batching.Retry, errs.Wrap(errRetryTx, "transaction")
	case errors.As(err, &early):
		return nil, batching.Done, early
	case err != nil:
		return nil, batching.Done, err
	}
	if moved := t.unremoved(parts); len(moved) > 0 {
		return nil, batching.Retry, &entity.TransactionError{Ops: moved}
	}
	all, owners, err := t.assemble(parts)
	if err != nil {
		return nil, batching.Done, err
	}
	a := t.c.core.Transact(ctx, all.Actions, commit.NewToken())
	switch a.Outcome {
	case commit.Committed:
		return t.results(parts), batching.Done, nil
	case commit.ConditionFailed:
	default:
		return nil, batching.Done, errs.Wrap(a.Err, "transaction")
	}
	refused, retry := t.refusals(ctx, parts, all, owners, a)
	if !retry {
		return nil, batching.Done, &entity.TransactionError{Ops: refused}
	}
	return nil, batching.Retry, &entity.TransactionError{Ops: refused}
}

// txPart is what one operation adds to the transaction, once it has read.
type txPart struct {
	op      *txOp
	t       actions.Transaction
	result  TxResult
	refused func(ctx context.Context, role actions.Role, item map[string]types.AttributeValue) (retry bool, err error)
	// joined is the TxCheck whose condition this list operation's check of its
	// subject holds too: a refusal of that check while the subject exists is its.
	joined *txOp
	// needsSubject asks assemble for the check of the subject, once for all the
	// operations whose heads stand for it (txOp.headsStand).
	needsSubject bool
	// incoming are the entries a TxDelete read pointing at its entity, each in a
	// list or set another operation removes the entity from (Tx.removes).
	incoming []incomingEntry
}

// incomingEntry is an entry pointing at the entity of a TxDelete: its key as
// stored, and what it says.
type incomingEntry struct {
	key   map[string]types.AttributeValue
	entry relationships.Entry
}

// read reads what every operation needs, in parallel, and plans its actions. The
// operations that what they read refuses already (see refuses) fail the call
// together, in a *TransactionError; errRetryTx asks for another attempt.
func (t *Tx) read(ctx context.Context) ([]*txPart, error) {
	parts := make([]*txPart, len(t.ops))
	var (
		mu      sync.Mutex
		refused []entity.OpError
		retry   error
	)
	err := batching.Parallel(ctx, len(t.ops), t.c.core.MaxConcurrency, func(ctx context.Context, i int) error {
		op := t.ops[i]
		part, err := t.plan(ctx, op)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err == nil:
			parts[i] = part
		case refuses(err):
			refused = append(refused, op.refusal(err))
		case errors.Is(err, errRetryTx):
			retry = err
		default:
			return errs.Wrap(err, "transaction operation %d (%s %s)", i, op.Kind, op.Key)
		}
		return nil
	})
	switch {
	case err != nil:
		return nil, err
	case len(refused) > 0:
		slices.SortFunc(refused, func(a, b entity.OpError) int { return cmp.Compare(a.Index, b.Index) })
		return nil, &entity.TransactionError{Ops: refused}
	case retry != nil:
		return nil, retry
	}
	return parts, nil
}

// refuses reports whether err, met while planning an operation, refuses the
// transaction as a failed condition at its commit would: the entity is missing, has
// another version or already exists, a value is taken, the entity has relationship
// entries or indexes this client does not register.
func refuses(err error) bool {
	return errors.Is(err, errs.ErrConflict) || errors.Is(err, errs.ErrNotFound) ||
		errors.Is(err, errs.ErrHasRelationships) || errors.Is(err, errs.ErrUnknownIndex)
}

// refusal reports the operation refused for err.
func (op *txOp) refusal(err error) entity.OpError {
	return entity.OpError{Index: op.index, Op: op.Kind.String(), Key: op.Key, Err: err}
}

// plan reads what op needs and returns its part.
func (t *Tx) plan(ctx context.Context, op *txOp) (*txPart, error) {
	switch op.Kind {
	case TxCreate, TxUpdate, TxSet:
		return t.c.txWrite(ctx, op, op.write)
	case TxPatch:
		return t.c.txPatch(ctx, op)
	case TxDelete:
		return t.c.txDelete(ctx, op, t.removal(op.Key))
	case TxCheck:
		if t.joined[op.Key] == op {
			return &txPart{op: op}, nil // checked by the list operation of its subject
		}
		return t.c.txCheck(op), nil
	case TxSequence:
		return t.c.txSequence(op, t.written, t.joined[op.Key])
	}
	if t.c.core.Sets[op.Predicate] {
		return t.c.txSet(ctx, op, t.written, t.joined[op.Key])
	}
	return t.c.txList(ctx, op, t.written, t.joined[op.Key])
}

// refusals reads every failed condition of a cancelled transaction. It reports
// whether to plan and send the transaction again: when every refusal was another
// writer getting there first, for operations without a version.
func (t *Tx) refusals(ctx context.Context, parts []*txPart, all *actions.Transaction, owners []int, a commit.Attempt) ([]entity.OpError, bool) {
	var errs []entity.OpError
	retry := true
	for i, reason := range a.Reasons {
		if aws.ToString(reason.Code) != "ConditionalCheckFailed" {
			continue
		}
		p := parts[owners[i]]
		if chk := p.joined; chk != nil && all.Roles[i].Kind == actions.RoleEntity && !t.c.subjectGone(reason.Item) {
			// The subject exists: the TxCheck joined to its list's check refused.
			errs, retry = append(errs, chk.refusal(chk.conditionError())), false
			continue
		}
		again, err := p.refused(ctx, all.Roles[i], reason.Item)
		retry = retry && again
		errs = append(errs, p.op.refusal(err))
	}
	return errs, retry && len(errs) > 0
}

// subjectGone reports whether the item a failed check returned is no entity a list
// may be written for: none, one being deleted, or one expired.
func (c *Writer) subjectGone(item map[string]types.AttributeValue) bool {
	return item == nil || c.core.Hidden(item)
}

// results returns what each operation did.
func (t *Tx) results(parts []*txPart) []TxResult {
	out := make([]TxResult, len(parts))
	for i, p := range parts {
		out[i] = p.result
	}
	return out
}
