package ryno

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestConflictPacerUsesTheConflictBudget(t *testing.T) {
	c, err := New(struct{ DynamoDBAPI }{}, Options{
		TablePrefix: "t",
		Retry:       RetryOptions{MaxAttempts: 7},
		Conflicts:   RetryOptions{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond},
	})
	require.NoError(t, err)
	var slept []time.Duration
	c.core.Batch.Sleep = func(_ context.Context, d time.Duration) error {
		slept = append(slept, d)
		return nil
	}
	p := c.core.ConflictPacer()
	require.NoError(t, p.Wait(context.Background()), "the second attempt")
	require.NoError(t, p.Wait(context.Background()), "the third attempt")
	require.EqualError(t, p.Wait(context.Background()), "gave up after 3 attempts", "Options.Conflicts, not Options.Retry")
	require.Len(t, slept, 1, "the second attempt goes at once")
	require.LessOrEqual(t, slept[0], time.Millisecond)
}
