package actions

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/indexentries"
)

// DynamoDB's limits on one TransactWriteItems: 100 actions and 4 MB.
const (
	MaxItems = 100
	MaxBytes = 4 << 20
)

// RoleKind says what kind of item an action of a transaction writes or checks.
type RoleKind int

// The kinds of Role.
const (
	RoleEntity   RoleKind = iota // the entity put of a Set, or the subject's check
	RoleHead                     // a list's head
	RoleMarker                   // a marker
	RoleEntry                    // an entry put or delete
	RoleObject                   // an object's existence check
	RoleIndex                    // an index entry
	RoleClaim                    // a claim of a unique index value
	RoleSequence                 // a draw from a sequence
)

// Role says what one action of a transaction is, to read a cancellation.
type Role struct {
	Kind    RoleKind
	Object  entity.Key // RoleObject, RoleMarker: which
	List    string
	Claim   indexentries.Claim // RoleClaim: which
	Release bool               // RoleClaim: a release rather than a claim
}

// Transaction accumulates the actions of one TransactWriteItems, with the role of
// each and their size.
type Transaction struct {
	Actions []types.TransactWriteItem
	Roles   []Role
	Bytes   int
	checked map[entity.Key]bool // entities already checked or written
}

// Add appends act, whose role is role and whose size is bytes.
func (t *Transaction) Add(act types.TransactWriteItem, role Role, bytes int) {
	t.Actions = append(t.Actions, act)
	t.Roles = append(t.Roles, role)
	t.Bytes += bytes
}

// Fits reports whether the transaction is within DynamoDB's limits.
func (t *Transaction) Fits() bool {
	return len(t.Actions) <= MaxItems && t.Bytes <= MaxBytes
}

// Clone returns a copy of t that can grow apart from it.
func (t *Transaction) Clone() *Transaction {
	return &Transaction{
		Actions: append([]types.TransactWriteItem(nil), t.Actions...),
		Roles:   append([]Role(nil), t.Roles...),
		Bytes:   t.Bytes,
	}
}

// MarkChecked records that the transaction already checks or writes the entity k
// (its put does), so that CheckEntity adds no check of it.
func (t *Transaction) MarkChecked(k entity.Key) {
	if t.checked == nil {
		t.checked = map[entity.Key]bool{}
	}
	t.checked[k] = true
}

// RoleOf returns the role of the action a cancellation names, and whether there is
// one.
func (t *Transaction) RoleOf(action int) (Role, bool) {
	if action < 0 || action >= len(t.Roles) {
		return Role{}, false
	}
	return t.Roles[action], true
}

// FitsOps reports whether ops fit in one transaction beside reserved actions of
// reservedBytes in all.
func FitsOps(reserved, reservedBytes int, ops []batching.WriteOp) bool {
	if reserved+len(ops) > MaxItems {
		return false
	}
	bytes := reservedBytes
	for _, op := range ops {
		bytes += op.Size()
	}
	return bytes <= MaxBytes
}

// Items returns ops as transaction actions. No two may name one item.
func Items(ops []batching.WriteOp) []types.TransactWriteItem {
	acts := make([]types.TransactWriteItem, len(ops))
	for i, op := range ops {
		if op.Item != nil {
			acts[i] = types.TransactWriteItem{Put: &types.Put{TableName: aws.String(op.Table), Item: op.Item}}
		} else {
			acts[i] = types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(op.Table), Key: op.Key}}
		}
	}
	return acts
}
