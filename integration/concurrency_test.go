package integration_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// race runs f(0) .. f(n-1) in n goroutines released together from a barrier, so that
// their calls really overlap, and waits for all of them.
func race(n int, f func(g int)) {
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	ready.Add(n)
	done.Add(n)
	for g := range n {
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			f(g)
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
}

// counterOf returns the number n of the stored entity k.
func counterOf(t *testing.T, db *ryno.Client, k ryno.Key) int64 {
	t.Helper()
	e, err := db.Get(ctx, k, ryno.Consistent())
	require.NoError(t, err)
	n, err := e.Attributes["n"].(json.Number).Int64()
	require.NoError(t, err)
	return n
}

// jitter sleeps up to d, so that a caller retrying a conflict does not collide again
// at once.
func jitter(d time.Duration) { time.Sleep(rand.N(d)) }

const (
	writers = 16 // goroutines incrementing one counter
	rounds  = 25 // increments per goroutine, one round each
)

func TestConcurrentGetUpdateIncrementsLoseNothing(t *testing.T) {
	dynamotest.Parallel(t)
	t.Run("retrying on conflict", func(t *testing.T) {
		db, _, _ := newStore(t)
		k := person("counter", nil).Key
		_, err := db.Create(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"n": 0}})
		require.NoError(t, err)
		var conflicts, unexpected atomic.Int64
		for range rounds {
			race(writers, func(int) {
				for {
					e, err := db.Get(ctx, k, ryno.Consistent())
					if err == nil {
						n, _ := e.Attributes["n"].(json.Number).Int64()
						e.Attributes["n"] = n + 1
						_, err = db.Update(ctx, e)
					}
					switch {
					case err == nil:
						return
					case errors.Is(err, ryno.ErrConflict):
						conflicts.Add(1)
						jitter(5 * time.Millisecond)
					default:
						unexpected.Add(1)
						return
					}
				}
			})
		}
		require.Zero(t, unexpected.Load())
		require.Equal(t, int64(writers*rounds), counterOf(t, db, k), "every Update that returned nil counted")
		require.Positive(t, conflicts.Load(), "the writers overlapped")
		t.Logf("%d conflicts retried", conflicts.Load())
	})
	t.Run("without retries", func(t *testing.T) {
		db, _, _ := newStore(t)
		k := person("counter", nil).Key
		_, err := db.Create(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"n": 0}})
		require.NoError(t, err)
		var succeeded, conflicts, unexpected atomic.Int64
		for range rounds {
			race(writers, func(int) {
				e, err := db.Get(ctx, k, ryno.Consistent())
				if err == nil {
					n, _ := e.Attributes["n"].(json.Number).Int64()
					e.Attributes["n"] = n + 1
					_, err = db.Update(ctx, e)
				}
				var conflict *ryno.ConflictError
				switch {
				case err == nil:
					succeeded.Add(1)
				case errors.As(err, &conflict) && conflict.Stored > conflict.Expected:
					conflicts.Add(1)
				default:
					unexpected.Add(1)
				}
			})
		}
		require.Zero(t, unexpected.Load(), "an Update that did not count returned a conflict")
		require.Equal(t, succeeded.Load(), counterOf(t, db, k), "the stored count is the number of Updates that succeeded")
		require.Equal(t, int64(writers*rounds), succeeded.Load()+conflicts.Load())
		require.Positive(t, conflicts.Load(), "the writers overlapped")
	})
}

func TestConcurrentModifyIncrementsLoseNothing(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreOpts(t, nil, ryno.Options{Conflicts: ryno.RetryOptions{MaxAttempts: 1000, BaseDelay: time.Millisecond, MaxDelay: 20 * time.Millisecond}})
	k := person("counter", nil).Key
	_, err := s.Create(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"n": 0}})
	require.NoError(t, err)
	s.counter.Reset()
	var failed atomic.Int64
	for range rounds {
		race(writers, func(int) {
			_, err := s.Modify(ctx, k, func(e *ryno.Entity) error {
				n, err := e.Attributes["n"].(json.Number).Int64()
				e.Attributes["n"] = n + 1
				return err
			})
			if err != nil {
				failed.Add(1)
			}
		})
	}
	require.Zero(t, failed.Load())
	require.Equal(t, int64(writers*rounds), counterOf(t, s.Client, k))
	attempts := s.counter.Count("PutItem")
	require.Greater(t, attempts, writers*rounds, "some attempts conflicted: the writers overlapped")
	t.Logf("%.2f attempts per Modify", float64(attempts)/float64(writers*rounds))
}

func TestConcurrentPatchIncrementsLoseNothing(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreWith(t, nil)
	k := person("counter", nil).Key
	_, err := s.Create(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"n": 0}})
	require.NoError(t, err)
	s.counter.Reset()
	var failed atomic.Int64
	for range rounds {
		race(writers, func(int) {
			if _, err := s.Patch(ctx, k, ryno.Patch{Add: map[string]any{"n": 1}}); err != nil {
				failed.Add(1)
			}
		})
	}
	require.Zero(t, failed.Load())
	require.Equal(t, map[string]int{"UpdateItem": writers * rounds}, requests(s.counter), "one request per increment")
	require.Equal(t, int64(writers*rounds), counterOf(t, s.Client, k))
	e, err := s.Get(ctx, k)
	require.NoError(t, err)
	require.Equal(t, int64(1+writers*rounds), e.Version, "every patch bumped the version")
}

// mixedIndexes index people by a string (email, projecting name) and an integer
// (age).
var mixedIndexes = []ryno.Index{
	{Type: "person", Name: "email", Map: emitEmail, Project: []string{"name"}},
	{Type: "person", Name: "age", Map: emitAge},
}

func TestConcurrentWritesOfIndexedEntitiesKeepTheIndexExact(t *testing.T) {
	dynamotest.Parallel(t)
	const (
		goroutines = 8
		rounds     = 20
		entities   = 10
	)
	s := newStoreOpts(t, nil, ryno.Options{Indexes: mixedIndexes})
	key := func(i int) ryno.Key { return person(fmt.Sprint("p", i), nil).Key }
	attrs := func(r *rand.Rand) map[string]any {
		return map[string]any{
			"email": fmt.Sprintf("user%d@example.com", r.IntN(4)),
			"age":   r.IntN(5),
			"name":  fmt.Sprint("name", r.IntN(3)),
		}
	}
	var unexpected atomic.Int64
	var mu sync.Mutex
	var errs []error
	fail := func(err error) {
		unexpected.Add(1)
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	for round := range rounds {
		race(goroutines, func(g int) {
			r := rand.New(rand.NewPCG(uint64(round), uint64(g)))
			for range 5 {
				k := key(r.IntN(entities))
				var err error
				switch op := r.IntN(10); {
				case op < 3: // blind Set
					_, err = s.Set(ctx, &ryno.Entity{Key: k, Attributes: attrs(r)})
				case op < 6: // versioned Update of what was read
					var e *ryno.Entity
					if e, err = s.Get(ctx, k, ryno.Consistent()); err == nil {
						e.Attributes = attrs(r)
						_, err = s.Update(ctx, e)
					}
				case op < 9: // partial update
					_, err = s.Patch(ctx, k, ryno.Patch{Add: map[string]any{"age": 1}, Set: map[string]any{"name": "patched"}})
				default:
					err = s.Delete(ctx, k)
				}
				if err != nil && !errors.Is(err, ryno.ErrConflict) && !errors.Is(err, ryno.ErrNotFound) {
					fail(err)
				}
			}
		})
		require.Zero(t, unexpected.Load(), "round %d: %v", round, errs)
		requireIndexExact(t, s)
	}
}

func TestBlindSetsRacingFinishWithinTheirBudget(t *testing.T) {
	const racers, rounds = 8, 20
	s := newStoreOpts(t, nil, ryno.Options{Indexes: mixedIndexes})
	k := person("hot", nil).Key
	for round := range rounds {
		var failed atomic.Int64
		race(racers, func(g int) {
			_, err := s.Set(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{
				"email": fmt.Sprintf("r%d-g%d@example.com", round, g), "age": g, "name": "racer",
			}})
			if err != nil {
				failed.Add(1)
			}
		})
		require.Zero(t, failed.Load(), "round %d: every blind Set finished within the default budget", round)
		requireIndexExact(t, s)
	}
}
