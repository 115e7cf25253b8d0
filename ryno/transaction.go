package ryno

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// Op is one operation of a transaction; see Transact and the Tx functions.
type Op struct {
	kind      opKind
	entity    *Entity
	key       Key
	patch     Patch
	opts      []WriteOption
	cond      Condition
	predicate string // of a list; the name of a sequence
	objects   []Key
	from      int64 // the number a draw from a sequence last read
}

type opKind int

const (
	opCreate opKind = iota
	opUpdate
	opSet
	opPatch
	opDelete
	opCheck
	opAdd
	opRemove
	opSequence
)

func (k opKind) String() string {
	return [...]string{"create", "update", "set", "patch", "delete", "check", "add relationships", "remove relationships", "draw from sequence"}[k]
}

// TxCreate creates e, as Create does, in a transaction.
func TxCreate(e *Entity, opts ...WriteOption) Op { return Op{kind: opCreate, entity: e, opts: opts} }

// TxUpdate updates e, as Update does (conditional on e.Version when it carries one),
// in a transaction. If adds a condition.
func TxUpdate(e *Entity, opts ...WriteOption) Op { return Op{kind: opUpdate, entity: e, opts: opts} }

// TxSet sets e, as Set does, in a transaction.
func TxSet(e *Entity, opts ...WriteOption) Op { return Op{kind: opSet, entity: e, opts: opts} }

// TxPatch patches the entity k, as Patch does, in a transaction: a counter, or a
// balance moved under a condition (If).
func TxPatch(k Key, p Patch, opts ...WriteOption) Op {
	return Op{kind: opPatch, key: k, patch: p, opts: opts}
}

// TxDelete deletes the entity k with its index entries, in a transaction. The
// entity must hold no relationship entry and none may point at it: a Delete that
// must sweep relationships is too large for one transaction (use Delete).
func TxDelete(k Key, opts ...WriteOption) Op { return Op{kind: opDelete, key: k, opts: opts} }

// TxCheck requires c of the entity k when the transaction commits, writing nothing.
func TxCheck(k Key, c Condition) Op { return Op{kind: opCheck, key: k, cond: c} }

// TxAddRelationships adds objects to a list, as AddRelationships does, in a
// transaction.
func TxAddRelationships(subject Key, predicate string, objects []Key) Op {
	return Op{kind: opAdd, key: subject, predicate: predicate, objects: objects}
}

// TxRemoveRelationships removes objects from a list, as RemoveRelationships does,
// in a transaction.
func TxRemoveRelationships(subject Key, predicate string, objects []Key) Op {
	return Op{kind: opRemove, key: subject, predicate: predicate, objects: objects}
}

// OpResult is what one operation of a committed transaction did.
type OpResult struct {
	// Entity is the entity as stored, for Create, Update, Set, and Patch of an
	// indexed type. A transaction returns no values, so the Patch of a type without
	// indexes, which sends its changes without reading the entity, leaves it nil.
	Entity *Entity
	// Changed are the objects added or removed, for AddRelationships and
	// RemoveRelationships.
	Changed []Key
}

// TransactionError reports a transaction refused because conditions of some of its
// operations did not hold; nothing was written. Ops says which and why: a
// *ConflictError (another version), ErrExists, ErrNotFound, a *ConditionError, a
// *UniqueError, ErrHasRelationships, an *UnknownIndexError. errors.Is and errors.As
// see every one of them.
// A refusal the store finds while reading, before sending anything, is reported the
// same way as one DynamoDB finds at the commit.
type TransactionError struct {
	Ops []OpError
}

// OpError is why one operation of a transaction was refused.
type OpError struct {
	Index int // the operation's position in the call
	Op    string
	Key   Key
	Err   error
}

func (e *TransactionError) Error() string {
	parts := make([]string, len(e.Ops))
	for i, o := range e.Ops {
		parts[i] = fmt.Sprintf("operation %d (%s %s): %s", o.Index, o.Op, o.Key, errs.Message(o.Err))
	}
	return "ryno: transaction refused: " + strings.Join(parts, "; ")
}

// Unwrap returns the errors of the refused operations.
func (e *TransactionError) Unwrap() []error {
	errs := make([]error, len(e.Ops))
	for i, o := range e.Ops {
		errs[i] = o.Err
	}
	return errs
}

// TransactionLimitError reports a transaction over one of DynamoDB's limits on
// TransactWriteItems: Limit is "actions" (100), "bytes" (4 MB) or "item" (an item
// written twice). Nothing was written. It matches ErrInvalid.
type TransactionLimitError struct {
	Limit  string
	Detail string
}

func (e *TransactionLimitError) Error() string {
	return fmt.Sprintf("ryno: transaction over DynamoDB's limit on %s: %s", e.Limit, e.Detail)
}

func (e *TransactionLimitError) Is(target error) bool { return target == ErrInvalid }

// Transact commits ops in one TransactWriteItems: all of them or none. It reads what
// the operations need (versions, index entries, list heads and markers) in one
// parallel round, then sends the transaction, whose conditions make every read
// hold. Operations that write without a version (a Set, a Patch) are planned again
// when another writer got there first, within Options.Conflicts; a version, a
// condition (If, TxCheck), an existing entity for TxCreate, a taken unique value or a
// missing entity refuse the transaction with a *TransactionError.
//
// An entity appears in at most one operation, and a list (subject and predicate) in
// at most one; a list operation may share its subject with an entity write. Over
// DynamoDB's limits (100 actions, 4 MB) the call fails with a
// *TransactionLimitError before writing anything. A transaction sent again after a
// lost response carries the same client request token, so DynamoDB applies it at
// most once.
func (c *Client) Transact(ctx context.Context, ops ...Op) (_ []OpResult, err error) {
	ctx, call, err := c.begin(ctx, "Transact")
	defer call.end(&err)
	if err != nil {
		return nil, err
	}
	tx, err := c.prepareTx(ops)
	if err != nil {
		return nil, err
	}
	pace := c.core.ConflictPacer()
	for {
		parts, err := tx.read(ctx)
		var early *TransactionError
		switch {
		case errors.Is(err, errRetryTx):
			if err := pace.Wait(ctx); err != nil {
				return nil, wrap(errRetryTx, "transaction")
			}
			continue
		case errors.As(err, &early):
			return nil, early
		case err != nil:
			return nil, err
		}
		t, owners, err := tx.assemble(parts)
		if err != nil {
			return nil, err
		}
		a := c.core.Transact(ctx, t.Actions, commit.NewToken())
		switch a.Outcome {
		case commit.Committed:
			return tx.results(parts), nil
		case commit.ConditionFailed:
		default:
			return nil, wrap(a.Err, "transaction")
		}
		refused, retry := tx.refusals(ctx, parts, t, owners, a)
		if !retry {
			return nil, &TransactionError{Ops: refused}
		}
		if err := pace.Wait(ctx); err != nil {
			return nil, &TransactionError{Ops: refused}
		}
	}
}

// txOp is one operation, checked, with what it needs between attempts.
type txOp struct {
	Op
	index int
	write *write       // Create, Update, Set
	ep    encodedPatch // Patch
	o     writeOptions
}

// tx is a transaction in progress.
type tx struct {
	c   *Client
	ops []*txOp
	// written are the entities written by an operation: a list operation of the
	// same subject checks it through that write.
	written map[Key]opKind
	// joined are the TxChecks of the subjects of list operations: each list's check
	// of its subject requires the TxCheck's condition too, one action for both.
	joined map[Key]*txOp
}

// prepareTx checks ops before any request.
func (c *Client) prepareTx(ops []Op) (*tx, error) {
	switch {
	case len(ops) == 0:
		return nil, invalid("Transact", "", "needs an operation")
	case len(ops) > actions.MaxItems:
		return nil, &TransactionLimitError{Limit: "actions", Detail: fmt.Sprintf("%d operations; a transaction holds at most %d actions", len(ops), actions.MaxItems)}
	}
	t := &tx{c: c, written: map[Key]opKind{}}
	lists := map[string]bool{}
	checks := map[Key]*txOp{}
	bytes := 0
	for i, op := range ops {
		p := &txOp{Op: op, index: i}
		if err := p.check(c); err != nil {
			return nil, wrap(err, "transaction operation %d (%s)", i, op.kind)
		}
		switch k := p.subject(); op.kind {
		case opAdd, opRemove, opSequence:
			id := fmt.Sprint(op.kind == opSequence, "\x00", k.String(), "\x00", op.predicate)
			if lists[id] {
				return nil, &TransactionLimitError{Limit: "item", Detail: fmt.Sprintf("the list or sequence %s %s is in two operations", k, op.predicate)}
			}
			lists[id] = true
		default:
			if _, dup := t.written[k]; dup {
				return nil, &TransactionLimitError{Limit: "item", Detail: fmt.Sprintf("%s is in two operations", k)}
			}
			t.written[k] = op.kind
			if op.kind == opCheck {
				checks[k] = p
			}
		}
		switch {
		case p.write != nil:
			bytes += schema.ItemSize(p.write.base)
		case op.kind == opPatch:
			bytes += schema.ItemSize(op.key.item()) + p.ep.size()
		}
		t.ops = append(t.ops, p)
	}
	t.joined = map[Key]*txOp{}
	for _, p := range t.ops {
		if p.kind == opAdd || p.kind == opRemove || p.kind == opSequence {
			if chk, ok := checks[p.key]; ok {
				t.joined[p.key] = chk
			}
		}
	}
	if bytes > actions.MaxBytes {
		return nil, &TransactionLimitError{Limit: "bytes", Detail: fmt.Sprintf("the entities and patches alone are %d bytes; a transaction holds at most %d", bytes, actions.MaxBytes)}
	}
	return t, nil
}

// subject is the entity the operation is about.
func (op *txOp) subject() Key {
	if op.entity != nil {
		return op.entity.Key
	}
	return op.key
}

// check validates the operation and prepares its write.
func (op *txOp) check(c *Client) error {
	var err error
	if op.o, err = writeOptionsOf("Transact", op.opts); err != nil {
		return err
	}
	switch op.kind {
	case opCreate, opUpdate, opSet:
		op.write, err = c.newWrite(op.entity, [...]putMode{modeCreate, modeUpdate, modeSet}[op.kind], op.o)
		return err
	}
	if err := op.o.withoutLists(op.kind.String()); err != nil {
		return err
	}
	switch op.kind {
	case opPatch:
		if err := op.key.Validate(); err != nil {
			return err
		}
		op.ep, err = encodePatch(op.patch)
		return err
	case opCheck:
		if err := op.key.Validate(); err != nil {
			return err
		}
		if op.cond.build == nil {
			return invalid("TxCheck", op.key.String(), "needs a condition")
		}
		return op.cond.err
	case opAdd, opRemove:
		return c.validateList(op.key, op.predicate, op.objects)
	}
	return op.key.Validate()
}

// txPart is what one operation adds to the transaction, once it has read.
type txPart struct {
	op      *txOp
	t       actions.Transaction
	result  OpResult
	refused func(ctx context.Context, role actions.Role, item map[string]types.AttributeValue) (retry bool, err error)
	// joined is the TxCheck whose condition this list operation's check of its
	// subject holds too: a refusal of that check while the subject exists is its.
	joined *txOp
}

// read reads what every operation needs, in parallel, and plans its actions. The
// operations that what they read refuses already (see refuses) fail the call
// together, in a *TransactionError; errRetryTx asks for another attempt.
func (t *tx) read(ctx context.Context) ([]*txPart, error) {
	parts := make([]*txPart, len(t.ops))
	var (
		mu      sync.Mutex
		refused []OpError
		retry   error
	)
	err := batching.Parallel(ctx, len(t.ops), t.c.opts.MaxConcurrency, func(ctx context.Context, i int) error {
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
			return wrap(err, "transaction operation %d (%s %s)", i, op.kind, op.subject())
		}
		return nil
	})
	switch {
	case err != nil:
		return nil, err
	case len(refused) > 0:
		slices.SortFunc(refused, func(a, b OpError) int { return cmp.Compare(a.Index, b.Index) })
		return nil, &TransactionError{Ops: refused}
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
	return errors.Is(err, ErrConflict) || errors.Is(err, ErrNotFound) ||
		errors.Is(err, ErrHasRelationships) || errors.Is(err, ErrUnknownIndex)
}

// refusal reports the operation refused for err.
func (op *txOp) refusal(err error) OpError {
	return OpError{Index: op.index, Op: op.kind.String(), Key: op.subject(), Err: err}
}

// plan reads what op needs and returns its part.
func (t *tx) plan(ctx context.Context, op *txOp) (*txPart, error) {
	switch op.kind {
	case opCreate, opUpdate, opSet:
		return t.c.txWrite(ctx, op, op.write)
	case opPatch:
		return t.c.txPatch(ctx, op)
	case opDelete:
		return t.c.txDelete(ctx, op)
	case opCheck:
		if t.joined[op.key] == op {
			return &txPart{op: op}, nil // checked by the list operation of its subject
		}
		return t.c.txCheck(op), nil
	case opSequence:
		return t.c.txSequence(op, t.written, t.joined[op.key])
	}
	if t.c.sets[op.predicate] {
		return t.c.txSet(ctx, op, t.written, t.joined[op.key])
	}
	return t.c.txList(ctx, op, t.written, t.joined[op.key])
}

// assemble joins the parts into one transaction and checks DynamoDB's limits. owners
// says which part each action belongs to. An operation claiming a value of a unique
// index that an earlier one claims is refused, as a second writer would be.
func (t *tx) assemble(parts []*txPart) (*actions.Transaction, []int, error) {
	all := &actions.Transaction{}
	var owners []int
	var refused []OpError
	seen := map[string]int{} // item -> action
	for i, p := range parts {
		for j, act := range p.t.Actions {
			id := actionItem(act)
			role := p.t.Roles[j]
			k, dup := seen[id]
			switch {
			case !dup:
				seen[id] = len(all.Actions)
				all.Add(act, role, 0)
				owners = append(owners, i)
				continue
			case claiming(all.Roles[k]) && claiming(role):
				if len(refused) == 0 || refused[len(refused)-1].Index != p.op.index {
					refused = append(refused, p.op.refusal(uniqueTaken(role.Claim, all.Roles[k].Claim.Item())))
				}
				continue
			}
			merged, ok := handOver(all.Roles[k], role, all.Actions[k], act)
			if !ok {
				return nil, nil, &TransactionLimitError{Limit: "item", Detail: fmt.Sprintf("operation %d writes an item another operation writes", p.op.index)}
			}
			all.Actions[k], all.Roles[k], owners[k] = merged, role, i
		}
		all.Bytes += p.t.Bytes
	}
	switch {
	case len(refused) > 0:
		return nil, nil, &TransactionError{Ops: refused}
	case len(all.Actions) > actions.MaxItems:
		return nil, nil, &TransactionLimitError{Limit: "actions", Detail: fmt.Sprintf("the operations take %d actions (entities, index entries, claims, list entries, markers and heads); at most %d", len(all.Actions), actions.MaxItems)}
	case all.Bytes > actions.MaxBytes:
		return nil, nil, &TransactionLimitError{Limit: "bytes", Detail: fmt.Sprintf("the operations write %d bytes; at most %d", all.Bytes, actions.MaxBytes)}
	}
	return all, owners, nil
}

// claiming reports whether the action of role claims a value of a unique index.
func claiming(role actions.Role) bool { return role.Kind == actions.RoleClaim && !role.Release }

// handOver merges the release of a unique value by one operation (one of the
// roles a and b, whose actions are actA and actB) and its claim by another into one
// action: the claim as built, on the condition that the value is free or held by
// either entity.
func handOver(a, b actions.Role, actA, actB types.TransactWriteItem) (types.TransactWriteItem, bool) {
	if a.Kind != actions.RoleClaim || b.Kind != actions.RoleClaim || a.Release == b.Release {
		return types.TransactWriteItem{}, false
	}
	release, claim, put := a.Claim, b.Claim, actB.Put
	if b.Release {
		release, claim, put = b.Claim, a.Claim, actA.Put
	}
	cond := actions.OwnedByOrFree(claim.Type, claim.ID).Or(
		expression.Name(schema.AttrType).Equal(expression.Value(str(release.Type))).
			And(expression.Name(schema.AttrID).Equal(expression.Value(str(release.ID)))))
	bc := commit.Build(cond, nil)
	merged := *put
	merged.ConditionExpression, merged.ExpressionAttributeNames, merged.ExpressionAttributeValues = bc.Condition, bc.Names, bc.Values
	return types.TransactWriteItem{Put: &merged}, true
}

// actionItem identifies the item an action writes or checks.
func actionItem(act types.TransactWriteItem) string {
	switch {
	case act.Put != nil:
		return batching.ItemID(aws.ToString(act.Put.TableName), keyOf(aws.ToString(act.Put.TableName), act.Put.Item))
	case act.Update != nil:
		return batching.ItemID(aws.ToString(act.Update.TableName), act.Update.Key)
	case act.Delete != nil:
		return batching.ItemID(aws.ToString(act.Delete.TableName), act.Delete.Key)
	}
	return batching.ItemID(aws.ToString(act.ConditionCheck.TableName), act.ConditionCheck.Key)
}

// keyOf returns the key of an item of one of the store's tables.
func keyOf(table string, item map[string]types.AttributeValue) map[string]types.AttributeValue {
	for _, names := range [][]string{
		{schema.AttrID, schema.AttrScopeTypeKey},
		schema.RelationshipKeyAttrs(),
		schema.IndexEntryKeyAttrs(),
	} {
		if _, ok := item[names[1]]; ok {
			return batching.Project(item, names)
		}
	}
	return item
}

// refusals reads every failed condition of a cancelled transaction. It reports
// whether to plan and send the transaction again: when every refusal was another
// writer getting there first, for operations without a version.
func (t *tx) refusals(ctx context.Context, parts []*txPart, all *actions.Transaction, owners []int, a commit.Attempt) ([]OpError, bool) {
	var errs []OpError
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
func (c *Client) subjectGone(item map[string]types.AttributeValue) bool {
	return item == nil || c.core.Hidden(item)
}

// results returns what each operation did.
func (t *tx) results(parts []*txPart) []OpResult {
	out := make([]OpResult, len(parts))
	for i, p := range parts {
		out[i] = p.result
	}
	return out
}

// txCheck is a condition check on an entity.
func (c *Client) txCheck(op *txOp) *txPart {
	b := commit.Build(op.cond.build(c.opts.Now()), nil)
	p := &txPart{op: op}
	p.t.Add(types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName: aws.String(c.core.Names.Entities), Key: op.key.item(),
		ConditionExpression: b.Condition, ExpressionAttributeNames: b.Names, ExpressionAttributeValues: b.Values,
	}}, actions.Role{Kind: actions.RoleEntity}, schema.ItemSize(op.key.item()))
	p.refused = func(context.Context, actions.Role, map[string]types.AttributeValue) (bool, error) {
		return false, op.conditionError()
	}
	return p
}

// conditionError is the refusal of a TxCheck.
func (op *txOp) conditionError() error {
	return &ConditionError{Key: op.key, Condition: op.cond.String()}
}

// txList plans an Add or Remove of a list. The subject's existence is checked, with
// the condition of joined (the TxCheck of the subject) when not nil, or written by
// another operation of the transaction.
func (c *Client) txList(ctx context.Context, op *txOp, written map[Key]opKind, joined *txOp) (*txPart, error) {
	lop := store.ListOp{Kind: [...]store.ListKind{opAdd: store.ListAdd, opRemove: store.ListRemove}[op.kind], Subject: relationships.Key(op.key),
		Predicate: op.predicate, Objects: relKeys(op.objects), CheckObjects: c.opts.CheckObjects}
	s, err := c.core.ReadListReady(ctx, lop)
	if err != nil {
		return nil, err
	}
	p, err := c.subjectPart(op, written, joined, "list")
	if err != nil {
		return nil, err
	}
	ch := lop.Plan(s)
	actions.AddChange(&p.t, c.core.ListTables(), ch, lop.CheckObjects, c.opts.Now())
	p.result.Changed = fromRelKeys(append(ch.Added, ch.Removed...))
	p.refused = subjectRefusal(op, store.ListConflict(lop, errors.New("another writer changed it")))
	return p, nil
}
