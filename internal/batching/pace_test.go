package batching

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// pacedSleeps makes attempts until p gives up and returns how long it slept before
// each attempt from the second on (-1: it did not sleep) and the error it gave up with.
func pacedSleeps(t *testing.T, p *Pacer) ([]time.Duration, error) {
	t.Helper()
	var slept []time.Duration
	p.sleep = func(_ context.Context, d time.Duration) error {
		slept[len(slept)-1] = d
		return nil
	}
	for range 100 {
		slept = append(slept, -1)
		if err := p.Wait(context.Background()); err != nil {
			require.Equal(t, time.Duration(-1), slept[len(slept)-1], "no sleep before giving up")
			return slept[:len(slept)-1], err
		}
	}
	t.Fatal("the pacer never gave up")
	return nil, nil
}

func TestPacerBudget(t *testing.T) {
	opts := Policy{BaseDelay: 10 * time.Millisecond, MaxDelay: 25 * time.Millisecond}
	tests := []struct {
		maxAttempts int
		ceilings    []time.Duration // of the waits before attempts 2, 3, ...; -1: none
	}{
		{1, nil},
		{2, []time.Duration{-1}},
		{3, []time.Duration{-1, 10 * time.Millisecond}},
		{6, []time.Duration{-1, 10 * time.Millisecond, 20 * time.Millisecond, 25 * time.Millisecond, 25 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d attempts", tt.maxAttempts), func(t *testing.T) {
			opts.MaxAttempts = tt.maxAttempts
			grew := false
			for range 200 {
				slept, err := pacedSleeps(t, &Pacer{opts: opts, attempt: 1})
				require.EqualError(t, err, fmt.Sprintf("gave up after %d attempts", tt.maxAttempts))
				require.Len(t, slept, len(tt.ceilings), "attempts after the first")
				for i, d := range slept {
					if tt.ceilings[i] < 0 {
						require.Equal(t, time.Duration(-1), d, "attempt %d goes at once", i+2)
						continue
					}
					require.GreaterOrEqual(t, d, time.Duration(0), "attempt %d", i+2)
					require.LessOrEqual(t, d, tt.ceilings[i], "attempt %d", i+2)
					grew = grew || i >= 2 && d > tt.ceilings[1]
				}
			}
			if tt.maxAttempts > 3 {
				require.True(t, grew, "the ceiling doubles")
			}
		})
	}
}

func TestPacerKeepsRefusingOnceSpent(t *testing.T) {
	p := &Pacer{opts: Policy{MaxAttempts: 2}, sleep: noSleep, attempt: 1}
	require.NoError(t, p.Wait(context.Background()))
	for range 3 {
		require.Error(t, p.Wait(context.Background()))
	}
	require.Equal(t, 2, p.attempt)
}

func TestPacerStopsWhenTheContextEnds(t *testing.T) {
	tests := []struct {
		name    string
		attempt int // attempts made before the wait
	}{
		{"before the second attempt", 1},
		{"before a later attempt", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			p := &Pacer{opts: Policy{MaxAttempts: 10, BaseDelay: time.Hour, MaxDelay: time.Hour}, sleep: SleepContext, attempt: tt.attempt}
			start := time.Now()
			require.ErrorIs(t, p.Wait(ctx), context.Canceled)
			require.Less(t, time.Since(start), time.Minute)
		})
	}
}

func noSleep(context.Context, time.Duration) error { return nil }

// Attempts after a Yield have a budget of their own, MaxAttempts times
// YieldsPerAttempt, leave the Retry budget whole, and wait at most the ceiling of
// yieldBackoff, which does not grow.
func TestPacerYieldsOutsideTheRetryBudget(t *testing.T) {
	opts := Policy{MaxAttempts: 3, BaseDelay: 10 * time.Millisecond, MaxDelay: time.Second}
	var waits []time.Duration
	p := &Pacer{opts: opts, attempt: 1, sleep: func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}}
	retries := 0
	p.retrying = func(context.Context, Reason, time.Duration, error) { retries++ }
	for range opts.MaxAttempts * YieldsPerAttempt {
		require.NoError(t, p.Yield(context.Background()))
	}
	err := p.Yield(context.Background())
	require.ErrorContains(t, err, "gave up after 31 attempts, 30 of them lost to writers that committed")
	require.Equal(t, 30, retries, "each is a retry, as reports count them")
	for _, d := range waits {
		require.LessOrEqual(t, d, opts.Ceiling(yieldBackoff))
	}
	for range opts.MaxAttempts - 1 {
		require.NoError(t, p.Wait(context.Background()), "the Retry budget is whole")
	}
	require.Error(t, p.Wait(context.Background()))
}
