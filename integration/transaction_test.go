package integration_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

func account(id string) ryno.Key { return ryno.Key{Scope: "bank", Type: "account", ID: id} }

func balanceOf(t *testing.T, db *ryno.Client, k ryno.Key) int64 {
	t.Helper()
	e, err := db.Get(ctx, k, ryno.Consistent())
	require.NoError(t, err)
	n, err := e.Attributes["balance"].(json.Number).Int64()
	require.NoError(t, err)
	return n
}

// openAccounts creates n accounts holding start each.
func openAccounts(t *testing.T, db *ryno.Client, n int, start int64) []ryno.Key {
	t.Helper()
	keys := make([]ryno.Key, n)
	for i := range keys {
		keys[i] = account(fmt.Sprint("a", i))
		_, err := db.Create(ctx, &ryno.Entity{Key: keys[i], Attributes: map[string]any{"balance": start}})
		require.NoError(t, err)
	}
	return keys
}

// twoAccounts picks two distinct accounts of keys.
func twoAccounts(r *rand.Rand, keys []ryno.Key) (from, to ryno.Key) {
	from, to = keys[r.IntN(len(keys))], keys[r.IntN(len(keys))]
	for to == from {
		to = keys[r.IntN(len(keys))]
	}
	return from, to
}

// transfer moves amount from one account to another in one transaction, on the
// condition that the source holds at least amount.
func transfer(db *ryno.Client, from, to ryno.Key, amount int64) error {
	_, err := db.Transact(ctx,
		ryno.TxPatch(from, ryno.Patch{Add: map[string]any{"balance": -amount}}, ryno.If(ryno.Attr("balance").GreaterOrEqual(amount))),
		ryno.TxPatch(to, ryno.Patch{Add: map[string]any{"balance": amount}}),
	)
	return err
}

func TestConcurrentTransfersKeepTheTotal(t *testing.T) {
	dynamotest.Parallel(t)
	const accounts, goroutines, rounds, start = 5, 16, 20, 100
	s := newStoreWith(t, nil)
	keys := openAccounts(t, s.Client, accounts, start)
	var mu sync.Mutex
	moved := map[ryno.Key]int64{} // the net change each committed transfer made
	var committed, insufficient, conflicts int
	for round := range rounds {
		race(goroutines, func(g int) {
			r := rand.New(rand.NewPCG(uint64(round), uint64(g)))
			from, to := twoAccounts(r, keys)
			amount := int64(1 + r.IntN(60))
			err := transfer(s.Client, from, to, amount)
			var condition *ryno.ConditionError
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				committed++
				moved[from] -= amount
				moved[to] += amount
			case errors.As(err, &condition):
				insufficient++
			case errors.Is(err, ryno.ErrConflict):
				conflicts++
			default:
				t.Errorf("transfer: %v", err)
			}
		})
		var total int64
		for _, k := range keys {
			b := balanceOf(t, s.Client, k)
			require.GreaterOrEqual(t, b, int64(0), "round %d: no balance goes negative", round)
			total += b
		}
		require.Equal(t, int64(accounts*start), total, "round %d: the total never changes", round)
	}
	for _, k := range keys {
		require.Equal(t, start+moved[k], balanceOf(t, s.Client, k), "%s: exactly the committed transfers moved money", k.ID)
	}
	require.Positive(t, committed)
	require.Positive(t, insufficient, "some transfers met an empty account")
	t.Logf("%d committed, %d refused for funds, %d gave up on conflicts", committed, insufficient, conflicts)
}

// emitBalance indexes accounts by balance.
func emitBalance(e *ryno.Entity, emit func(indexing.Value)) {
	if n, ok := e.Attributes["balance"].(json.Number); ok {
		b, err := n.Int64()
		if err != nil {
			panic(err)
		}
		emit(indexing.Int(b))
	}
}

func TestConcurrentBlindTxPatchTransfersAllCommit(t *testing.T) {
	dynamotest.Parallel(t)
	const accounts, goroutines, rounds, start = 5, 16, 10, 1000
	tests := []struct {
		name    string
		indexes []ryno.Index
	}{
		{"a type without indexes", nil},
		{"an indexed type", []ryno.Index{{Type: "account", Name: "balance", Map: emitBalance}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var retries atomic.Int64 // the most any transfer was sent again
			// 16 writers on 5 accounts collide far more than the default budget of
			// attempts is meant for; a refusal taken as final fails at the first.
			conflicts := ryno.RetryOptions{MaxAttempts: 100, BaseDelay: time.Millisecond, MaxDelay: 50 * time.Millisecond}
			s := newStoreOpts(t, nil, ryno.Options{Indexes: tt.indexes, Conflicts: conflicts, OnCall: func(_ context.Context, r ryno.CallReport) {
				if r.Op == "Transact" {
					for n := retries.Load(); int64(r.Retries) > n && !retries.CompareAndSwap(n, int64(r.Retries)); n = retries.Load() {
					}
				}
			}})
			keys := openAccounts(t, s.Client, accounts, start)
			var mu sync.Mutex
			moved := map[ryno.Key]int64{}
			for round := range rounds {
				race(goroutines, func(g int) {
					r := rand.New(rand.NewPCG(uint64(round), uint64(g)))
					from, to := twoAccounts(r, keys)
					amount := int64(1 + r.IntN(9))
					_, err := s.Transact(ctx,
						ryno.TxPatch(from, ryno.Patch{Add: map[string]any{"balance": -amount}}),
						ryno.TxPatch(to, ryno.Patch{Add: map[string]any{"balance": amount}}),
					)
					if err != nil {
						t.Errorf("round %d, transfer %d: %v", round, g, err)
						return
					}
					mu.Lock()
					defer mu.Unlock()
					moved[from] -= amount
					moved[to] += amount
				})
			}
			var total int64
			for _, k := range keys {
				b := balanceOf(t, s.Client, k)
				require.Equal(t, start+moved[k], b, "%s: every transfer applied once", k.ID)
				total += b
			}
			require.Equal(t, int64(accounts*start), total)
			requireIndexExact(t, s)
			if tt.indexes != nil {
				require.Positive(t, retries.Load(), "transfers were planned again")
			}
			t.Logf("a transfer was sent again at most %d times", retries.Load())
		})
	}
}

func TestATransactionCreatesAnOrderAndTakesItsStock(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: uniqueIndexes})
	stock := ryno.Key{Scope: "shop", Type: "stock", ID: "widget"}
	_, err := s.Create(ctx, &ryno.Entity{Key: stock, Attributes: map[string]any{"count": 1}})
	require.NoError(t, err)
	order := func(id string) []ryno.Op {
		return []ryno.Op{
			ryno.TxCreate(&ryno.Entity{Key: ryno.Key{Scope: "shop", Type: "order", ID: id}, Attributes: map[string]any{"item": "widget"}}),
			ryno.TxPatch(stock, ryno.Patch{Add: map[string]any{"count": -1}}, ryno.If(ryno.Attr("count").GreaterOrEqual(1))),
		}
	}
	s.counter.Reset()
	res, err := s.Transact(ctx, order("o1")...)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"TransactWriteItems": 1}, requests(s.counter), "nothing to read: one request")
	require.Equal(t, int64(1), res[0].Entity.Version)
	require.Nil(t, res[1].Entity, "a transaction returns no values: a patch of a type without indexes is not read back")
	got, err := s.Get(ctx, stock)
	require.NoError(t, err)
	require.Equal(t, json.Number("0"), got.Attributes["count"])

	_, err = s.Transact(ctx, order("o2")...)
	var refused *ryno.TransactionError
	require.ErrorAs(t, err, &refused)
	require.Len(t, refused.Ops, 1)
	require.Equal(t, 1, refused.Ops[0].Index)
	var condition *ryno.ConditionError
	require.ErrorAs(t, err, &condition)
	_, err = s.Get(ctx, ryno.Key{Scope: "shop", Type: "order", ID: "o2"})
	require.ErrorIs(t, err, ryno.ErrNotFound, "no order without stock")
}

func TestACancelledTransactionSaysWhyForEachOperation(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: uniqueIndexes})
	ada, err := s.Create(ctx, user("ada", "ada@example.com"))
	require.NoError(t, err)
	stale := *ada
	_, err = s.Patch(ctx, ada.Key, ryno.Patch{Set: map[string]any{"age": 31}})
	require.NoError(t, err)
	bob, err := s.Create(ctx, user("bob", "bob@example.com"))
	require.NoError(t, err)
	_, err = s.Create(ctx, user("carl", "carl@example.com"))
	require.NoError(t, err)

	s.counter.Reset()
	_, err = s.Transact(ctx,
		ryno.TxUpdate(&stale),                         // another version
		ryno.TxCreate(user("carl", "x@example.com")),  // exists
		ryno.TxCreate(user("eve", "ada@example.com")), // a taken unique value
		ryno.TxCheck(bob.Key, ryno.Attr("age").Greater(99)),
		ryno.TxAddRelationships(user("nobody", "").Key, "follows", []ryno.Key{ada.Key}),
	)
	var refused *ryno.TransactionError
	require.ErrorAs(t, err, &refused)
	reasons := map[int]error{}
	for _, o := range refused.Ops {
		reasons[o.Index] = o.Err
	}
	require.Len(t, reasons, 5, "%v", err)
	var conflict *ryno.ConflictError
	require.ErrorAs(t, reasons[0], &conflict)
	require.Equal(t, int64(1), conflict.Expected)
	require.ErrorIs(t, reasons[1], ryno.ErrExists)
	var unique *ryno.UniqueError
	require.ErrorAs(t, reasons[2], &unique)
	require.Equal(t, ada.Key, unique.Owner)
	var condition *ryno.ConditionError
	require.ErrorAs(t, reasons[3], &condition)
	require.ErrorIs(t, reasons[4], ryno.ErrNotFound)
	for _, sentinel := range []error{ryno.ErrConflict, ryno.ErrExists, ryno.ErrNotFound} {
		require.ErrorIs(t, err, sentinel)
	}

	_, err = s.Get(ctx, user("eve", "").Key)
	require.ErrorIs(t, err, ryno.ErrNotFound, "nothing was written")
	requireIndexExact(t, s)
	requireClaimsExact(t, s)
}

func TestEveryRefusalIsATransactionError(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: uniqueIndexes})
	ada, err := s.Create(ctx, user("ada", "ada@example.com"))
	require.NoError(t, err)
	_, err = s.Patch(ctx, ada.Key, ryno.Patch{Set: map[string]any{"age": 31}})
	require.NoError(t, err)
	bob, err := s.Create(ctx, person("bob", map[string]any{"n": 1}))
	require.NoError(t, err)
	add := ryno.Patch{Add: map[string]any{"n": 1}}
	touch := ryno.TxPatch(bob.Key, add) // an operation that holds, before the refused ones

	tests := []struct {
		name string
		ops  []ryno.Op
		want map[int]error // the reason of each refused operation, by index
	}{
		{"a blind TxUpdate of a missing entity", []ryno.Op{touch, ryno.TxUpdate(person("nobody", nil))},
			map[int]error{1: ryno.ErrNotFound}},
		{"a blind TxUpdate of a missing entity of an indexed type", []ryno.Op{touch, ryno.TxUpdate(user("nobody", "x@example.com"))},
			map[int]error{1: ryno.ErrNotFound}},
		{"a TxPatch of a missing entity", []ryno.Op{touch, ryno.TxPatch(person("nobody", nil).Key, add)},
			map[int]error{1: ryno.ErrNotFound}},
		{"a TxPatch of a missing entity of an indexed type", []ryno.Op{touch, ryno.TxPatch(user("nobody", "").Key, add)},
			map[int]error{1: ryno.ErrNotFound}},
		{"a TxPatch of another version", []ryno.Op{touch, ryno.TxPatch(ada.Key, add, ryno.IfVersion(1))},
			map[int]error{1: ryno.ErrConflict}},
		{"several refused while reading", []ryno.Op{
			ryno.TxPatch(user("nobody", "").Key, add),
			touch,
			ryno.TxDelete(ada.Key, ryno.IfVersion(1)),
			ryno.TxUpdate(person("nobody", nil)),
		}, map[int]error{0: ryno.ErrNotFound, 2: ryno.ErrConflict, 3: ryno.ErrNotFound}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Transact(ctx, tt.ops...)
			var refused *ryno.TransactionError
			require.ErrorAs(t, err, &refused)
			got := map[int]error{}
			for _, o := range refused.Ops {
				got[o.Index] = o.Err
				require.NotEmpty(t, o.Op)
				require.NotZero(t, o.Key)
			}
			require.Len(t, got, len(tt.want), "%v", err)
			for i, want := range tt.want {
				require.ErrorIs(t, got[i], want, "operation %d", i)
			}
			require.Equal(t, int64(1), counterOf(t, s.Client, bob.Key), "nothing was written")
		})
	}
	requireIndexExact(t, s)
	requireClaimsExact(t, s)
}

func TestTwoOperationsClaimingOneValueAreRefusedAsASecondWriterIs(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: uniqueIndexes})
	_, err := s.Create(ctx, user("old", "old@example.com"))
	require.NoError(t, err)
	owner := user("a", "").Key
	tests := []struct {
		name    string
		ops     []ryno.Op
		refused []int // the operations refused, each for the value operation 0 claims
		reads   bool  // the operations read before they plan
	}{
		{"two creates", []ryno.Op{ryno.TxCreate(user("a", "same@example.com")), ryno.TxCreate(user("b", "same@example.com"))}, []int{1}, false},
		{"three creates", []ryno.Op{
			ryno.TxCreate(user("a", "same@example.com")),
			ryno.TxCreate(user("b", "same@example.com")),
			ryno.TxCreate(user("c", "same@example.com")),
		}, []int{1, 2}, false},
		{"a create and a set", []ryno.Op{ryno.TxCreate(user("a", "same@example.com")), ryno.TxSet(user("old", "same@example.com"))}, []int{1}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.counter.Reset()
			_, err := s.Transact(ctx, tt.ops...)
			var refused *ryno.TransactionError
			require.ErrorAs(t, err, &refused)
			require.ErrorIs(t, err, ryno.ErrExists)
			require.Len(t, refused.Ops, len(tt.refused), "%v", err)
			for i, o := range refused.Ops {
				require.Equal(t, tt.refused[i], o.Index)
				var unique *ryno.UniqueError
				require.ErrorAs(t, o.Err, &unique)
				require.Equal(t, &ryno.UniqueError{Index: "user-email", Value: "same@example.com", Owner: owner}, unique)
			}
			if tt.reads {
				require.Zero(t, s.counter.Count("TransactWriteItems"), "nothing sent to write")
			} else {
				require.Zero(t, s.counter.Total(), "no request")
			}
		})
	}
	_, err = s.Get(ctx, owner)
	require.ErrorIs(t, err, ryno.ErrNotFound, "nothing was written")
	requireIndexExact(t, s)
	requireClaimsExact(t, s)
}

func TestATransactionOverTheLimitsSendsNothing(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: uniqueIndexes})
	many := make([]ryno.Op, 101)
	for i := range many {
		many[i] = ryno.TxCreate(person(fmt.Sprint("p", i), nil))
	}
	big := strings.Repeat("x", 390_000)
	heavy := make([]ryno.Op, 11)
	for i := range heavy {
		heavy[i] = ryno.TxCreate(person(fmt.Sprint("h", i), map[string]any{"big": big}))
	}
	patches := func(typ string) []ryno.Op {
		ops := make([]ryno.Op, 11)
		for i := range ops {
			ops[i] = ryno.TxPatch(ryno.Key{Scope: "acme", Type: typ, ID: fmt.Sprint("h", i)}, ryno.Patch{Set: map[string]any{"big": big}})
		}
		return ops
	}
	tests := map[string]struct {
		ops   []ryno.Op
		limit string
	}{
		"101 operations":            {many, "actions"},
		"one entity twice":          {[]ryno.Op{ryno.TxCreate(person("a", nil)), ryno.TxPatch(person("a", nil).Key, ryno.Patch{Set: map[string]any{"x": 1}})}, "item"},
		"one list twice":            {[]ryno.Op{ryno.TxAddRelationships(pk("a"), "p", []ryno.Key{pk("b")}), ryno.TxRemoveRelationships(pk("a"), "p", []ryno.Key{pk("c")})}, "item"},
		"more than 4 MB":            {heavy, "bytes"},
		"patches of more than 4 MB": {patches("person"), "bytes"},
		"patches of more than 4 MB to an indexed type": {patches("user"), "bytes"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			s.counter.Reset()
			_, err := s.Transact(ctx, tt.ops...)
			var limit *ryno.TransactionLimitError
			require.ErrorAs(t, err, &limit)
			require.Equal(t, tt.limit, limit.Limit)
			require.ErrorIs(t, err, ryno.ErrInvalid)
			require.Zero(t, s.counter.Total(), "no request")
		})
	}
}

func TestATransactionMixesWritesOfIndexedEntitiesListsAndDeletes(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: uniqueIndexes})
	ada, err := s.Create(ctx, user("ada", "ada@example.com"))
	require.NoError(t, err)
	_, err = s.Create(ctx, user("old", "old@example.com"))
	require.NoError(t, err)
	ada.Attributes["email"] = "countess@example.com"

	res, err := s.Transact(ctx,
		ryno.TxUpdate(ada),
		ryno.TxSet(user("bob", "ada@example.com")), // the value ada gives up
		ryno.TxDelete(user("old", "").Key),
		ryno.TxAddRelationships(ada.Key, "follows", []ryno.Key{user("bob", "").Key}),
	)
	require.NoError(t, err)
	require.Equal(t, int64(2), res[0].Entity.Version)
	require.Equal(t, []ryno.Key{user("bob", "").Key}, res[3].Changed)
	requireIndexExact(t, s)
	requireClaimsExact(t, s)
	requireListExact(t, s, ada.Key, "follows")
	owner, err := s.LookupUnique(ctx, ryno.ScopedIndex{Scope: "acme", Index: "user-email"}, indexing.String("ada@example.com"))
	require.NoError(t, err)
	require.Equal(t, user("bob", "").Key, owner)

	_, err = s.Transact(ctx, ryno.TxDelete(ada.Key))
	require.ErrorIs(t, err, ryno.ErrHasRelationships, "a delete that must sweep lists is refused whole")
	_, err = s.Get(ctx, ada.Key)
	require.NoError(t, err)
}

func TestATxDeleteWithAStaleVersionDeletesNothing(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: uniqueIndexes})
	ada, err := s.Create(ctx, user("ada", "ada@example.com"))
	require.NoError(t, err)
	_, err = s.Patch(ctx, ada.Key, ryno.Patch{Set: map[string]any{"age": 31}})
	require.NoError(t, err)

	err = s.Delete(ctx, ada.Key, ryno.IfVersion(1))
	require.ErrorIs(t, err, ryno.ErrConflict, "outside a transaction")

	_, err = s.Transact(ctx, ryno.TxDelete(ada.Key, ryno.IfVersion(1)))
	var refused *ryno.TransactionError
	require.ErrorAs(t, err, &refused)
	require.Len(t, refused.Ops, 1)
	require.Equal(t, 0, refused.Ops[0].Index)
	require.ErrorIs(t, refused.Ops[0].Err, ryno.ErrConflict)
	var conflict *ryno.ConflictError
	require.ErrorAs(t, err, &conflict)
	require.Equal(t, int64(1), conflict.Expected)
	require.Equal(t, int64(2), conflict.Stored)

	got, err := s.Get(ctx, ada.Key, ryno.Consistent())
	require.NoError(t, err, "nothing was deleted")
	require.Equal(t, int64(2), got.Version)
	requireIndexExact(t, s)
	requireClaimsExact(t, s)

	_, err = s.Transact(ctx, ryno.TxDelete(ada.Key, ryno.IfVersion(2)))
	require.NoError(t, err, "the version stored")
	_, err = s.Get(ctx, ada.Key, ryno.Consistent())
	require.ErrorIs(t, err, ryno.ErrNotFound)
	requireIndexExact(t, s)
	requireClaimsExact(t, s)
}

func TestATxCheckOfTheSubjectOfAListChangeIsOneCheckOfBoth(t *testing.T) {
	s := newStoreWith(t, nil)
	issue := ryno.Key{Scope: "acme", Type: "issue", ID: "i1"}
	locked := ryno.Key{Scope: "acme", Type: "issue", ID: "i2"}
	_, err := s.Create(ctx, &ryno.Entity{Key: issue})
	require.NoError(t, err)
	_, err = s.Create(ctx, &ryno.Entity{Key: locked, Attributes: map[string]any{"deleting": true}})
	require.NoError(t, err)
	comment := func(id string) *ryno.Entity {
		return &ryno.Entity{Key: ryno.Key{Scope: "acme", Type: "comment", ID: id}}
	}
	tests := []struct {
		name    string
		subject ryno.Key
		refused int   // the operation refused, -1 for none
		reason  error // what it matches
	}{
		{"both hold", issue, -1, nil},
		{"the TxCheck fails", locked, 2, ryno.ErrConflict},
		{"the subject is missing", ryno.Key{Scope: "acme", Type: "issue", ID: "none"}, 1, ryno.ErrNotFound},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, order := range [][]int{{0, 1, 2}, {0, 2, 1}} {
				c := comment(fmt.Sprint("c", i, order[1]))
				ops := []ryno.Op{
					ryno.TxCreate(c),
					ryno.TxAddRelationships(tt.subject, "comments", []ryno.Key{c.Key}),
					ryno.TxCheck(tt.subject, ryno.Attr("deleting").Absent()),
				}
				ordered := []ryno.Op{ops[order[0]], ops[order[1]], ops[order[2]]}
				_, err := s.Transact(ctx, ordered...)
				if tt.refused < 0 {
					require.NoError(t, err)
					has, err := s.HasRelationship(ctx, tt.subject, "comments", c.Key)
					require.NoError(t, err)
					require.True(t, has)
					continue
				}
				var refused *ryno.TransactionError
				require.ErrorAs(t, err, &refused)
				require.Len(t, refused.Ops, 1, "%v", err)
				require.Equal(t, slices.Index(order, tt.refused), refused.Ops[0].Index, "%v", err)
				require.ErrorIs(t, refused.Ops[0].Err, tt.reason)
			}
		})
	}
}

func TestATransactionCreatesAnObjectAndItsEdgeWithObjectChecks(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{CheckObjects: true})
	hub, post := pk("hub"), pk("post")
	createSubjects(t, s.Client, hub)
	results, err := s.Transact(ctx, ryno.TxCreate(&ryno.Entity{Key: post}), ryno.TxAddRelationships(hub, "follows", []ryno.Key{post}))
	require.NoError(t, err, "the create checks the object: no second action on its item")
	require.Equal(t, []ryno.Key{post}, results[1].Changed)
	requireListExact(t, s, hub, "follows")
	_, err = s.Transact(ctx, ryno.TxAddRelationships(hub, "follows", []ryno.Key{pk("nobody")}))
	require.ErrorIs(t, err, ryno.ErrNotFound, "an object no operation writes is still checked")
}

// TestATxDeleteOfAMissingEntity deletes an entity that does not exist in a
// transaction: alone or with another operation it commits, and it holds at the
// commit: an entity created between the transaction's read and its commit is
// deleted by it (the transaction reads again), never left alive beside it.
func TestATxDeleteOfAMissingEntity(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{})
	_, err := s.Transact(ctx, ryno.TxDelete(account("never")))
	require.NoError(t, err, "alone")
	_, err = s.Transact(ctx, ryno.TxDelete(account("never")), ryno.TxCreate(&ryno.Entity{Key: account("other")}))
	require.NoError(t, err, "with another operation")
	_, err = s.Get(ctx, account("other"), ryno.Consistent())
	require.NoError(t, err)

	held := newHeldCommit(false)
	d := mustNew(t, held.wrap(s.raw), s.Names().Prefix, nil)
	held.armed.Store(true)
	tx := background(func() error {
		_, err := d.Transact(ctx, ryno.TxDelete(account("late")), ryno.TxCreate(&ryno.Entity{Key: account("third")}))
		return err
	})
	wait(t, held.held, "the transaction's commit")
	_, err = s.Create(ctx, &ryno.Entity{Key: account("late")})
	require.NoError(t, err)
	close(held.release)
	require.NoError(t, result(t, tx, "the transaction"))
	_, err = s.Get(ctx, account("late"), ryno.Consistent())
	require.ErrorIs(t, err, ryno.ErrNotFound, "the transaction committed after the Create: it deleted the entity")
	_, err = s.Get(ctx, account("third"), ryno.Consistent())
	require.NoError(t, err)
}

// TestASetThatWouldCreateTheEntityHoldsItsCondition sets a missing entity under a
// condition: one that a missing entity cannot meet (Exists, a test of an
// attribute) refuses the Set with a *ConditionError and nothing is written, alone
// or in a transaction; Absent lets it create the entity.
func TestASetThatWouldCreateTheEntityHoldsItsCondition(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{})
	conds := map[string]ryno.Condition{
		"Exists":              ryno.Exists(),
		"an attribute":        ryno.Attr("balance").Equal(0),
		"version 1":           ryno.VersionIs(1),
		"an attribute absent": ryno.Attr("balance").Absent(),
	}
	for name, cond := range conds {
		t.Run(name, func(t *testing.T) {
			k := account("set-" + strings.ReplaceAll(name, " ", "-"))
			_, err := s.Set(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"balance": 1}}, ryno.If(cond))
			var refused *ryno.ConditionError
			require.ErrorAs(t, err, &refused, "Set")
			_, err = s.Transact(ctx, ryno.TxSet(&ryno.Entity{Key: k}, ryno.If(cond)))
			require.ErrorAs(t, err, &refused, "TxSet")
			_, err = s.Get(ctx, k, ryno.Consistent())
			require.ErrorIs(t, err, ryno.ErrNotFound, "nothing was written")
		})
	}
	k := account("set-absent")
	_, err := s.Set(ctx, &ryno.Entity{Key: k}, ryno.If(ryno.Absent()))
	require.NoError(t, err)
	_, err = s.Set(ctx, &ryno.Entity{Key: k}, ryno.If(ryno.Absent()))
	var refused *ryno.ConditionError
	require.ErrorAs(t, err, &refused, "it exists now")
}
