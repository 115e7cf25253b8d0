package integration_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// TestAListWriterLosingToCommitsDoesNotGiveUp makes another client commit an
// append to the same list just before each of a writer's first 15 transactions,
// more than its 5 attempts allow: each loss is to a writer that committed, so the
// writer goes on outside its budget and appends in the end, its call reporting
// every retry; the list holds every object once.
func TestAListWriterLosingToCommitsDoesNotGiveUp(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreOpts(t, nil, ryno.Options{})
	subject := pk("hub")
	createSubjects(t, s.Client, subject)
	_, err := s.AddRelationships(ctx, subject, "follows", []ryno.Key{pk("first")})
	require.NoError(t, err)

	const beaten = 15
	rival := newClientOn(t, s, ryno.Options{})
	rivals := 0
	var reports []ryno.CallReport
	overtaken := dynamotest.Wrap(s.raw, func(ctx context.Context, op string, send func(context.Context) error) error {
		if op == "TransactWriteItems" && rivals < beaten {
			rivals++
			if _, err := rival.AddRelationships(ctx, subject, "follows", []ryno.Key{pk(fmt.Sprintf("rival-%02d", rivals))}); err != nil {
				return err
			}
		}
		return send(ctx)
	})
	writer, err := ryno.New(overtaken, ryno.Options{TablePrefix: s.prefix, Conflicts: ryno.RetryOptions{MaxAttempts: 5},
		OnCall: func(_ context.Context, r ryno.CallReport) { reports = append(reports, r) }})
	require.NoError(t, err)
	_, err = writer.AddRelationships(ctx, subject, "follows", []ryno.Key{pk("writer")})
	require.NoError(t, err, "a writer losing only to commits does not give up")
	require.Equal(t, beaten, rivals)
	require.Len(t, reports, 1)
	require.Equal(t, beaten, reports[0].Retries, "each loss is a retry")

	got := objectsOf(t, s.Client, subject, "follows", 100)
	require.Len(t, got, beaten+2)
	require.Equal(t, pk("writer"), got[len(got)-1], "appended after every rival")
	requireListExact(t, s, subject, "follows")
}
