package batching

import (
	"context"
	"fmt"
	"time"
)

// Step is what one attempt of an optimistic loop (Attempts) came to.
type Step struct {
	next       next
	until, now time.Time // of a Hold
}

type next int

const (
	stop next = iota
	paced
	held
	atOnce
	yielded
)

var (
	// Done ends the loop with the attempt's result and error.
	Done = Step{next: stop}
	// Retry means the attempt lost a race: the next one goes when the pacing allows
	// (Pacing.Wait).
	Retry = Step{next: paced}
	// Again means the attempt cleared the way for the next one (it finished what
	// another writer left, or read again what it learned was stale): the next goes
	// at once, outside the budget.
	Again = Step{next: atOnce}
	// Yield means the attempt lost a race to a writer that committed: the store
	// made progress, so the loss is no sign of a write that cannot go through. The
	// next attempt goes after a short wait that does not grow (Pacing.Yield),
	// outside the budget of Retry, so that writers taking turns at one item keep
	// an equal chance instead of backing off ever longer behind newcomers.
	Yield = Step{next: yielded}
)

// Hold is Retry while another writer holds a lease until until, as of now: the next
// attempt polls for its end (Pacing.Hold).
func Hold(until, now time.Time) Step { return Step{next: held, until: until, now: now} }

// Pacing spaces the attempts of an optimistic loop and ends them: a *Pacer, or Tries.
// Wait, Hold and Yield return when the next attempt may go, or why none may.
type Pacing interface {
	Wait(ctx context.Context) error
	Hold(ctx context.Context, until, now time.Time) error
	Yield(ctx context.Context) error
}

// Attempts runs an optimistic loop, the one every write that may lose races runs:
// attempt reads, plans and commits once, and its Step says what came of it.
//   - Done: the loop returns the attempt's result and error (it succeeded, or
//     failed for good).
//   - Retry, Hold: it lost a race, and its error, if any, is the conflict it met.
//     The next attempt goes when pace allows (a *Pacer lets the second go at once).
//     When pace refuses (its budget spent, or ctx ended), the loop gives up: it
//     returns the zero T and the error giveUp, the loop's one function, makes of
//     that conflict and pace's reason (for the store, KeptChanging's).
//   - Again: the attempt cleared the way, and the next goes at once, outside the
//     budget.
//   - Yield: it lost a race to a writer that committed; the next attempt goes
//     when pace.Yield allows, which has a budget of its own.
func Attempts[T any](ctx context.Context, pace Pacing, giveUp func(conflict, reason error) error,
	attempt func(context.Context) (T, Step, error)) (T, error) {
	for {
		v, step, err := attempt(ctx)
		var refused error
		switch step.next {
		case stop:
			return v, err
		case paced:
			refused = pace.Wait(ctx)
		case held:
			refused = pace.Hold(ctx, step.until, step.now)
		case yielded:
			refused = pace.Yield(ctx)
		}
		if refused != nil {
			var zero T
			return zero, giveUp(err, refused)
		}
	}
}

// Tries is the pacing of a loop whose attempts go at once, n in all, whatever the
// context: one whose next attempt builds on what the last one read rather than
// racing again, bounded only so that it ends.
func Tries(n int) Pacing { return &tries{max: n, made: 1} }

type tries struct{ max, made int }

func (t *tries) Wait(context.Context) error {
	if t.made >= t.max {
		return fmt.Errorf("gave up after %d attempts", t.made)
	}
	t.made++
	return nil
}

func (t *tries) Hold(ctx context.Context, _, _ time.Time) error { return t.Wait(ctx) }

func (t *tries) Yield(ctx context.Context) error { return t.Wait(ctx) }
