package batching

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// jittered stands for any backoff the pacing draws.
const jittered time.Duration = -1

func TestAttempts(t *testing.T) {
	errLost := errors.New("lost a race")
	errBroken := errors.New("broken")
	now := time.Unix(1000, 0)
	policy := Policy{MaxAttempts: 3, BaseDelay: time.Hour, MaxDelay: time.Hour}
	type outcome struct {
		step Step
		err  error
	}
	retry, done := outcome{Retry, errLost}, outcome{Done, nil}
	tests := []struct {
		name     string
		tries    int       // the pacing is Tries(tries) when not 0, a *Pacer within policy otherwise
		canceled bool      // the context ends before the first attempt
		steps    []outcome // of the attempts in turn; the last repeats
		attempts int
		sleeps   []time.Duration // what the pacing slept, in turn (jittered: any backoff)
		want     string          // the error returned; "" for the result 7
	}{
		{name: "done at once", steps: []outcome{done}, attempts: 1},
		{name: "error passed through", steps: []outcome{{Done, errBroken}}, attempts: 1, want: "broken"},
		{name: "retry then done", steps: []outcome{retry, retry, done}, attempts: 3, sleeps: []time.Duration{jittered}},
		{name: "give up after the budget", steps: []outcome{retry}, attempts: 3, sleeps: []time.Duration{jittered},
			want: "gave up (lost a race): gave up after 3 attempts"},
		{name: "give up with no conflict", steps: []outcome{{Retry, nil}}, attempts: 3, sleeps: []time.Duration{jittered},
			want: "gave up (<nil>): gave up after 3 attempts"},
		{name: "context canceled", canceled: true, steps: []outcome{retry}, attempts: 1,
			want: "gave up (lost a race): context canceled"},
		{name: "again outside the budget", steps: []outcome{{Again, errLost}, {Again, nil}, retry, {Again, nil}, retry, done}, attempts: 6,
			sleeps: []time.Duration{jittered}},
		{name: "hold until a lease ends", steps: []outcome{{Hold(now.Add(time.Second), now), errLost}, done}, attempts: 2,
			sleeps: []time.Duration{time.Second + time.Millisecond}},
		{name: "yields outside the budget", steps: []outcome{{Yield, nil}, {Yield, nil}, retry, {Yield, nil}, retry, {Yield, nil}, done}, attempts: 7,
			sleeps: repeat(jittered, 5)}, // the first retry goes at once
		{name: "yields run out", steps: []outcome{{Yield, nil}}, attempts: 31, sleeps: repeat(jittered, 30),
			want: "gave up (<nil>): gave up after 31 attempts, 30 of them lost to writers that committed"},
		{name: "tries go at once", tries: 4,
			steps: []outcome{retry, {Hold(now.Add(time.Hour), now), errLost}, retry, done}, attempts: 4},
		{name: "tries run out", tries: 2,
			steps: []outcome{retry}, attempts: 2, want: "gave up (lost a race): gave up after 2 attempts"},
		{name: "tries ignore the context", tries: 2,
			canceled: true, steps: []outcome{retry, done}, attempts: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.canceled {
				cancel()
			}
			var sleeps []time.Duration
			sleep := func(ctx context.Context, d time.Duration) error {
				sleeps = append(sleeps, d)
				return ctx.Err()
			}
			var pace Pacing = NewPacer(policy, sleep, nil)
			if tt.tries != 0 {
				pace = Tries(tt.tries)
			}
			attempts := 0
			got, err := Attempts(ctx, pace, func(conflict, reason error) error {
				return fmt.Errorf("gave up (%v): %w", conflict, reason)
			}, func(context.Context) (int, Step, error) {
				o := tt.steps[min(attempts, len(tt.steps)-1)]
				attempts++
				return 7, o.step, o.err
			})
			require.Equal(t, tt.attempts, attempts, "attempts")
			if tt.want != "" {
				require.EqualError(t, err, tt.want)
				if tt.steps[len(tt.steps)-1].step == Done {
					require.Equal(t, 7, got, "the attempt's result with its error")
				} else {
					require.Zero(t, got, "no result when it gave up")
				}
			} else {
				require.NoError(t, err)
				require.Equal(t, 7, got)
			}
			require.Len(t, sleeps, len(tt.sleeps), "sleeps: the second attempt goes at once")
			for i, d := range tt.sleeps {
				if d != jittered {
					require.Equal(t, d, sleeps[i], "sleep %d", i)
				}
			}
		})
	}
}

func repeat(d time.Duration, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d
	}
	return out
}
