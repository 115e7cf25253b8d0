package integration_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/changes"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// ownsTree declares that projects own their issues and issues their comments.
var ownsTree = []ryno.Owns{{Type: "project", Predicate: "issues"}, {Type: "issue", Predicate: "comments"}}

func treeKey(typ, id string) ryno.Key { return ryno.Key{Scope: "acme", Type: typ, ID: id} }

// seedTree creates a project with issues of comments, each listed by its owner,
// and a person who follows the project and stars an issue; it returns every key of
// the tree, the project first.
func seedTree(t *testing.T, s *store, project string, issues, comments int) []ryno.Key {
	t.Helper()
	root := treeKey("project", project)
	keys := []ryno.Key{root}
	createSubjects(t, s.Client, root)
	var issueKeys []ryno.Key
	var mu sync.Mutex
	errs := make([]error, issues)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range issues {
		issue := treeKey("issue", fmt.Sprintf("%s-%d", project, i))
		issueKeys = append(issueKeys, issue)
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			var cs []ryno.Key
			if _, err := s.Create(ctx, &ryno.Entity{Key: issue}); err != nil {
				errs[i] = err
				return
			}
			for j := range comments {
				c := treeKey("comment", fmt.Sprintf("%s-%d", issue.ID, j))
				if _, err := s.Create(ctx, &ryno.Entity{Key: c}); err != nil {
					errs[i] = err
					return
				}
				cs = append(cs, c)
			}
			_, errs[i] = s.AddRelationships(ctx, issue, "comments", cs)
			mu.Lock()
			keys = append(keys, issue)
			keys = append(keys, cs...)
			mu.Unlock()
		})
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	require.NoError(t, s.ReplaceRelationships(ctx, root, "issues", issueKeys))
	fan := pk("fan-" + project)
	createSubjects(t, s.Client, fan)
	require.NoError(t, s.ReplaceRelationships(ctx, fan, "follows", []ryno.Key{root, issueKeys[0]}))
	return keys
}

// requireTreeGone checks that nothing is left of the tree's entities, and that Check
// finds nothing.
func requireTreeGone(t *testing.T, s *store, keys []ryno.Key) {
	t.Helper()
	got, err := s.BatchGet(ctx, keys)
	require.NoError(t, err)
	for i, e := range got {
		require.Nil(t, e, "%s is deleted", keys[i])
	}
	for _, k := range keys[:min(len(keys), 20)] {
		requireNothingOf(t, s, k, true)
	}
	progress, err := s.Check(ctx, ryno.CheckOptions{})
	require.NoError(t, err)
	require.Zero(t, progress.Orphans+progress.Traces, "no orphan, nothing left half-done")
}

func TestDeletingAnOwnerDeletesWhatItOwnsRecursively(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreOpts(t, nil, ryno.Options{Owns: ownsTree})
	keys := seedTree(t, s, "rocket", 120, 3)
	other := seedTree(t, s, "boat", 3, 1) // another project's tree stays

	require.NoError(t, s.Delete(ctx, keys[0]))
	requireTreeGone(t, s, keys)
	require.Empty(t, objectsOf(t, s.Client, pk("fan-rocket"), "follows", 10), "what pointed into the tree is gone too")
	got, err := s.BatchGet(ctx, other)
	require.NoError(t, err)
	for i, e := range got {
		require.NotNil(t, e, "%s of another project stays", other[i])
	}
}

// checkRepair runs check --repair over the store of s: one of the ways a user
// completes what a writer left.
func checkRepair(s *store, _ ryno.Key) error {
	_, err := s.Check(ctx, ryno.CheckOptions{Repair: true})
	return err
}

// TestADeleteOfAnOwnerCutOffIsCompletedWithWhatItOwns cuts a Delete of a project
// off after a few of its transactions, then completes it in each way a user may:
// Delete again, a write of the project, check --repair.
func TestADeleteOfAnOwnerCutOffIsCompletedWithWhatItOwns(t *testing.T) {
	dynamotest.Parallel(t)
	completers := []struct {
		name     string
		complete func(s *store, root ryno.Key) error
	}{
		{"Delete again", func(s *store, root ryno.Key) error { return s.Delete(ctx, root) }},
		{"a Set of the project", func(s *store, root ryno.Key) error {
			_, err := s.Set(ctx, &ryno.Entity{Key: root})
			return err
		}},
		{"check --repair", checkRepair},
	}
	for _, tt := range completers {
		t.Run(tt.name, func(t *testing.T) {
			s := newStoreOpts(t, nil, ryno.Options{Owns: ownsTree})
			keys := seedTree(t, s, "rocket", 30, 2)
			cut := newFaultyClient(t, s, ryno.Options{Owns: ownsTree, MaxConcurrency: 1, Retry: ryno.RetryOptions{MaxAttempts: 1}})
			cut.faults.FailAfter("TransactWriteItems", 7, func() error { return errInjected })
			require.ErrorIs(t, cut.db.Delete(ctx, keys[0]), errInjected)
			_, err := s.Get(ctx, keys[0])
			require.ErrorIs(t, err, ryno.ErrNotFound, "the project reads as deleted at once")

			// A child added under the owner being deleted is refused, with its create.
			late := treeKey("issue", "late")
			_, err = s.Transact(ctx, ryno.TxCreate(&ryno.Entity{Key: late}), ryno.TxAddRelationships(keys[0], "issues", []ryno.Key{late}))
			require.ErrorIs(t, err, ryno.ErrNotFound)
			_, err = s.Get(ctx, late)
			require.ErrorIs(t, err, ryno.ErrNotFound)

			require.NoError(t, tt.complete(s, keys[0]))
			if tt.name == "a Set of the project" {
				keys = keys[1:] // created anew, with no issue
				issues, err := s.CountRelationships(ctx, treeKey("project", "rocket"), "issues")
				require.NoError(t, err)
				require.Zero(t, issues)
			}
			requireTreeGone(t, s, keys)
		})
	}
}

func TestOwnershipThatLoopsEnds(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Owns: []ryno.Owns{{Type: "node", Predicate: "children"}}})
	a, b := treeKey("node", "a"), treeKey("node", "b")
	createSubjects(t, s.Client, a, b)
	require.NoError(t, s.ReplaceRelationships(ctx, a, "children", []ryno.Key{b, a}))
	require.NoError(t, s.ReplaceRelationships(ctx, b, "children", []ryno.Key{a}))
	require.NoError(t, s.Delete(ctx, a))
	requireTreeGone(t, s, []ryno.Key{a, b})

	_, err := ryno.New(s.raw, ryno.Options{TablePrefix: s.Names().Prefix, Owns: []ryno.Owns{{Type: "", Predicate: "x"}}})
	require.ErrorIs(t, err, ryno.ErrInvalid)
}

// TestADeleteInTheBackgroundReturnsOnceTheOwnerReadsAsDeleted deletes a project
// owning 100 issues of 3 comments with InBackground, while every request after
// the tombstone is held: the call returns all the same, the project reads as
// missing at once, and Wait returns when the whole tree is gone.
func TestADeleteInTheBackgroundReturnsOnceTheOwnerReadsAsDeleted(t *testing.T) {
	dynamotest.Parallel(t)
	var held atomic.Pointer[chan struct{}]
	var tombstone atomic.Bool
	s := newStoreOpts(t, func(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
		return dynamotest.Wrap(api, func(ctx context.Context, op string, send func(context.Context) error) error {
			if gate := held.Load(); gate != nil && !(op == "UpdateItem" && tombstone.CompareAndSwap(false, true)) {
				<-*gate
			}
			return send(ctx)
		})
	}, ryno.Options{Owns: ownsTree})
	keys := seedTree(t, s, "rocket", 100, 3)
	gate := make(chan struct{})
	held.Store(&gate)

	require.NoError(t, s.Delete(ctx, keys[0], ryno.InBackground()), "returns with the rest held")
	reader := newClientOn(t, s, ryno.Options{})
	_, err := reader.Get(ctx, keys[0])
	require.ErrorIs(t, err, ryno.ErrNotFound, "the project reads as deleted at once")
	close(gate)

	require.NoError(t, s.Wait(ctx))
	requireTreeGone(t, s, keys)

	_, err = s.Set(ctx, &ryno.Entity{Key: keys[0]}, ryno.InBackground())
	require.ErrorIs(t, err, ryno.ErrInvalid, "a Delete option")
}

// deletingOp reports whether a request of op deletes something: what a sweep sends.
func deletingOp(op string) bool {
	return op == "TransactWriteItems" || op == "DeleteItem" || op == "BatchWriteItem"
}

// deleteGate holds every deleting request of the client it wraps, once armed,
// until released, and says when the first of them arrives.
type deleteGate struct {
	armed    atomic.Bool
	first    sync.Once
	deleting chan struct{} // closed when the first deleting request is held
	release  chan struct{}
}

func newDeleteGate() *deleteGate {
	return &deleteGate{deleting: make(chan struct{}), release: make(chan struct{})}
}

// wrap is the wrapper of newStoreOpts that holds the requests.
func (g *deleteGate) wrap(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
	return dynamotest.Wrap(api, func(ctx context.Context, op string, send func(context.Context) error) error {
		if g.armed.Load() && deletingOp(op) {
			g.first.Do(func() { close(g.deleting) })
			<-g.release
		}
		return send(ctx)
	})
}

// awaitDeleting waits until the first deleting request is held, failing the test
// (with everything released) when none comes.
func (g *deleteGate) awaitDeleting(t *testing.T) {
	t.Helper()
	select {
	case <-g.deleting:
	case <-time.After(2 * time.Minute):
		close(g.release)
		t.Fatal("the Delete never began to delete")
	}
}

// TestADeleteOfAnOwnerHidesTheWholeTreeBeforeItDeletesAny deletes a project owning
// 60 issues of 3 comments in the background while every request that deletes
// something (TransactWriteItems, DeleteItem, BatchWriteItem) is held. When the
// first of them is sent, every entity of the tree already reads as missing, and a
// comment added under any issue is refused with its create; once released, the
// Delete leaves nothing. It runs one entity at a time and MaxConcurrency at once.
func TestADeleteOfAnOwnerHidesTheWholeTreeBeforeItDeletesAny(t *testing.T) {
	dynamotest.Parallel(t)
	for _, concurrency := range []int{1, 32} {
		t.Run(fmt.Sprint("MaxConcurrency ", concurrency), func(t *testing.T) {
			gate := newDeleteGate()
			s := newStoreOpts(t, gate.wrap, ryno.Options{Owns: ownsTree, MaxConcurrency: concurrency})
			keys := seedTree(t, s, "rocket", 60, 3)
			reader := newClientOn(t, s, ryno.Options{Owns: ownsTree})

			gate.armed.Store(true)
			require.NoError(t, s.Delete(ctx, keys[0], ryno.InBackground()))
			gate.awaitDeleting(t)
			got, err := reader.BatchGet(ctx, keys)
			require.NoError(t, err)
			var visible []string
			for i, e := range got {
				if e != nil {
					visible = append(visible, keys[i].String())
				}
			}
			require.Empty(t, visible, "when the first delete is sent, the whole tree of %d reads as missing; %d do not, such as %v",
				len(keys), len(visible), visible[:min(len(visible), 5)])
			for _, issue := range []ryno.Key{treeKey("issue", "rocket-0"), treeKey("issue", "rocket-59")} {
				late := treeKey("comment", "late-"+issue.ID)
				_, err = reader.Transact(ctx, ryno.TxCreate(&ryno.Entity{Key: late}), ryno.TxAddRelationships(issue, "comments", []ryno.Key{late}))
				require.ErrorIs(t, err, ryno.ErrNotFound, "a comment added under %s is refused", issue)
				_, err = reader.Get(ctx, late)
				require.ErrorIs(t, err, ryno.ErrNotFound)
			}

			close(gate.release)
			require.NoError(t, s.Wait(ctx))
			requireTreeGone(t, s, keys)
		})
	}
}

// TestADeleteOfAnOwnerLeavesWhatANewLifeOfItOwns holds a Delete of a project after
// it marked the tree, while another client completes the Delete and creates the
// project anew, with a new issue and an issue of the old key, each with a comment.
// Released, the first Delete deletes nothing of the new tree: objects it did not
// mark are the new life's, and the marks it made were completed by the other.
func TestADeleteOfAnOwnerLeavesWhatANewLifeOfItOwns(t *testing.T) {
	dynamotest.Parallel(t)
	gate := newDeleteGate()
	// One entity at a time: the last issue is reached after the release.
	s := newStoreOpts(t, gate.wrap, ryno.Options{Owns: ownsTree, MaxConcurrency: 1})
	keys := seedTree(t, s, "rocket", 6, 1)
	other := newClientOn(t, s, ryno.Options{Owns: ownsTree})

	gate.armed.Store(true)
	require.NoError(t, s.Delete(ctx, keys[0], ryno.InBackground()))
	gate.awaitDeleting(t)
	require.NoError(t, other.Delete(ctx, keys[0]), "another client completes the Delete")
	requireTreeGone(t, s, keys)

	project, fresh, reused := keys[0], treeKey("issue", "fresh"), treeKey("issue", "rocket-5")
	newTree := []ryno.Key{project, fresh, reused, treeKey("comment", "fresh-c"), treeKey("comment", "rocket-5-c")}
	createSubjects(t, other, newTree...)
	require.NoError(t, other.ReplaceRelationships(ctx, project, "issues", []ryno.Key{fresh, reused}))
	require.NoError(t, other.ReplaceRelationships(ctx, fresh, "comments", []ryno.Key{newTree[3]}))
	require.NoError(t, other.ReplaceRelationships(ctx, reused, "comments", []ryno.Key{newTree[4]}))

	close(gate.release)
	require.NoError(t, s.Wait(ctx))
	got, err := other.BatchGet(ctx, newTree)
	require.NoError(t, err)
	for i, e := range got {
		require.NotNil(t, e, "%s of the new life stays", newTree[i])
	}
	require.Equal(t, []ryno.Key{fresh, reused}, objectsOf(t, other, project, "issues", 10))
	require.Equal(t, []ryno.Key{newTree[4]}, objectsOf(t, other, reused, "comments", 10))
}

// TestAStreamConsumerCompletesADeleteOfATreeCutOff cuts a Delete of a project off
// after a few of its transactions, as a Lambda function ended at its timeout would,
// then hands the entities table's stream to a changes.Completer: it finds the
// Delete begun (EntityDeleting) and completes it, tree included. Records delivered
// again, and late after the project was created anew, change nothing more.
func TestAStreamConsumerCompletesADeleteOfATreeCutOff(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreOpts(t, nil, ryno.Options{Owns: ownsTree})
	enableStreams(t, s)
	keys := seedTree(t, s, "rocket", 30, 2)
	cut := newFaultyClient(t, s, ryno.Options{Owns: ownsTree, MaxConcurrency: 1, Retry: ryno.RetryOptions{MaxAttempts: 1}})
	cut.faults.FailAfter("TransactWriteItems", 7, func() error { return errInjected })
	require.ErrorIs(t, cut.db.Delete(ctx, keys[0]), errInjected)

	table := s.Names().Entities
	_, records := dynamotest.StreamRecords(t, s.raw, table)
	d, err := changes.NewDecoder(s.Names().Prefix)
	require.NoError(t, err)
	var begun []string
	for _, r := range records {
		cs, err := d.Stream(table, r)
		require.NoError(t, err)
		begun = append(begun, byKind(cs, changes.EntityDeleting)...)
	}
	require.Contains(t, begun, "entity-deleting "+keys[0].String()+" v2", "the Delete begun is in the stream")
	stored := entityItems(t, s.raw, s.Names())
	left := slices.DeleteFunc(slices.Clone(keys), func(k ryno.Key) bool { return stored[k.String()] == nil })
	require.NotEmpty(t, left, "the Delete was cut off with some of the tree left (marked, so reading as missing)")

	completer, err := changes.NewCompleter(s.Client)
	require.NoError(t, err)
	n, err := completer.Stream(ctx, table, records)
	require.NoError(t, err)
	require.Equal(t, len(records), n)
	requireTreeGone(t, s, keys)

	// Every record again, those of the completion too; then late, once the project
	// exists anew.
	_, records = dynamotest.StreamRecords(t, s.raw, table)
	_, err = completer.Stream(ctx, table, records)
	require.NoError(t, err)
	requireTreeGone(t, s, keys)
	_, err = s.Create(ctx, &ryno.Entity{Key: keys[0]})
	require.NoError(t, err)
	_, err = completer.Stream(ctx, table, records)
	require.NoError(t, err)
	_, err = s.Get(ctx, keys[0])
	require.NoError(t, err, "the project created anew stays")
}

// TestAStreamConsumerCompletesADeleteBesideTheDeleteItself runs a Completer on the
// record of a Delete InBackground while the Delete's own goroutine deletes the same
// tree: the goroutine's requests after the tombstone wait until the consumer has
// written, then both go on together. The two share the work, neither fails, and
// nothing is left.
func TestAStreamConsumerCompletesADeleteBesideTheDeleteItself(t *testing.T) {
	dynamotest.Parallel(t)
	for round := range 3 {
		var armed, held, wrote atomic.Bool
		release := make(chan struct{})
		var released sync.Once
		let := func() { released.Do(func() { close(release) }) }
		s := newStoreOpts(t, func(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
			return dynamotest.Wrap(api, func(ctx context.Context, op string, send func(context.Context) error) error {
				if held.Load() {
					select { // bounded: a consumer that never writes fails the test below
					case <-release:
					case <-time.After(20 * time.Second):
						let()
					}
				}
				err := send(ctx)
				if op == "UpdateItem" && armed.CompareAndSwap(true, false) {
					held.Store(true) // the tombstone landed
				}
				return err
			})
		}, ryno.Options{Owns: ownsTree, MaxConcurrency: 4})
		enableStreams(t, s)
		keys := seedTree(t, s, fmt.Sprint("rocket", round), 40, 2)
		armed.Store(true)
		require.NoError(t, s.Delete(ctx, keys[0], ryno.InBackground()))
		table := s.Names().Entities
		_, records := dynamotest.StreamRecords(t, s.raw, table)
		consumerAPI := dynamotest.Wrap(s.raw, func(ctx context.Context, op string, send func(context.Context) error) error {
			err := send(ctx)
			if op == "TransactWriteItems" || op == "DeleteItem" {
				wrote.Store(true)
				let()
			}
			return err
		})
		other := mustNew(t, consumerAPI, s.Names().Prefix, nil, ryno.Options{Owns: ownsTree, MaxConcurrency: 4})
		completer, err := changes.NewCompleter(other)
		require.NoError(t, err)

		var wg sync.WaitGroup
		var consumed error
		wg.Go(func() { _, consumed = completer.Stream(ctx, table, records) })
		require.NoError(t, s.Wait(ctx), "round %d: the Delete's own goroutine", round)
		wg.Wait()
		require.NoError(t, consumed, "round %d: the consumer", round)
		require.True(t, wrote.Load(), "round %d: the consumer wrote: it completed the Delete it was given", round)
		requireTreeGone(t, s, keys)
	}
}

// TestATxDeleteOfAnOwnerIsRefusedBeforeAnyRequest: a TxDelete puts no tombstone, so
// an Add to an owned list or set committing between its read and its commit would
// list a child under an owner gone, alive for good. A TxDelete of an entity of a
// type that owns anything is refused before any request; Delete deletes it with
// what it owns.
func TestATxDeleteOfAnOwnerIsRefusedBeforeAnyRequest(t *testing.T) {
	var sent atomic.Int32
	s := newStoreOpts(t, nil, ryno.Options{Owns: ownsTree})
	db := mustNew(t, dynamotest.Wrap(s.raw, func(ctx context.Context, op string, send func(context.Context) error) error {
		sent.Add(1)
		return send(ctx)
	}), s.Names().Prefix, nil, ryno.Options{Owns: ownsTree})
	project, note := treeKey("project", "empty"), treeKey("note", "n")
	createSubjects(t, s.Client, project)

	_, err := db.Transact(ctx, ryno.TxDelete(project), ryno.TxCreate(&ryno.Entity{Key: note}))
	require.ErrorIs(t, err, ryno.ErrInvalid)
	var invalid *ryno.ValidationError
	require.ErrorAs(t, err, &invalid)
	require.Contains(t, invalid.Reason, "Delete")
	require.Zero(t, sent.Load(), "refused before any request")
	_, err = s.Get(ctx, project, ryno.Consistent())
	require.NoError(t, err, "the project stays")

	// An entity of a type that owns nothing is deleted in a transaction as before.
	_, err = db.Transact(ctx, ryno.TxDelete(treeKey("comment", "none")), ryno.TxCreate(&ryno.Entity{Key: note}))
	require.NoError(t, err)
}

// TestADeleteOfAnOwnerStalledBeforeItReadsItsListsMarksNothingOfANewLife holds a
// Delete of a project (in the background, as a Lambda function frozen after its
// response would) just before its first read of the project's issues. Another
// client completes the Delete, and the project is created anew with issues of its
// own. Released, the stalled Delete reads the new life's list: it must see that the
// project no longer holds its tombstone, and mark and delete nothing of it.
func TestADeleteOfAnOwnerStalledBeforeItReadsItsListsMarksNothingOfANewLife(t *testing.T) {
	gate := newHeldRequest("Query")
	s := newStoreOpts(t, nil, ryno.Options{Owns: ownsTree})
	stalled := mustNew(t, gate.wrap(s.raw), s.Names().Prefix, nil, ryno.Options{Owns: ownsTree})
	keys := seedTree(t, s, "rocket", 3, 1)

	gate.armed.Store(true)
	require.NoError(t, stalled.Delete(ctx, keys[0], ryno.InBackground()))
	wait(t, gate.held, "the Delete's first read of the project's issues")
	require.NoError(t, s.Delete(ctx, keys[0]), "another client completes the Delete")
	requireTreeGone(t, s, keys)

	project, fresh, reused := keys[0], treeKey("issue", "fresh"), treeKey("issue", "rocket-2")
	newTree := []ryno.Key{project, fresh, reused, treeKey("comment", "fresh-c")}
	createSubjects(t, s.Client, newTree...)
	require.NoError(t, s.ReplaceRelationships(ctx, project, "issues", []ryno.Key{fresh, reused}))
	require.NoError(t, s.ReplaceRelationships(ctx, fresh, "comments", newTree[3:]))

	close(gate.release)
	require.NoError(t, stalled.Wait(ctx))
	got, err := s.BatchGet(ctx, newTree)
	require.NoError(t, err)
	for i, e := range got {
		require.NotNil(t, e, "%s of the new life stays", newTree[i])
	}
	require.Equal(t, []ryno.Key{fresh, reused}, objectsOf(t, s.Client, project, "issues", 10))
	require.Equal(t, newTree[3:], objectsOf(t, s.Client, fresh, "comments", 10))
}

// TestAnOwnerRemovedAloneHasWhatItOwnsDeleted removes a project's item alone, as
// DynamoDB's time to live does when no writer met the project after it expired: its
// list of issues is still there, and each way of cleaning up after a missing entity
// (a stream consumer's Cleanup, check --repair, a Delete of the missing key) deletes
// the issues and their comments with it, rather than leave them alive with nothing
// pointing at them.
func TestAnOwnerRemovedAloneHasWhatItOwnsDeleted(t *testing.T) {
	dynamotest.Parallel(t)
	ways := []struct {
		name    string
		cleanUp func(s *store, k ryno.Key) error
	}{
		{"Cleanup", func(s *store, k ryno.Key) error { return s.Cleanup(ctx, k) }},
		{"check --repair", checkRepair},
		{"Delete", func(s *store, k ryno.Key) error { return s.Delete(ctx, k) }},
	}
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			s := newStoreOpts(t, nil, ryno.Options{Owns: ownsTree})
			keys := seedTree(t, s, "rocket", 12, 2)
			_, err := s.raw.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.Names().Entities),
				Key: entityKeyItem(keys[0])})
			require.NoError(t, err)

			require.NoError(t, w.cleanUp(s, keys[0]))
			requireTreeGone(t, s, keys)
		})
	}
}
