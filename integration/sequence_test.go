package integration_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// issueOf is issue n of a project: a doc whose unique slug is the project's id and
// the number, so a number drawn twice would be refused by the unique index.
func issueOf(project ryno.Key, n int64) *ryno.Entity {
	return doc(fmt.Sprintf("%s-%d", project.ID, n), fmt.Sprintf("%s#%d", project.ID, n), 1)
}

func createIssue(project ryno.Key) func(n int64) ([]ryno.Op, error) {
	return func(n int64) ([]ryno.Op, error) {
		return []ryno.Op{ryno.TxCreate(issueOf(project, n))}, nil
	}
}

// TestConcurrentDrawsFromOneSequenceNumberOneToN has 20 goroutines at a barrier
// each create an issue numbered from one project's sequence, over several rounds:
// every call succeeds, and the numbers are 1 to 20 exactly, each the number of the
// issue its call created.
func TestConcurrentDrawsFromOneSequenceNumberOneToN(t *testing.T) {
	dynamotest.Parallel(t)
	const drawers, rounds = 20, 3
	s := newStoreOpts(t, nil, ryno.Options{Indexes: slugIndexes})
	for round := range rounds {
		project := pk(fmt.Sprintf("project%d", round))
		createSubjects(t, s.Client, project)
		start := make(chan struct{})
		var wg sync.WaitGroup
		numbers := make([]int64, drawers)
		errs := make([]error, drawers)
		for g := range drawers {
			wg.Go(func() {
				<-start
				n, results, err := s.TransactNext(ctx, project, "issues", createIssue(project))
				numbers[g], errs[g] = n, err
				if err == nil && results[0].Entity.ID != issueOf(project, n).ID {
					errs[g] = fmt.Errorf("drew %d, created %s", n, results[0].Entity.ID)
				}
			})
		}
		close(start)
		wg.Wait()
		require.NoError(t, errors.Join(errs...), "round %d", round)
		slices.Sort(numbers)
		for i, n := range numbers {
			require.Equal(t, int64(i+1), n, "round %d: numbers 1 to %d, each once", round, drawers)
		}
		last, err := s.Sequence(ctx, project, "issues")
		require.NoError(t, err)
		require.Equal(t, int64(drawers), last)
		for n := int64(1); n <= drawers; n++ {
			_, err := s.Get(ctx, issueOf(project, n).Key)
			require.NoError(t, err, "round %d: issue %d", round, n)
		}
	}
}

// TestADrawAndAListOfItsOwnerCommitTogether has 8 goroutines at a barrier each
// create an issue numbered from a project's sequence and add it to the project's
// list in the same transaction (one check of the project serves both): the numbers
// are 1 to 8, and the list holds the issues in the order of their numbers, as their
// commits came. Two lists of the project in one transaction commit too. A project
// that does not exist refuses the whole transaction.
func TestADrawAndAListOfItsOwnerCommitTogether(t *testing.T) {
	dynamotest.Parallel(t)
	const drawers = 8
	s := newStoreOpts(t, nil, ryno.Options{Indexes: slugIndexes})
	project := pk("listed")
	createSubjects(t, s.Client, project)
	build := func(project ryno.Key) func(n int64) ([]ryno.Op, error) {
		return func(n int64) ([]ryno.Op, error) {
			issue := issueOf(project, n)
			return []ryno.Op{ryno.TxCreate(issue), ryno.TxAddRelationships(project, "issues", []ryno.Key{issue.Key})}, nil
		}
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	errs := make([]error, drawers)
	for g := range drawers {
		wg.Go(func() {
			<-start
			_, _, errs[g] = s.TransactNext(ctx, project, "issues", build(project))
		})
	}
	close(start)
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	var want []ryno.Key
	for n := int64(1); n <= drawers; n++ {
		want = append(want, issueOf(project, n).Key)
	}
	require.Equal(t, want, objectsOf(t, s.Client, project, "issues", 100))

	// Two lists of one subject in one transaction: one check of it too.
	_, err := s.Transact(ctx, ryno.TxAddRelationships(project, "pinned", want[:1]), ryno.TxAddRelationships(project, "triaged", want[1:3]))
	require.NoError(t, err)
	require.Equal(t, want[1:3], objectsOf(t, s.Client, project, "triaged", 100))

	missing := pk("no-such-project")
	_, _, err = s.TransactNext(ctx, missing, "issues", build(missing))
	require.ErrorIs(t, err, ryno.ErrNotFound)
	_, err = s.Get(ctx, issueOf(missing, 1).Key)
	require.ErrorIs(t, err, ryno.ErrNotFound, "nothing of the refused transaction")
}

func TestADrawWhoseOperationsAreRefusedUsesNoNumber(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: slugIndexes})
	project := pk("acme")
	createSubjects(t, s.Client, project)
	n, _, err := s.TransactNext(ctx, project, "issues", createIssue(project))
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	// Issue 2 exists already: the create of the next draw is refused.
	_, err = s.Create(ctx, issueOf(project, 2))
	require.NoError(t, err)

	_, _, err = s.TransactNext(ctx, project, "issues", createIssue(project))
	var refused *ryno.TransactionError
	require.ErrorAs(t, err, &refused)
	require.ErrorIs(t, err, ryno.ErrExists)
	last, err := s.Sequence(ctx, project, "issues")
	require.NoError(t, err)
	require.Equal(t, int64(1), last, "nothing drawn: 2 is not skipped")

	built := errors.New("no issue today")
	_, _, err = s.TransactNext(ctx, project, "issues", func(int64) ([]ryno.Op, error) { return nil, built })
	require.ErrorIs(t, err, built, "the function's error ends the call")
}

func TestADrawNeedsItsOwnerAndGoesWithIt(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: slugIndexes})
	ghost := pk("ghost")
	_, _, err := s.TransactNext(ctx, ghost, "issues", createIssue(ghost))
	require.ErrorIs(t, err, ryno.ErrNotFound, "no owner, no draw")
	_, err = s.Get(ctx, issueOf(ghost, 1).Key)
	require.ErrorIs(t, err, ryno.ErrNotFound, "and nothing else of the transaction")

	project := pk("acme")
	createSubjects(t, s.Client, project)
	for range 3 {
		_, _, err := s.TransactNext(ctx, project, "issues", createIssue(project))
		require.NoError(t, err)
	}
	progress, err := s.Check(ctx, ryno.CheckOptions{})
	require.NoError(t, err)
	require.Zero(t, progress.Orphans+progress.Traces)

	require.NoError(t, s.Delete(ctx, project))
	requireNothingOf(t, s, project, false)
	createSubjects(t, s.Client, project)
	last, err := s.Sequence(ctx, project, "issues")
	require.NoError(t, err)
	require.Zero(t, last, "a new life starts its sequences over")

	_, _, err = s.TransactNext(ctx, project, "", createIssue(project))
	require.ErrorIs(t, err, ryno.ErrInvalid)
}
