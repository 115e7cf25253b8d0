package ryno

import (
	"context"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/store"
	"github.com/rynodb/rynodb/tables"
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

type opKind = store.TxKind

const (
	opCreate   = store.TxCreate
	opUpdate   = store.TxUpdate
	opSet      = store.TxSet
	opPatch    = store.TxPatch
	opDelete   = store.TxDelete
	opCheck    = store.TxCheck
	opAdd      = store.TxAdd
	opRemove   = store.TxRemove
	opSequence = store.TxSequence
)

// TxCreate creates e, as Create does, in a transaction.
func TxCreate(e *Entity, opts ...WriteOption) Op { return Op{kind: opCreate, entity: e, opts: opts} }

// TxUpdate updates e, as Update does (conditional on e.Version when it carries one),
// in a transaction. If adds a condition; IfVersion and IfCreated apply as to Update.
func TxUpdate(e *Entity, opts ...WriteOption) Op { return Op{kind: opUpdate, entity: e, opts: opts} }

// TxSet sets e, as Set does, in a transaction.
func TxSet(e *Entity, opts ...WriteOption) Op { return Op{kind: opSet, entity: e, opts: opts} }

// TxPatch patches the entity k, as Patch does, in a transaction: a counter, or a
// balance moved under a condition (If). IfVersion and IfCreated apply as to Patch.
func TxPatch(k Key, p Patch, opts ...WriteOption) Op {
	return Op{kind: opPatch, key: k, patch: p, opts: opts}
}

// TxDelete deletes the entity k with its index entries, in a transaction. The
// entity must hold no relationship entry, and every entry pointing at it must be
// removed by another operation of the transaction: a TxRemoveRelationships of k
// from that entry's list or set, or a TxCreate, TxUpdate or TxSet replacing that
// list (ReplaceLists) by one without k. Using an invitation once is one
// transaction:
//
//	db.Transact(ctx,
//		ryno.TxRemoveRelationships(group, "invitations", []ryno.Key{inv}),
//		ryno.TxAddRelationships(group, "members", []ryno.Key{member}),
//		ryno.TxDelete(inv))
//
// Another entry pointing at it, or one it holds, refuses the transaction with
// ErrHasRelationships before anything is written: a Delete that must sweep
// relationships may be too large for one transaction (use Delete). The entries
// pointing at it are read through the reverse index, which DynamoDB keeps
// eventually consistent, and a TxDelete puts no tombstone: an entry written by
// another list a moment before the commit can outlive the entity, as an orphan
// that Check reports and a Delete of k removes. IfVersion and IfCreated apply as
// to Delete.
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
// see every one of them; Unwrap returns them.
// A refusal the store finds while reading, before sending anything, is reported the
// same way as one DynamoDB finds at the commit. It is package entity's type.
type TransactionError = entity.TransactionError

// OpError is why one operation of a transaction was refused: Index is the
// operation's position in the call. It is package entity's type.
type OpError = entity.OpError

// TransactionLimitError reports a transaction over one of DynamoDB's limits on
// TransactWriteItems: Limit is "actions" (100), "bytes" (4 MB) or "item" (an item
// written twice). Nothing was written. It matches ErrInvalid. It is package tables' type.
type TransactionLimitError = tables.TransactionLimitError

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
//
// It sends one TransactWriteItems (one round) when the operations read nothing (a
// create, a check, a patch of a type without indexes); otherwise their reads
// (GetItem, Query, BatchGetItem) go in one round before it: 2 rounds. A TxDelete
// also reads the entries pointing at its entity, a Query at least, and each attempt
// planned again adds its reads and its commit. See docs/transactions.md.
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
	results, err := tx.Commit(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]OpResult, len(results))
	for i, r := range results {
		out[i].Changed = slices.Clone(r.Changed)
		if r.Item != nil {
			if out[i].Entity, err = decodeEntity(r.Item); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// prepareTx checks ops before any request.
func (c *Client) prepareTx(ops []Op) (*store.Tx, error) {
	tx, err := c.core.NewTx(len(ops))
	if err != nil {
		return nil, err
	}
	for i, op := range ops {
		txop, err := c.txOpOf(op)
		if err != nil {
			return nil, wrap(err, "transaction operation %d (%s)", i, op.kind)
		}
		if err := tx.Add(txop); err != nil {
			return nil, err
		}
	}
	return tx, tx.Seal()
}

// txOpOf checks op and returns it as the store commits it.
func (c *Client) txOpOf(op Op) (store.TxOp, error) {
	o, err := writeOptionsOf("Transact", op.opts)
	if err != nil {
		return store.TxOp{}, err
	}
	t := store.TxOp{Kind: op.kind, Key: op.key, Version: o.version, Created: o.created, Cond: o.cond.store(),
		Predicate: op.predicate, Objects: ownKeys(op.objects), From: op.from}
	switch op.kind {
	case opCreate, opUpdate, opSet:
		t.Put, err = c.putOf(op.entity, [...]putMode{modeCreate, modeUpdate, modeSet}[op.kind], o)
		return t, err
	}
	if err := o.withoutLists(op.kind.String()); err != nil {
		return t, err
	}
	switch op.kind {
	case opPatch:
		if err := op.key.Validate(); err != nil {
			return t, err
		}
		ep, err := encodePatch(op.patch)
		t.Patch = ep
		t.Patched = func(item map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
			return patched(item, ep)
		}
		return t, err
	case opCheck:
		if err := op.key.Validate(); err != nil {
			return t, err
		}
		if op.cond.build == nil {
			return t, invalid("TxCheck", op.key.String(), "needs a condition")
		}
		t.Cond = op.cond.store()
		return t, op.cond.valid()
	case opAdd, opRemove:
		return t, c.validateList(op.key, op.predicate, op.objects)
	case opDelete:
		if err := op.key.Validate(); err != nil {
			return t, err
		}
		return t, c.notOwner(op.key)
	}
	return t, op.key.Validate()
}

// notOwner refuses a TxDelete of k when its type owns anything (Options.Owns). A
// TxDelete puts no tombstone: an Add to an owned list or set committing between its
// read and its commit would leave a child listed under an owner gone, alive for
// good. Delete marks the owner first, and deletes what it owns.
func (c *Client) notOwner(k Key) error {
	if owned := c.core.Owns[k.Type]; len(owned) > 0 {
		return invalid("TxDelete", k.String(), fmt.Sprintf("entities of type %q own their %q (Options.Owns): delete one with Delete, which deletes what it owns", k.Type, owned[0]))
	}
	return nil
}
