package writes

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
	"github.com/rynodb/rynodb/internal/storetest"
)

func TestHandOverMergesAReleaseAndAClaimOfOneValue(t *testing.T) {
	names, err := schema.NewNames("t")
	require.NoError(t, err)
	release := actions.Role{Kind: actions.RoleClaim, Claim: indexentries.ClaimOf(emailEntry("a", "x")), Release: true}
	claim := actions.Role{Kind: actions.RoleClaim, Claim: indexentries.ClaimOf(emailEntry("b", "x"))}
	releaseAct, claimAct := actions.Release(names.IndexEntries, release.Claim), actions.Claim(names.IndexEntries, claim.Claim, 1234)
	for _, pair := range []struct {
		a, b       actions.Role
		actA, actB types.TransactWriteItem
	}{{release, claim, releaseAct, claimAct}, {claim, release, claimAct, releaseAct}} {
		act, ok := handOver(pair.a, pair.b, pair.actA, pair.actB)
		require.True(t, ok)
		require.NotNil(t, act.Put, "the claim wins")
		require.Equal(t, store.AttrS("b"), act.Put.Item[schema.AttrID])
		require.Equal(t, store.AttrN(1234), act.Put.Item[schema.AttrExpires], "with its holder's expiry")
		values := act.Put.ExpressionAttributeValues
		require.Contains(t, values, findValue(t, values, "a"), "either owner may hold it")
		require.Contains(t, values, findValue(t, values, "b"))
	}
	_, ok := handOver(claim, claim, claimAct, claimAct)
	require.False(t, ok, "two claims of one value cannot both commit")
	_, ok = handOver(actions.Role{Kind: actions.RoleEntry}, claim, types.TransactWriteItem{}, claimAct)
	require.False(t, ok)
}

func findValue(t *testing.T, values map[string]types.AttributeValue, s string) string {
	t.Helper()
	for k, v := range values {
		if sv, ok := v.(*types.AttributeValueMemberS); ok && sv.Value == s {
			return k
		}
	}
	t.Fatalf("no value %q in %v", s, values)
	return ""
}

// noIndexes is a registry with no index: entity writes emit nothing.
type noIndexes struct{}

func (noIndexes) Emit(map[string]types.AttributeValue, time.Time, time.Time) ([]indexentries.Entry, error) {
	return nil, nil
}

func (noIndexes) InlineSplit(_ string, entries []indexentries.Entry) (map[string]types.AttributeValue, []indexentries.Entry, error) {
	return nil, entries, nil
}

func (noIndexes) ClaimChanges(_, _ []indexentries.Entry) (claims, releases []indexentries.Claim) {
	return nil, nil
}

func (noIndexes) ClaimsOf([]indexentries.Entry) []indexentries.Claim     { return nil }
func (noIndexes) UniqueClaims([]indexentries.Entry) []indexentries.Claim { return nil }
func (noIndexes) Set(string) string                                      { return "" }
func (noIndexes) Unique(string, string) bool                             { return false }
func (noIndexes) Has(string) bool                                        { return false }
func (noIndexes) HasEntries(string) bool                                 { return false }

func TestTxRefusesWhatNoTransactionCanHoldBeforeAnyRequest(t *testing.T) {
	c := testWriter(t, nil, 4, 3) // no API: a request would panic
	c.core.Indexes = noIndexes{}
	entity := func(id string, bytes int) TxOp {
		k := store.Key{Scope: "s", Type: "t", ID: id}
		base := actions.EntityKey(k)
		base["blob"] = store.AttrS(strings.Repeat("x", bytes))
		return TxOp{Kind: TxCreate, Put: Put{Mode: PutCreate, Key: k, Base: base}}
	}
	list := func(kind TxKind, predicate string) TxOp {
		return TxOp{Kind: kind, Key: stateKey, Predicate: predicate, Objects: []store.Key{{Scope: "s", Type: "t", ID: "o"}}}
	}
	check := TxOp{Kind: TxCheck, Key: stateKey, Cond: storetest.Exists{}}
	big := func(n int) []TxOp {
		ops := make([]TxOp, n)
		for i := range ops {
			ops[i] = entity(strconv.Itoa(i), 390_000)
		}
		return ops
	}
	tests := []struct {
		name  string
		ops   []TxOp
		limit string // "" when the transaction may be sent
	}{
		{"an entity twice", []TxOp{entity("a", 1), entity("a", 1)}, "item"},
		{"an entity and a check of it", []TxOp{{Kind: TxCheck, Key: store.Key{Scope: "s", Type: "t", ID: "a"}, Cond: check.Cond}, entity("a", 1)}, "item"},
		{"a list twice", []TxOp{list(TxAdd, "p"), list(TxRemove, "p")}, "item"},
		{"a list and a sequence of one name", []TxOp{list(TxAdd, "p"), {Kind: TxSequence, Key: stateKey, Predicate: "p"}}, ""},
		{"a list and a write of its subject", []TxOp{list(TxAdd, "p"), {Kind: TxPatch, Key: stateKey}}, ""},
		{"10 entities of 390 KB", big(10), ""},
		{"11 entities of 390 KB", big(11), "bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tx, err := c.NewTx(len(tt.ops))
			require.NoError(t, err)
			for _, op := range tt.ops {
				if err = tx.Add(op); err != nil {
					break
				}
			}
			if err == nil {
				err = tx.Seal()
			}
			if tt.limit == "" {
				require.NoError(t, err)
				return
			}
			var limit *store.TransactionLimitError
			require.ErrorAs(t, err, &limit)
			require.Equal(t, tt.limit, limit.Limit)
			require.ErrorIs(t, err, schema.ErrInvalid)
		})
	}

	_, err := c.NewTx(0)
	require.ErrorIs(t, err, schema.ErrInvalid, "no operation")
	_, err = c.NewTx(actions.MaxItems + 1)
	var limit *store.TransactionLimitError
	require.ErrorAs(t, err, &limit)
	require.Equal(t, "actions", limit.Limit)
}

func TestTxJoinsTheCheckOfAListSubjectToTheListsCheck(t *testing.T) {
	c := testWriter(t, nil, 4, 3)
	tx, err := c.NewTx(3)
	require.NoError(t, err)
	chk := TxOp{Kind: TxCheck, Key: stateKey, Cond: storetest.Exists{}}
	other := TxOp{Kind: TxCheck, Key: store.Key{Scope: "s", Type: "t", ID: "other"}, Cond: chk.Cond}
	for _, op := range []TxOp{chk, other, {Kind: TxAdd, Key: stateKey, Predicate: "p"}} {
		require.NoError(t, tx.Add(op))
	}
	require.NoError(t, tx.Seal())
	require.Len(t, tx.joined, 1, "only the check of a list's subject joins")
	require.Same(t, tx.ops[0], tx.joined[stateKey])
}

func TestTxChecksASubjectOnceForAllItsListsAndSequences(t *testing.T) {
	c := testWriter(t, nil, 4, 3)
	other := store.Key{Scope: "s", Type: "t", ID: "other"}
	ops := []TxOp{
		{Kind: TxAdd, Key: stateKey, Predicate: "p"},
		{Kind: TxSequence, Key: stateKey, Predicate: "n"},
		{Kind: TxAdd, Key: other, Predicate: "p"},
		{Kind: TxRemove, Key: stateKey, Predicate: "q"},
	}
	tx := sealedTx(t, c, ops)
	var checked []bool
	for _, op := range tx.ops {
		checked = append(checked, op.subjectChecked)
	}
	require.Equal(t, []bool{false, true, false, true}, checked, "the first operation on each subject checks it, for all")

	p, err := c.subjectPart(tx.ops[1], map[store.Key]TxKind{}, nil, "sequence")
	require.NoError(t, err)
	require.Empty(t, p.t.Actions, "no second check of the subject")
	p, err = c.subjectPart(tx.ops[0], map[store.Key]TxKind{}, nil, "list")
	require.NoError(t, err)
	require.Len(t, p.t.Actions, 1)
	require.NotNil(t, p.t.Actions[0].ConditionCheck)
}

func TestTxLetsTheHeadsOfASubjectWithOnlyListOperationsStandForIt(t *testing.T) {
	c := testWriter(t, nil, 4, 3)
	c.core.Sets = map[string]bool{"likes": true}
	key := func(id string) store.Key { return store.Key{Scope: "s", Type: "t", ID: id} }
	ops := []TxOp{
		{Kind: TxAdd, Key: key("lists"), Predicate: "p"},
		{Kind: TxRemove, Key: key("lists"), Predicate: "q"},
		{Kind: TxAdd, Key: key("drawn"), Predicate: "p"},
		{Kind: TxSequence, Key: key("drawn"), Predicate: "n"},
		{Kind: TxAdd, Key: key("set"), Predicate: "likes"},
		{Kind: TxAdd, Key: key("checked"), Predicate: "p"},
		{Kind: TxCheck, Key: key("checked")},
	}
	tx := sealedTx(t, c, ops)
	var stand []string
	for _, op := range tx.ops {
		if op.headsStand {
			stand = append(stand, fmt.Sprint(op.Key.ID, " ", op.Predicate))
			require.False(t, op.subjectChecked, "%v: checked by assemble when needed, not by another operation", op.Key)
		}
	}
	require.Equal(t, []string{"lists p", "lists q"}, stand,
		"only a subject whose operations are all Adds and Removes of lists, with no sequence, set, TxCheck or write of it")

	p, err := c.subjectPart(tx.ops[0], map[store.Key]TxKind{}, nil, "list")
	require.NoError(t, err)
	require.Empty(t, p.t.Actions, "the part holds no check of the subject")

	// assemble checks the subject once, for the parts that need it.
	parts := []*txPart{{op: tx.ops[0], needsSubject: true}, {op: tx.ops[1], needsSubject: true}, {op: tx.ops[2]}}
	all, owners, err := tx.assemble(parts)
	require.NoError(t, err)
	require.Len(t, all.Actions, 1)
	require.NotNil(t, all.Actions[0].ConditionCheck)
	require.Equal(t, actions.RoleEntity, all.Roles[0].Kind)
	require.Equal(t, []int{0}, owners, "the check's refusal is the first part's")
	parts[0].needsSubject = false
	all, _, err = tx.assemble(parts)
	require.NoError(t, err)
	require.Len(t, all.Actions, 1, "either part may ask")
	parts[1].needsSubject = false
	all, _, err = tx.assemble(parts)
	require.NoError(t, err)
	require.Empty(t, all.Actions, "no part needs it: the heads stand for the subject")

	deleting, err := c.NewTx(2)
	require.NoError(t, err)
	require.NoError(t, deleting.Add(TxOp{Kind: TxAdd, Key: key("deleted"), Predicate: "p"}))
	require.NoError(t, deleting.Add(TxOp{Kind: TxDelete, Key: key("deleted")}))
	require.ErrorContains(t, deleting.Seal(), "deletes the subject of a list it writes", "refused before any read")
}

// sealedTx returns the transaction of ops, sealed.
func sealedTx(t *testing.T, c *Writer, ops []TxOp) *Tx {
	t.Helper()
	tx, err := c.NewTx(len(ops))
	require.NoError(t, err)
	for _, op := range ops {
		require.NoError(t, tx.Add(op))
	}
	require.NoError(t, tx.Seal())
	return tx
}

func TestTxRemovesAnEntryPointingAtADeletedEntityOnlyByRemovingItsObjectFromItsList(t *testing.T) {
	c := testWriter(t, nil, 4, 3)
	c.core.Indexes = noIndexes{}
	key := func(id string) store.Key { return store.Key{Scope: "s", Type: "t", ID: id} }
	inv, kept := key("inv"), key("kept")
	replaced := TxOp{Kind: TxUpdate, Put: Put{Mode: PutUpdate, Key: key("h"), Base: actions.EntityKey(key("h")),
		Lists: map[string][]store.Key{"p": {kept}}}}
	tx := sealedTx(t, c, []TxOp{
		{Kind: TxRemove, Key: key("g"), Predicate: "invites", Objects: []store.Key{kept, inv}},
		{Kind: TxAdd, Key: key("added"), Predicate: "invites", Objects: []store.Key{inv}},
		replaced,
		{Kind: TxDelete, Key: inv},
	})
	tests := []struct {
		subject, predicate string
		object             store.Key
		removes            bool
	}{
		{"g", "invites", inv, true},
		{"g", "other", inv, false},        // another list of the subject
		{"other", "invites", inv, false},  // another subject's list
		{"added", "invites", inv, false},  // an Add removes nothing
		{"h", "p", inv, true},             // replaced by a list without it
		{"h", "p", kept, false},           // replaced by a list with it
		{"h", "q", inv, false},            // a list the write leaves alone
		{"g", "invites", key("x"), false}, // an object the Remove does not name
	}
	for _, tt := range tests {
		require.Equal(t, tt.removes, tx.removes(key(tt.subject), tt.predicate, tt.object), "%s %s -> %s", tt.subject, tt.predicate, tt.object.ID)
	}
	require.NotNil(t, tx.removal(inv))
	alone := sealedTx(t, c, []TxOp{{Kind: TxAdd, Key: key("g"), Predicate: "p", Objects: []store.Key{inv}}, {Kind: TxDelete, Key: inv}})
	require.Nil(t, alone.removal(inv), "no operation removes it: the first entry pointing at it refuses the delete")

	// An entry read is removed only when an action of the transaction is on it.
	entry := func(index int) incomingEntry {
		e := relationships.Entry{Subject: key("g"), Predicate: "invites", Index: index, Object: inv}
		return incomingEntry{key: e.PrimaryKey(), entry: e}
	}
	remove := &txPart{op: tx.ops[0]}
	remove.t.Add(actions.Items([]batching.WriteOp{batching.DeleteOp(c.core.Names.Relationships, entry(1).key)})[0], actions.Role{Kind: actions.RoleEntry}, 0)
	del := &txPart{op: tx.ops[3], incoming: []incomingEntry{entry(1)}}
	require.Empty(t, tx.unremoved([]*txPart{remove, del}))
	del.incoming = append(del.incoming, entry(2))
	refused := tx.unremoved([]*txPart{remove, del})
	require.Len(t, refused, 1)
	require.Equal(t, 3, refused[0].Index)
	require.ErrorIs(t, refused[0].Err, errs.ErrHasRelationships)
}
