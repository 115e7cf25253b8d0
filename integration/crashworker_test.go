package integration_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// The crash test runs each write in a process of its own, the test binary started
// again with crashWorkerEnv set, which kills itself with SIGKILL at a chosen request:
// the way Lambda ends a function at its timeout, between any two instructions.

// crashWorkerEnv holds the JSON crashSpec of a worker process.
const crashWorkerEnv = "RYNO_CRASH_WORKER"

// crashSpec is what a worker process does, and when it dies.
type crashSpec struct {
	Endpoint string
	Prefix   string
	Call     crashCall
	// KillAt is the request (from 1, every request the client sends) at which the
	// process kills itself; 0 never. Mode says when: "before" it is sent, "after"
	// its response came, or "inflight", a moment after it was sent.
	KillAt int
	Mode   string
	Seed   uint64
}

// crashCall is one call of the store.
type crashCall struct {
	Op        string // "replace", "add", "remove", "set", "delete", "combined"
	Subject   ryno.Key
	Predicate string
	Objects   []ryno.Key
	Entity    *crashDoc // for "set"
	// Writers is how many clients of one process a "combined" call runs at once,
	// each adding its share of Objects one at a time: as processes would, they race
	// for the list and combine their calls on its head.
	Writers int
}

// crashDoc is an indexed entity: a unique slug and tags.
type crashDoc struct {
	ID   string
	Slug string
	Tags int
}

func (d crashDoc) entity() *ryno.Entity { return doc(d.ID, d.Slug, d.Tags) }

// run makes the call on db.
func (c crashCall) run(ctx context.Context, db *ryno.Client) error {
	var err error
	switch c.Op {
	case "replace":
		err = db.ReplaceRelationships(ctx, c.Subject, c.Predicate, c.Objects)
	case "add":
		_, err = db.AddRelationships(ctx, c.Subject, c.Predicate, c.Objects)
	case "remove":
		_, err = db.RemoveRelationships(ctx, c.Subject, c.Predicate, c.Objects)
	case "set":
		_, err = db.Set(ctx, c.Entity.entity())
	case "setlists":
		_, err = db.Set(ctx, &ryno.Entity{Key: c.Subject}, ryno.ReplaceLists(map[string][]ryno.Key{c.Predicate: c.Objects}))
	case "delete":
		err = db.Delete(ctx, c.Subject)
	default:
		err = fmt.Errorf("unknown call %q", c.Op)
	}
	return err
}

// runCombined makes a "combined" call: c.Writers clients made by newClient add
// their shares of c.Objects at once, one object a call.
func (c crashCall) runCombined(ctx context.Context, newClient func() (*ryno.Client, error)) error {
	errs := make([]error, c.Writers)
	var wg sync.WaitGroup
	for w := range c.Writers {
		db, err := newClient()
		if err != nil {
			return err
		}
		wg.Go(func() {
			for i := w; i < len(c.Objects); i += c.Writers {
				if _, err := db.AddRelationships(ctx, c.Subject, c.Predicate, []ryno.Key{c.Objects[i]}); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// runCrashWorker runs the worker process of spec and returns its exit code, unless
// it kills itself first. It prints how many requests it sent.
func runCrashWorker(raw string) int {
	var spec crashSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "crash worker:", err)
		return 2
	}
	k := &killer{at: int64(spec.KillAt), mode: spec.Mode, rng: rand.New(rand.NewPCG(spec.Seed, 7))}
	api := dynamotest.Wrap(dynamotest.NewAPI(spec.Endpoint), k.hook)
	db, err := ryno.New(api, ryno.Options{TablePrefix: spec.Prefix, Indexes: slugIndexes, Sets: crashSets, OrderedSets: crashOrderedSets, Owns: ownsTree, ListLease: testLease})
	if err != nil {
		fmt.Fprintln(os.Stderr, "crash worker:", err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	posts := &postCounter{DynamoDBAPI: api}
	if spec.Call.Op == "combined" {
		err = spec.Call.runCombined(ctx, func() (*ryno.Client, error) {
			return ryno.New(posts, ryno.Options{TablePrefix: spec.Prefix})
		})
	} else {
		err = spec.Call.run(ctx, db)
	}
	fmt.Printf("requests %d posts %d\n", k.sent.Load(), posts.posts.Load())
	if err != nil {
		fmt.Fprintln(os.Stderr, "crash worker:", err)
		return 3
	}
	return 0
}

// killer kills its process at request at.
type killer struct {
	at   int64
	mode string
	rng  *rand.Rand
	sent atomic.Int64
}

func (k *killer) hook(ctx context.Context, op string, send func(context.Context) error) error {
	n := k.sent.Add(1)
	if n != k.at {
		return send(ctx)
	}
	switch k.mode {
	case "before":
		die()
	case "after":
		err := send(ctx)
		die()
		return err
	}
	delay := time.Duration(k.rng.IntN(3000)) * time.Microsecond
	go func() {
		time.Sleep(delay)
		die()
	}()
	return send(ctx)
}

// die kills the process with SIGKILL: no deferred call, no flush, nothing after.
func die() {
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}
