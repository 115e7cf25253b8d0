package integration_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// An invitation is used once: removed from its group's invitations, its member
// added to the group, and the invitation deleted, in one transaction. The group's
// invitations are a set ("invites") or a list ("invitations").

func group(id string) ryno.Key      { return ryno.Key{Scope: "acme", Type: "group", ID: id} }
func invitation(id string) ryno.Key { return ryno.Key{Scope: "acme", Type: "invitation", ID: id} }

// invitationOptions declares the set of invitations, with object checks on.
var invitationOptions = ryno.Options{Sets: []string{"invites"}, CheckObjects: true}

// invite creates the group, the invitation and its member, and lists the
// invitation, beside another one, under predicate of the group.
func invite(t *testing.T, db *ryno.Client, g, inv ryno.Key, predicate string) (member ryno.Key) {
	t.Helper()
	member = pk("member-" + inv.ID)
	other := invitation("other-" + inv.ID)
	createSubjects(t, db, g, inv, other, member)
	require.NoError(t, changed(db.AddRelationships(ctx, g, predicate, []ryno.Key{inv, other})))
	return member
}

// useInvitation is the transaction using inv: remove, by the operation of use, from
// the group's predicate, add the member, delete the invitation.
func useInvitation(use, predicate string, g, inv, member ryno.Key) []ryno.Op {
	remove := ryno.TxRemoveRelationships(g, predicate, []ryno.Key{inv})
	if use == "replace" {
		remove = ryno.TxUpdate(&ryno.Entity{Key: g}, ryno.ReplaceLists(map[string][]ryno.Key{predicate: {invitation("other-" + inv.ID)}}))
	}
	return []ryno.Op{remove, ryno.TxAddRelationships(g, "members", []ryno.Key{member}), ryno.TxDelete(inv)}
}

// requireNothingPointsAt checks that no entry names k, by the reverse index and by
// a check of the whole store.
func requireNothingPointsAt(t *testing.T, s *store, k ryno.Key) {
	t.Helper()
	require.Empty(t, subjectsPointingAt(t, s.Client, k))
	var orphans []string
	_, err := s.Check(ctx, ryno.CheckOptions{OnOrphan: func(o ryno.Orphan) { orphans = append(orphans, o.String()) }})
	require.NoError(t, err)
	require.Empty(t, orphans)
}

// TestATxDeleteOfAnInvitationItsTransactionRemoves uses an invitation in one
// transaction: the operation removing it from its group's set or list (a
// TxRemoveRelationships, or an update replacing the list) removes every entry
// pointing at it, so the TxDelete commits with them.
func TestATxDeleteOfAnInvitationItsTransactionRemoves(t *testing.T) {
	tests := []struct{ name, predicate, use string }{
		{"a set", "invites", "remove"},
		{"a list", "invitations", "remove"},
		{"a list replaced", "invitations", "replace"},
	}
	s := newStoreOpts(t, nil, invitationOptions)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, inv := group(fmt.Sprint("g", i)), invitation(fmt.Sprint("i", i))
			member := invite(t, s.Client, g, inv, tt.predicate)

			results, err := s.Transact(ctx, useInvitation(tt.use, tt.predicate, g, inv, member)...)
			require.NoError(t, err)
			if tt.use == "remove" {
				require.Equal(t, []ryno.Key{inv}, results[0].Changed)
			}
			require.Equal(t, []ryno.Key{member}, results[1].Changed)

			_, err = s.Get(ctx, inv, ryno.Consistent())
			require.ErrorIs(t, err, ryno.ErrNotFound)
			require.Equal(t, []ryno.Key{invitation("other-" + inv.ID)}, objectsOf(t, s.Client, g, tt.predicate, 10))
			require.Equal(t, []ryno.Key{member}, objectsOf(t, s.Client, g, "members", 10))
			requireListExact(t, s, g, "members")
			if tt.predicate == "invitations" {
				requireListExact(t, s, g, tt.predicate)
			}
			requireNothingPointsAt(t, s, inv)
		})
	}
}

// TestATxDeleteOfAnEntityAnotherEntryPointsAtIsRefused: an entry pointing at the
// invitation that no operation of the transaction removes refuses the TxDelete
// with ErrHasRelationships, before any write.
func TestATxDeleteOfAnEntityAnotherEntryPointsAtIsRefused(t *testing.T) {
	tests := []struct {
		name, predicate string
		also            func(db *ryno.Client, inv ryno.Key) error // the entry left
	}{
		{"another group's set", "invites", func(db *ryno.Client, inv ryno.Key) error {
			return changed(db.AddRelationships(ctx, group("elsewhere-"+inv.ID), "invites", []ryno.Key{inv}))
		}},
		{"another group's list", "invitations", func(db *ryno.Client, inv ryno.Key) error {
			return changed(db.AddRelationships(ctx, group("elsewhere-"+inv.ID), "invitations", []ryno.Key{inv}))
		}},
		{"another list of the group", "invites", func(db *ryno.Client, inv ryno.Key) error {
			return changed(db.AddRelationships(ctx, group("g-"+inv.ID), "invitations", []ryno.Key{inv}))
		}},
	}
	s := newStoreOpts(t, nil, invitationOptions)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, inv := group(fmt.Sprint("g-i", i)), invitation(fmt.Sprint("i", i))
			member := invite(t, s.Client, g, inv, tt.predicate)
			createSubjects(t, s.Client, group("elsewhere-"+inv.ID))
			require.NoError(t, tt.also(s.Client, inv))
			s.counter.Reset()

			_, err := s.Transact(ctx, useInvitation("remove", tt.predicate, g, inv, member)...)
			var refused *ryno.TransactionError
			require.ErrorAs(t, err, &refused)
			require.Len(t, refused.Ops, 1, "%v", err)
			require.Equal(t, 2, refused.Ops[0].Index)
			require.ErrorIs(t, refused.Ops[0].Err, ryno.ErrHasRelationships)
			for _, op := range []string{"TransactWriteItems", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem"} {
				require.Zero(t, s.counter.Count(op), "%s: nothing is written", op)
			}

			_, err = s.Get(ctx, inv, ryno.Consistent())
			require.NoError(t, err)
			require.Contains(t, objectsOf(t, s.Client, g, tt.predicate, 10), inv)
			require.Empty(t, objectsOf(t, s.Client, g, "members", 10))
		})
	}
}

// TestATxDeleteRacingAnEntryAddedAfterItsReads holds the transaction using an
// invitation between its reads and its commit, while another writer lists the
// invitation again. In the list the transaction removes it from, the entry moves
// the conditions the removal committed on: the transaction reads again and removes
// it too. In another group's list, no condition of the transaction sees it (a
// TxDelete puts no tombstone): the transaction commits, and the entry left points
// at an invitation gone, which a check reports and a Delete of the invitation
// removes.
func TestATxDeleteRacingAnEntryAddedAfterItsReads(t *testing.T) {
	dynamotest.Parallel(t)
	for i, predicate := range []string{"invites", "invitations"} {
		for _, elsewhere := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, listed again elsewhere %v", predicate, elsewhere), func(t *testing.T) {
				held := newHeldCommit(false)
				s := newStoreOpts(t, held.wrap, invitationOptions)
				other := newClientOn(t, s, invitationOptions)
				g, inv := group(fmt.Sprint("g", i)), invitation(fmt.Sprint("i", i))
				member := invite(t, s.Client, g, inv, predicate)
				there := g
				if elsewhere {
					there = group("elsewhere")
					createSubjects(t, s.Client, there)
				}
				s.counter.Reset()

				held.armed.Store(true)
				tx := background(func() error {
					_, err := s.Transact(ctx, useInvitation("remove", predicate, g, inv, member)...)
					return err
				})
				select {
				case <-held.held:
				case err := <-tx:
					t.Fatalf("the transaction ended before its commit: %v", err)
				}
				if !elsewhere { // the entry is written anew
					require.NoError(t, changed(other.RemoveRelationships(ctx, there, predicate, []ryno.Key{inv})))
				}
				require.NoError(t, changed(other.AddRelationships(ctx, there, predicate, []ryno.Key{inv})))
				close(held.release)
				require.NoError(t, result(t, tx, "the transaction"))
				_, err := s.Get(ctx, inv, ryno.Consistent())
				require.ErrorIs(t, err, ryno.ErrNotFound)
				require.Equal(t, []ryno.Key{member}, objectsOf(t, s.Client, g, "members", 10))

				if !elsewhere {
					// A set's entry is one item, the one the removal deletes whatever
					// wrote it; a list's entry moved, and the removal's markers with it.
					want := map[string]int{"invites": 1, "invitations": 2}[predicate]
					require.Equal(t, want, s.counter.Count("TransactWriteItems"))
					requireNothingPointsAt(t, s, inv)
					return
				}
				require.Equal(t, 1, s.counter.Count("TransactWriteItems"))
				var orphans []ryno.Orphan
				_, err = s.Check(ctx, ryno.CheckOptions{OnOrphan: func(o ryno.Orphan) { orphans = append(orphans, o) }})
				require.NoError(t, err)
				require.Len(t, orphans, 1, "the entry left is reported")
				require.Contains(t, orphans[0].String(), "object "+inv.String()+" does not exist")
				require.NoError(t, s.Delete(ctx, inv), "a Delete of the missing invitation sweeps it")
				requireNothingPointsAt(t, s, inv)
			})
		}
	}
}

// TestATxDeleteReadsAgainWhenTheReverseIndexShowsAnEntryTheRemovalDidNotRead
// holds the TxDelete's reads of the entries pointing at the invitation until the
// removal has read the list, then moves the invitation to another position of the
// list. The reverse index shows an entry the removal does not delete: the
// transaction reads again before it sends anything, and commits once.
func TestATxDeleteReadsAgainWhenTheReverseIndexShowsAnEntryTheRemovalDidNotRead(t *testing.T) {
	var armed atomic.Bool
	listsRead, release := make(chan struct{}, 8), make(chan struct{})
	s := newStoreOpts(t, func(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
		return dynamotest.Wrap(api, func(ctx context.Context, op string, send func(context.Context) error) error {
			if !armed.Load() {
				return send(ctx)
			}
			switch op {
			case "Query": // the TxDelete's: its partition, and the entries pointing at it
				<-release
			case "BatchGetItem": // the list operations': heads, markers, subject
				defer func() { listsRead <- struct{}{} }()
			}
			return send(ctx)
		})
	}, invitationOptions)
	other := newClientOn(t, s, invitationOptions)
	g, inv := group("g"), invitation("i")
	member := invite(t, s.Client, g, inv, "invitations")
	s.counter.Reset()

	armed.Store(true)
	tx := background(func() error {
		_, err := s.Transact(ctx, useInvitation("remove", "invitations", g, inv, member)...)
		return err
	})
	for range 2 { // the removal's read, and the Add's
		select {
		case <-listsRead:
		case err := <-tx:
			t.Fatalf("the transaction ended before its reads: %v", err)
		}
	}
	require.NoError(t, changed(other.RemoveRelationships(ctx, g, "invitations", []ryno.Key{inv})))
	require.NoError(t, changed(other.AddRelationships(ctx, g, "invitations", []ryno.Key{inv})))
	armed.Store(false)
	close(release)
	require.NoError(t, result(t, tx, "the transaction"))

	counts := requests(s.counter)
	require.Equal(t, 1, counts["TransactWriteItems"], "read again before sending anything")
	require.Equal(t, 4, counts["Query"], "two Queries a read")
	_, err := s.Get(ctx, inv, ryno.Consistent())
	require.ErrorIs(t, err, ryno.ErrNotFound)
	requireListExact(t, s, g, "invitations")
	requireNothingPointsAt(t, s, inv)
}

// TestATxDeleteIsRefusedForAnEntryItsListsRemovalDoesNotSee plants an entry
// pointing at the invitation in a list written before lists had heads, whose
// markers do not describe it: the removal from that list does not delete it, so
// the TxDelete is refused with ErrHasRelationships after reading again, and nothing
// is written.
func TestATxDeleteIsRefusedForAnEntryItsListsRemovalDoesNotSee(t *testing.T) {
	opts := invitationOptions
	opts.Conflicts = ryno.RetryOptions{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}
	s := newStoreOpts(t, nil, opts)
	g, inv := group("g"), invitation("i")
	member := invite(t, s.Client, g, inv, "invites")
	old := group("old")
	createSubjects(t, s.Client, old)
	seedIncoming(t, s.raw, s.Names(), []ryno.Key{old}, inv) // "follows", with no head
	s.counter.Reset()

	_, err := s.Transact(ctx,
		ryno.TxRemoveRelationships(g, "invites", []ryno.Key{inv}),
		ryno.TxRemoveRelationships(old, "follows", []ryno.Key{inv}),
		ryno.TxAddRelationships(g, "members", []ryno.Key{member}),
		ryno.TxDelete(inv),
	)
	var refused *ryno.TransactionError
	require.ErrorAs(t, err, &refused)
	require.Len(t, refused.Ops, 1, "%v", err)
	require.Equal(t, 3, refused.Ops[0].Index)
	require.ErrorIs(t, refused.Ops[0].Err, ryno.ErrHasRelationships)
	counts := requests(s.counter)
	for _, op := range []string{"TransactWriteItems", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem"} {
		require.Zero(t, counts[op], "%s: nothing is written", op)
	}
	require.Equal(t, 6, counts["Query"], "read three times")
	_, err = s.Get(ctx, inv, ryno.Consistent())
	require.NoError(t, err)
	require.ElementsMatch(t, []ryno.Key{g, old}, subjectsPointingAt(t, s.Client, inv))
}

// TestATxDeleteDoesNotDeleteALifeItDidNotRead holds a TxDelete's commit, after it
// read the entity at version 1, while another client deletes the entity and
// creates it again, at version 1 too, with index entries of its own: the
// TxDelete requires the life it read, reads again and deletes the new life whole,
// leaving none of its entries behind.
func TestATxDeleteDoesNotDeleteALifeItDidNotRead(t *testing.T) {
	held := newHeldCommit(false)
	opts := ryno.Options{Indexes: mixedIndexes}
	s := newStoreOpts(t, held.wrap, opts)
	other := newClientOn(t, s, opts)
	first, err := other.Create(ctx, person("ada", map[string]any{"name": "Ada", "email": "ada@first", "age": 36}))
	require.NoError(t, err)

	held.armed.Store(true)
	tx := background(func() error { _, err := s.Transact(ctx, ryno.TxDelete(first.Key)); return err })
	wait(t, held.held, "the TxDelete's commit")
	require.NoError(t, other.Delete(ctx, first.Key))
	second, err := other.Create(ctx, person("ada", map[string]any{"name": "Ada", "email": "ada@second", "age": 37}))
	require.NoError(t, err)
	require.Equal(t, first.Version, second.Version)
	close(held.release)

	require.NoError(t, result(t, tx, "the TxDelete"))
	_, err = other.Get(ctx, first.Key, ryno.Consistent())
	require.ErrorIs(t, err, ryno.ErrNotFound)
	require.Empty(t, indexItems(t, s.raw, s.Names()), "no index entry of either life is left")
}
