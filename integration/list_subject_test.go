package integration_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/ryno"
)

// A list write whose head exists checks its subject in its read, not in its
// transaction; the head stands for the subject, since a Delete deletes each head of
// the entity on the condition that it is as read. These tests hold a writer's
// transaction at the two places a Delete can meet it.

// heldCommit holds the first TransactWriteItems (or request of op) of the client
// it wraps (with all, every one), once armed, until released, and says when the
// first is held.
type heldCommit struct {
	op      string
	all     bool
	armed   atomic.Bool
	once    sync.Once
	held    chan struct{}
	release chan struct{}
}

func newHeldCommit(all bool) *heldCommit {
	return &heldCommit{op: "TransactWriteItems", all: all, held: make(chan struct{}), release: make(chan struct{})}
}

// newHeldRequest holds the first request of op, once armed.
func newHeldRequest(op string) *heldCommit {
	h := newHeldCommit(false)
	h.op = op
	return h
}

func (h *heldCommit) wrap(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
	return dynamotest.Wrap(api, func(ctx context.Context, op string, send func(context.Context) error) error {
		hold := false
		if h.armed.Load() && op == h.op {
			hold = h.all
			h.once.Do(func() { hold = true; close(h.held) })
		}
		if hold {
			<-h.release
		}
		return send(ctx)
	})
}

// wait waits for ch, failing the test after a wide margin.
func wait(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s never happened", what)
	}
}

// background runs call in a goroutine, whose error comes on the channel returned.
func background(call func() error) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- call() }()
	return ch
}

// result waits for the error of a call run in the background, failing the test
// after a wide margin.
func result(t *testing.T, ch <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s never returned", what)
		return nil
	}
}

func TestAListWriteOverlappingADeleteOfItsSubjectLeavesNothing(t *testing.T) {
	dynamotest.Parallel(t)
	for _, size := range []int{3, 150} { // one sweep transaction; several
		for _, kind := range []string{"add", "remove", "replace", "transaction"} {
			t.Run(fmt.Sprintf("%s, list of %d, commits between the sweep's read and its delete", kind, size), func(t *testing.T) {
				writeOverlappingADelete(t, kind, size, true)
			})
			t.Run(fmt.Sprintf("%s, list of %d, commits after the sweep", kind, size), func(t *testing.T) {
				writeOverlappingADelete(t, kind, size, false)
			})
		}
	}
}

// writeOverlappingADelete starts a list write of kind on a subject whose list holds
// size objects, holds its transaction once it has read the subject live, and
// deletes the subject with another client. With between, the write commits after
// the Delete has read what to sweep and before any of its transactions; otherwise,
// after the Delete has returned. Either way nothing of the subject is left, and a
// write that committed after the Delete's read made the Delete read again.
func writeOverlappingADelete(t *testing.T, kind string, size int, between bool) {
	writer, deleter := newHeldCommit(false), newHeldCommit(true)
	s := newStoreOpts(t, nil, ryno.Options{ConsistentRead: true})
	w := mustNew(t, writer.wrap(s.raw), s.Names().Prefix, nil, ryno.Options{SeparateListWrites: true})
	subject := pk("doomed")
	objects := pks("o", size)
	createSubjects(t, s.Client, subject)
	require.NoError(t, s.ReplaceRelationships(ctx, subject, "follows", objects))
	if kind == "transaction" { // its Remove changes a list, so its heads stand for the subject
		require.NoError(t, s.ReplaceRelationships(ctx, subject, "likes", objects[:1]))
	}

	writer.armed.Store(true)
	write := background(func() error {
		switch kind {
		case "add":
			return changed(w.AddRelationships(ctx, subject, "follows", []ryno.Key{pk("late")}))
		case "remove":
			return changed(w.RemoveRelationships(ctx, subject, "follows", objects[:1]))
		case "transaction":
			_, err := w.Transact(ctx, ryno.TxAddRelationships(subject, "follows", []ryno.Key{pk("late")}),
				ryno.TxRemoveRelationships(subject, "likes", objects[:1]))
			return err
		}
		return w.ReplaceRelationships(ctx, subject, "follows", append(slices.Clone(objects[1:]), pk("late")))
	})
	wait(t, writer.held, "the writer's commit")

	var transactions atomic.Int32
	counted := dynamotest.Wrap(s.raw, func(ctx context.Context, op string, send func(context.Context) error) error {
		if op == "TransactWriteItems" {
			transactions.Add(1)
		}
		return send(ctx)
	})
	d := mustNew(t, deleter.wrap(counted), s.Names().Prefix, nil, ryno.Options{ConsistentRead: true})
	if between {
		deleter.armed.Store(true)
		del := background(func() error { return d.Delete(ctx, subject) })
		wait(t, deleter.held, "the Delete's first transaction")
		close(writer.release)
		werr := result(t, write, "the write")
		close(deleter.release)
		require.NoError(t, result(t, del, "the Delete"))
		require.NoError(t, werr, "the write committed before the Delete's transaction: it is ordered before the Delete")
		require.Greater(t, transactions.Load(), int32(1), "the write moved the head the Delete read: the Delete read again")
	} else {
		require.NoError(t, d.Delete(ctx, subject))
		close(writer.release)
		require.ErrorIs(t, result(t, write, "the write"), ryno.ErrNotFound, "a write reading again after the Delete finds no subject")
	}
	_, err := s.Get(ctx, subject, ryno.Consistent())
	require.ErrorIs(t, err, ryno.ErrNotFound)
	requireNothingOf(t, s, subject, false)
}

// TestListWritersRacingADeleteOfTheirSubjectLeaveNothing races writers adding to,
// removing from and replacing a list against the Delete of its subject, over many
// rounds: each write either succeeded before the Delete (and was swept) or fails
// with ErrNotFound (or lost its races: ErrConflict), and nothing of the subject is
// left.
func TestListWritersRacingADeleteOfTheirSubjectLeaveNothing(t *testing.T) {
	const rounds, writers = 15, 6
	s := newStoreOpts(t, nil, ryno.Options{ConsistentRead: true})
	clients := make([]*ryno.Client, writers)
	for i := range clients {
		clients[i] = newClientOn(t, s, ryno.Options{ConsistentRead: true})
	}
	for round := range rounds {
		subject := pk(fmt.Sprintf("doomed%02d", round))
		createSubjects(t, s.Client, subject)
		require.NoError(t, s.ReplaceRelationships(ctx, subject, "follows", pks("o", 4)))
		errs := make([]error, writers+1)
		race(writers+1, func(g int) {
			if g == writers {
				errs[g] = s.Delete(ctx, subject)
				return
			}
			for i := range 4 {
				var err error
				object := pk(fmt.Sprintf("w%d-%d", g, i))
				switch g % 3 {
				case 0:
					_, err = clients[g].AddRelationships(ctx, subject, "follows", []ryno.Key{object})
				case 1:
					_, err = clients[g].RemoveRelationships(ctx, subject, "follows", []ryno.Key{pk(fmt.Sprint("o", i))})
				default:
					err = clients[g].ReplaceRelationships(ctx, subject, "follows", []ryno.Key{object, pk("o1")})
				}
				if err != nil && !errors.Is(err, ryno.ErrNotFound) && !errors.Is(err, ryno.ErrConflict) {
					errs[g] = err // a conflict is a writer losing races, not damage
				}
			}
		})
		require.NoError(t, errors.Join(errs...), "round %d", round)
		requireNothingOf(t, s, subject, false)
	}
}

// TestAListWriteChecksItsSubjectInItsTransactionOnlyWhenItCreatesTheHead records
// the requests of list writes: the first write of a list checks the subject in its
// transaction, and so does every write of a subject that expires (the check holds
// the expiry to the commit); every other one reads the subject with the head, and
// its transaction holds nothing of the entities table.
func TestAListWriteChecksItsSubjectInItsTransactionOnlyWhenItCreatesTheHead(t *testing.T) {
	raw := dynamotest.API(t)
	prefix := dynamotest.Tables(t, raw)
	rec := dynamotest.NewRecorder(raw, dynamotest.RecorderOptions{})
	db := mustNew(t, rec, prefix, nil, ryno.Options{})
	entities := db.Names().Entities
	subject, session := pk("ada"), pk("session")
	createSubjects(t, db, subject)
	_, err := db.Create(ctx, &ryno.Entity{Key: session, Expires: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	require.NoError(t, changed(db.AddRelationships(ctx, session, "follows", pks("o", 1))))

	writes := []struct {
		name        string
		write       func() error
		checks      int // actions on the entities table in the transaction
		readsEntity bool
	}{
		{"the first Add, which creates the head", func() error { return changed(db.AddRelationships(ctx, subject, "follows", pks("o", 2))) }, 1, true},
		{"a later Add", func() error { return changed(db.AddRelationships(ctx, subject, "follows", pks("p", 1))) }, 0, true},
		{"a Remove", func() error { return changed(db.RemoveRelationships(ctx, subject, "follows", pks("o", 1))) }, 0, true},
		{"a Replace", func() error { return db.ReplaceRelationships(ctx, subject, "follows", pks("q", 3)) }, 0, true},
		{"the Replace of a new list", func() error { return db.ReplaceRelationships(ctx, subject, "likes", pks("q", 3)) }, 1, true},
		{"an Add to the list of a subject that expires", func() error { return changed(db.AddRelationships(ctx, session, "follows", pks("p", 1))) }, 1, true},
		{"a transaction of two existing lists of two subjects", func() error {
			_, err := db.Transact(ctx, ryno.TxAddRelationships(subject, "follows", pks("r", 1)), ryno.TxAddRelationships(session, "follows", pks("r", 1)))
			return err
		}, 1, true}, // the session expires
		{"a transaction of two existing lists of one subject", func() error {
			_, err := db.Transact(ctx, ryno.TxAddRelationships(subject, "follows", pks("s", 1)), ryno.TxRemoveRelationships(subject, "likes", pks("q", 1)))
			return err
		}, 0, true},
		{"a transaction creating a list", func() error {
			_, err := db.Transact(ctx, ryno.TxAddRelationships(subject, "follows", pks("t", 1)), ryno.TxAddRelationships(subject, "knows", pks("t", 1)))
			return err
		}, 1, true},
	}
	for _, w := range writes {
		rec.Reset()
		require.NoError(t, w.write(), w.name)
		checks, readsEntity, transactions := 0, false, 0
		for _, r := range rec.Requests() {
			switch in := r.Input.(type) {
			case *dynamodb.TransactWriteItemsInput:
				transactions++
				for _, a := range in.TransactItems {
					if dynamotest.ActionTable(a) == entities {
						checks++
					}
				}
			case *dynamodb.BatchGetItemInput:
				_, ok := in.RequestItems[entities]
				readsEntity = readsEntity || ok
			}
		}
		require.Equal(t, 1, transactions, w.name)
		require.Equal(t, w.checks, checks, "%s: actions on the entities table in its transaction", w.name)
		require.Equal(t, w.readsEntity, readsEntity, "%s: reads the subject with the head", w.name)
	}
	require.Equal(t, slices.Concat(pks("q", 3), pks("r", 1), pks("s", 1), pks("t", 1)), objectsOf(t, db, subject, "follows", 10))
}

// TestAnAddToAnOwnedListCommittingBeforeItsOwnersSweepLeavesNoOrphan holds an Add
// of an issue to its project's owned list until the Delete of the project has
// deleted the issues it found and is about to sweep the project itself: the one
// window where an issue added by a write that read the project before its
// tombstone would be listed too late to be deleted with it. A write of an owned
// list checks its subject in its transaction, so the Add is refused, and the issue
// it named is never owned by a deleted project.
func TestAnAddToAnOwnedListCommittingBeforeItsOwnersSweepLeavesNoOrphan(t *testing.T) {
	for _, inTransaction := range []bool{false, true} {
		t.Run(fmt.Sprint("in a transaction ", inTransaction), func(t *testing.T) {
			addOwnedBeforeTheOwnersSweep(t, inTransaction)
		})
	}
}

// addOwnedBeforeTheOwnersSweep runs the test above, the Add alone or in a
// transaction.
func addOwnedBeforeTheOwnersSweep(t *testing.T, inTransaction bool) {
	writer := newHeldCommit(false)
	owner := treeKey("project", "apollo")
	var sweepingOwner atomic.Bool
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	// The Delete's sweep of the project's own partition is its only Query that
	// reads the heads' versions.
	deleter := func(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
		return beforeQuery{api, func(q *dynamodb.QueryInput) {
			if sweepsOwnPartition(q, owner) {
				once.Do(func() { sweepingOwner.Store(true); close(held); <-release })
			}
		}}
	}
	s := newStoreOpts(t, deleter, ryno.Options{Owns: ownsTree})
	keys := seedTree(t, s, "apollo", 3, 1)
	late := treeKey("issue", "apollo-late")
	_, err := s.Create(ctx, &ryno.Entity{Key: late})
	require.NoError(t, err)
	w := mustNew(t, writer.wrap(s.raw), s.Names().Prefix, nil, ryno.Options{Owns: ownsTree})

	writer.armed.Store(true)
	write := background(func() error {
		if inTransaction {
			_, err := w.Transact(ctx, ryno.TxAddRelationships(owner, "issues", []ryno.Key{late}))
			return err
		}
		return changed(w.AddRelationships(ctx, owner, "issues", []ryno.Key{late}))
	})
	wait(t, writer.held, "the writer's commit")
	del := background(func() error { return s.Delete(ctx, owner) })
	wait(t, held, "the sweep of the project")
	close(writer.release)
	werr := result(t, write, "the Add")
	close(release)
	require.NoError(t, result(t, del, "the Delete"))
	require.True(t, sweepingOwner.Load())

	got, err := s.BatchGet(ctx, append(keys, late))
	require.NoError(t, err)
	for i, e := range got[:len(keys)] {
		require.Nil(t, e, "%s, of the deleted tree", keys[i])
	}
	if werr == nil {
		require.Nil(t, got[len(keys)], "an issue added to the project before its Delete is deleted with it")
	}
	require.ErrorIs(t, werr, ryno.ErrNotFound, "the Add commits after the project's tombstone: refused")
	require.NotNil(t, got[len(keys)], "the issue never added lives on, owned by nobody")
	require.Empty(t, subjectsPointingAt(t, s.Client, late), "and nothing lists it")
	requireNothingOf(t, s, owner, false)
}

// sweepsOwnPartition reports whether q is the query of a Delete's sweep of k's
// partition of the relationship entries table, the one that reads heads' versions.
func sweepsOwnPartition(q *dynamodb.QueryInput, k ryno.Key) bool {
	if q.IndexName != nil || q.ProjectionExpression == nil || !slices.Contains(slices.Collect(maps.Values(q.ExpressionAttributeNames)), "_version") {
		return false
	}
	for _, v := range q.ExpressionAttributeValues {
		if s, ok := v.(*types.AttributeValueMemberS); ok && s.Value == k.String() {
			return true
		}
	}
	return false
}

// beforeQuery is a client that calls before with each Query it sends.
type beforeQuery struct {
	ryno.DynamoDBAPI
	before func(*dynamodb.QueryInput)
}

func (b beforeQuery) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	b.before(in)
	return b.DynamoDBAPI.Query(ctx, in, opts...)
}

// TestATxDeleteOverlappingAListWriteLeavesNoOrphan holds an Add to the emptied
// list of an entity (its head stays) until a TxDelete of the entity has read its
// partition, and the TxDelete until the Add has committed: the TxDelete's delete of
// the head requires the version it read, so it is refused and reads again, and
// finds the entity holding an entry.
func TestATxDeleteOverlappingAListWriteLeavesNoOrphan(t *testing.T) {
	writer, deleter := newHeldCommit(false), newHeldCommit(true)
	s := newStoreOpts(t, nil, ryno.Options{ConsistentRead: true})
	w := mustNew(t, writer.wrap(s.raw), s.Names().Prefix, nil, ryno.Options{})
	d := mustNew(t, deleter.wrap(s.raw), s.Names().Prefix, nil, ryno.Options{})
	subject := pk("emptied")
	createSubjects(t, s.Client, subject)
	require.NoError(t, s.ReplaceRelationships(ctx, subject, "follows", pks("o", 2)))
	require.NoError(t, s.ReplaceRelationships(ctx, subject, "follows", nil))

	writer.armed.Store(true)
	write := background(func() error { return changed(w.AddRelationships(ctx, subject, "follows", pks("late", 1))) })
	wait(t, writer.held, "the writer's commit")
	deleter.armed.Store(true)
	del := background(func() error { _, err := d.Transact(ctx, ryno.TxDelete(subject)); return err })
	wait(t, deleter.held, "the TxDelete's commit")
	close(writer.release)
	require.NoError(t, result(t, write, "the Add"))
	close(deleter.release)
	require.ErrorIs(t, result(t, del, "the TxDelete"), ryno.ErrHasRelationships, "the TxDelete read again and found the entry")
	_, err := s.Get(ctx, subject, ryno.Consistent())
	require.NoError(t, err, "the entity stays, with its list")
	require.Equal(t, pks("late", 1), objectsOf(t, s.Client, subject, "follows", 10))
}

// TestDeletesOfOneEntityRacingEachOtherAllReturn starts 8 Deletes of one entity
// at once, from 8 clients, over rounds: the entity has lists of its own (one too
// large for one transaction) and entries pointing at it. Each sweep deletes the
// heads on the condition that they are as it read them, so the sweeps refuse each
// other's reads and read again; every Delete returns, and nothing is left.
func TestDeletesOfOneEntityRacingEachOtherAllReturn(t *testing.T) {
	dynamotest.Parallel(t)
	const rounds, deleters = 8, 8
	s := newStoreOpts(t, nil, ryno.Options{ConsistentRead: true})
	clients := make([]*ryno.Client, deleters)
	for i := range clients {
		clients[i] = newClientOn(t, s, ryno.Options{})
	}
	fans := pks("fan", 2)
	createSubjects(t, s.Client, fans...)
	for round := range rounds {
		k := pk(fmt.Sprintf("target%02d", round))
		createSubjects(t, s.Client, k)
		require.NoError(t, s.ReplaceRelationships(ctx, k, "follows", pks("o", 150)))
		require.NoError(t, s.ReplaceRelationships(ctx, k, "likes", pks("l", 3)))
		for _, f := range fans {
			require.NoError(t, changed(s.AddRelationships(ctx, f, "follows", []ryno.Key{k})))
		}
		errs := make([]error, deleters)
		race(deleters, func(g int) { errs[g] = clients[g].Delete(ctx, k) })
		require.NoError(t, errors.Join(errs...), "round %d", round)
		requireNothingOf(t, s, k, true)
		for _, f := range fans {
			requireListExact(t, s, f, "follows")
		}
	}
}

// TestADeleteEndsWhenAHeadOfItsListsIsDamaged deletes an entity one of whose list
// heads holds a _version that is no number (written by hand, say): the Delete deletes
// that head on the condition that it is as read, whatever its type, and returns
// rather than read again until its attempts run out.
func TestADeleteEndsWhenAHeadOfItsListsIsDamaged(t *testing.T) {
	tests := []struct {
		name    string
		version types.AttributeValue
	}{
		{"a string", &types.AttributeValueMemberS{Value: "seven"}},
		{"a fraction", &types.AttributeValueMemberN{Value: "1.5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStoreOpts(t, nil, ryno.Options{ConsistentRead: true})
			subject := pk("damaged")
			createSubjects(t, s.Client, subject)
			require.NoError(t, s.ReplaceRelationships(ctx, subject, "follows", pks("o", 3)))
			damage{t, s}.setHead(subject, "follows", schema.AttrVersion, tt.version)

			require.NoError(t, s.Delete(ctx, subject))
			requireNothingOf(t, s, subject, false)
		})
	}
}

// TestATransactionWhoseListOperationChangesNothingStillNeedsItsSubject holds a
// transaction whose list operations change nothing (a Remove of an object the list
// does not hold, an Add of one it holds) while a Delete of their subject runs to
// its end: the transaction writes no head, so nothing stands for the subject but a
// check of it, and it must fail with ErrNotFound rather than commit its other
// operations after the subject is gone.
func TestATransactionWhoseListOperationChangesNothingStillNeedsItsSubject(t *testing.T) {
	tests := []struct {
		name string
		op   func(subject ryno.Key) ryno.Op
	}{
		{"a Remove of an object the list does not hold", func(subject ryno.Key) ryno.Op {
			return ryno.TxRemoveRelationships(subject, "follows", pks("absent", 1))
		}},
		{"an Add of an object the list holds", func(subject ryno.Key) ryno.Op {
			return ryno.TxAddRelationships(subject, "follows", pks("o", 1))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			writer := newHeldCommit(false)
			s := newStoreOpts(t, nil, ryno.Options{ConsistentRead: true})
			w := mustNew(t, writer.wrap(s.raw), s.Names().Prefix, nil, ryno.Options{})
			subject, created := pk("doomed"), pk("created")
			createSubjects(t, s.Client, subject)
			require.NoError(t, s.ReplaceRelationships(ctx, subject, "follows", pks("o", 2)))

			writer.armed.Store(true)
			tx := background(func() error {
				_, err := w.Transact(ctx, tt.op(subject), ryno.TxCreate(&ryno.Entity{Key: created}))
				return err
			})
			wait(t, writer.held, "the transaction's commit")
			require.NoError(t, s.Delete(ctx, subject))
			close(writer.release)
			require.ErrorIs(t, result(t, tx, "the transaction"), ryno.ErrNotFound)
			_, err := s.Get(ctx, created, ryno.Consistent())
			require.ErrorIs(t, err, ryno.ErrNotFound, "nothing of the transaction was written")
			requireNothingOf(t, s, subject, false)
		})
	}
}

// nthCommits holds the TransactWriteItems of the client it wraps whose numbers
// (from 1) are in gates, each until its release, and says when each is held.
type nthCommits struct {
	count atomic.Int32
	gates map[int32]*gate
}

type gate struct{ held, release chan struct{} }

func newNthCommits(ns ...int32) *nthCommits {
	g := &nthCommits{gates: map[int32]*gate{}}
	for _, n := range ns {
		g.gates[n] = &gate{held: make(chan struct{}), release: make(chan struct{})}
	}
	return g
}

func (g *nthCommits) wrap(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
	return dynamotest.Wrap(api, func(ctx context.Context, op string, send func(context.Context) error) error {
		if op == "TransactWriteItems" {
			if gt, ok := g.gates[g.count.Add(1)]; ok {
				close(gt.held)
				<-gt.release
			}
		}
		return send(ctx)
	})
}

// TestATxDeleteOfAnEntityWhoseListIsLeasedIsRefused runs a TxDelete while a write
// too large for one transaction holds a list of the entity under its lease: the
// writer's transactions check the lease and the entity, but change neither the
// head's version nor the entity's, so a TxDelete committing after one of them would
// leave its entries behind. The TxDelete is refused with ErrHasRelationships, and
// the write completes.
func TestATxDeleteOfAnEntityWhoseListIsLeasedIsRefused(t *testing.T) {
	// A leased Add sends the lease, the intent, two transactions of entries, then the
	// release: hold the two of entries.
	writer, deleter := newNthCommits(3, 4), newHeldCommit(false)
	s := newStoreOpts(t, nil, ryno.Options{ConsistentRead: true})
	w := mustNew(t, writer.wrap(s.raw), s.Names().Prefix, nil, ryno.Options{})
	d := mustNew(t, deleter.wrap(s.raw), s.Names().Prefix, nil, ryno.Options{})
	subject, objects := pk("leased"), pks("big", 60)
	createSubjects(t, s.Client, subject)
	require.NoError(t, s.ReplaceRelationships(ctx, subject, "follows", pks("o", 2)))
	require.NoError(t, s.ReplaceRelationships(ctx, subject, "follows", nil))

	write := background(func() error { return changed(w.AddRelationships(ctx, subject, "follows", objects)) })
	wait(t, writer.gates[3].held, "the writer's first transaction of entries")
	deleter.armed.Store(true)
	del := background(func() error { _, err := d.Transact(ctx, ryno.TxDelete(subject)); return err })
	var delErr error
	select {
	case delErr = <-del: // refused as it read
		close(writer.gates[3].release)
	case <-deleter.held: // planned: let the writer's entries commit before it
		close(writer.gates[3].release)
		wait(t, writer.gates[4].held, "the writer's second transaction of entries")
		close(deleter.release)
		delErr = result(t, del, "the TxDelete")
	case <-time.After(2 * time.Minute):
		t.Fatal("the TxDelete neither returned nor committed")
	}
	close(writer.gates[4].release)
	werr := result(t, write, "the Add")
	require.ErrorIs(t, delErr, ryno.ErrHasRelationships, "a list under a lease is gaining entries")
	require.NoError(t, werr)
	require.Equal(t, objects, objectsOf(t, s.Client, subject, "follows", 100))
	requireListExact(t, s, subject, "follows")
}

// TestASweepOfAMissingEntityOverlappingItsCreationLeavesItsListWhole removes an
// entity's item alone (as DynamoDB's time to live does), leaving a list too large
// for one sweep transaction, and has a Delete of the key sweep it. One of the sweep's
// transactions is held while the entity is created anew, then released. Whatever
// the sweep deleted, the new life's list is whole: its head counts its entries and
// its markers name them.
func TestASweepOfAMissingEntityOverlappingItsCreationLeavesItsListWhole(t *testing.T) {
	for _, way := range []string{"Delete", "Cleanup"} {
		t.Run(way, func(t *testing.T) {
			s := newStoreOpts(t, nil, ryno.Options{ConsistentRead: true})
			subject := pk("left")
			createSubjects(t, s.Client, subject)
			require.NoError(t, s.ReplaceRelationships(ctx, subject, "follows", pks("o", 150)))
			_, err := s.raw.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.Names().Entities),
				Key: entityKeyItem(subject)})
			require.NoError(t, err)

			sweeper := newHeldCommit(false)
			d := mustNew(t, sweeper.wrap(s.raw), s.Names().Prefix, nil, ryno.Options{ConsistentRead: true})
			sweeper.armed.Store(true)
			sweep := background(func() error {
				if way == "Cleanup" {
					return d.Cleanup(ctx, subject)
				}
				return d.Delete(ctx, subject)
			})
			wait(t, sweeper.held, "the sweep's first transaction")
			created := background(func() error {
				_, err := s.Create(ctx, &ryno.Entity{Key: subject})
				return err
			})
			select { // the Create may wait for the sweep: let it send what it can first
			case err := <-created:
				created = background(func() error { return err })
			case <-time.After(2 * time.Second):
			}
			close(sweeper.release)
			if err := result(t, sweep, "the sweep"); !errors.Is(err, ryno.ErrNotFound) {
				require.NoError(t, err)
			}
			require.NoError(t, result(t, created, "the Create"))

			requireListExact(t, s, subject, "follows")
			_, err = s.AddRelationships(ctx, subject, "follows", []ryno.Key{pk("new")})
			require.NoError(t, err)
			requireListExact(t, s, subject, "follows")
		})
	}
}

// TestACleanupMeetingTheTombstoneOfACleanupCutOffCompletesIt leaves what a sweep of
// a missing entity cut off leaves, its tombstone on the missing key and a few
// entries, and cleans up again: the second call completes the first.
func TestACleanupMeetingTheTombstoneOfACleanupCutOffCompletesIt(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{ConsistentRead: true})
	subject := pk("left")
	createSubjects(t, s.Client, subject)
	require.NoError(t, s.ReplaceRelationships(ctx, subject, "follows", pks("o", 3)))
	_, err := s.raw.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.Names().Entities), Item: map[string]types.AttributeValue{
		schema.AttrID: str(subject.ID), schema.AttrScopeTypeKey: str(schema.ScopeTypeKey(subject.Scope, subject.Type)),
		schema.AttrScope: str(subject.Scope), schema.AttrType: str(subject.Type),
		schema.AttrDeleting: str("cut"), schema.AttrToken: str("cut"),
	}})
	require.NoError(t, err)

	require.NoError(t, s.Cleanup(ctx, subject))
	requireNothingOf(t, s, subject, false)
}
