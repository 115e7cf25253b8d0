package integration_test

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// The sequential model of one entity holding a number n, against which the history
// of concurrent calls is checked: each call must take effect at one instant between
// its start and its return.

type entityState struct {
	exists     bool
	version, n int64
}

type callKind int

const (
	callGet callKind = iota
	callCreate
	callSet    // blind
	callUpdate // carrying the version of an earlier Get; blind before any
	callPatch  // add
	callModify // add
	callDelete
)

type callInput struct {
	kind    callKind
	n       int64 // the value to write, or the number to add
	version int64 // callUpdate: the version carried
}

type callOutput struct {
	ok       bool // applied
	exists   bool // callGet: found; callCreate: refused with ErrExists
	missing  bool // refused: the entity does not exist
	conflict bool // refused: another version
	version  int64
	n        int64
}

var entityModel = porcupine.Model{
	Init: func() any { return entityState{} },
	Step: func(state, input, output any) (bool, any) {
		s, in, out := state.(entityState), input.(callInput), output.(callOutput)
		applied := func(n int64) (bool, any) {
			if out.conflict && !out.missing && blind(in) {
				// A write that kept losing races until its attempts ran out: it
				// wrote nothing.
				return true, s
			}
			next := entityState{exists: true, version: s.version + 1, n: n}
			return out.ok && out.version == next.version && out.n == n, next
		}
		switch in.kind {
		case callGet:
			return out.exists == s.exists && (!s.exists || out.version == s.version && out.n == s.n), s
		case callCreate:
			if s.exists {
				return out.exists, s
			}
			return applied(in.n)
		case callSet:
			return applied(in.n)
		case callUpdate:
			if in.version == 0 { // blind: it must exist
				if !s.exists {
					return out.missing && !out.conflict, s
				}
				return applied(in.n)
			}
			if !s.exists || s.version != in.version {
				return out.conflict && out.missing == !s.exists, s
			}
			return applied(in.n)
		case callPatch, callModify:
			if !s.exists {
				return out.missing, s
			}
			return applied(s.n + in.n)
		case callDelete:
			return out.ok, entityState{}
		}
		return false, s
	},
	DescribeOperation: func(input, output any) string {
		return fmt.Sprintf("%+v -> %+v", input, output)
	},
}

// blind reports whether in writes over whatever is stored, retrying when it loses a
// race, rather than over one version.
func blind(in callInput) bool {
	switch in.kind {
	case callSet, callPatch, callModify:
		return true
	case callUpdate:
		return in.version == 0
	}
	return false
}

// call runs one call of in against k and reports its outcome; an outcome the model
// does not know fails the test.
func call(t *testing.T, db *ryno.Client, k ryno.Key, in callInput) callOutput {
	valueOf := func(e *ryno.Entity) callOutput {
		n, err := e.Attributes["n"].(json.Number).Int64()
		require.NoError(t, err)
		return callOutput{ok: true, exists: true, version: e.Version, n: n}
	}
	attrs := func(n int64) map[string]any {
		return map[string]any{"n": n, "age": n % 5, "email": fmt.Sprintf("n%d@example.com", n%3)}
	}
	var e *ryno.Entity
	var err error
	switch in.kind {
	case callGet:
		e, err = db.Get(ctx, k, ryno.Consistent())
	case callCreate:
		e, err = db.Create(ctx, &ryno.Entity{Key: k, Attributes: attrs(in.n)})
	case callSet:
		e, err = db.Set(ctx, &ryno.Entity{Key: k, Attributes: attrs(in.n)})
	case callUpdate:
		e, err = db.Update(ctx, &ryno.Entity{Key: k, Attributes: attrs(in.n), Version: in.version})
	case callPatch:
		e, err = db.Patch(ctx, k, ryno.Patch{Add: map[string]any{"n": in.n}})
	case callModify:
		e, err = db.Modify(ctx, k, func(e *ryno.Entity) error {
			n, err := e.Attributes["n"].(json.Number).Int64()
			maps := attrs(n + in.n)
			for name, v := range maps {
				e.Attributes[name] = v
			}
			return err
		})
	case callDelete:
		err = db.Delete(ctx, k)
	}
	var conflict *ryno.ConflictError
	switch {
	case err == nil && e != nil:
		return valueOf(e)
	case err == nil:
		return callOutput{ok: true}
	case in.kind == callCreate && errors.Is(err, ryno.ErrExists):
		return callOutput{exists: true}
	case errors.As(err, &conflict):
		return callOutput{conflict: true, missing: conflict.Missing}
	case errors.Is(err, ryno.ErrNotFound):
		return callOutput{missing: true}
	}
	t.Errorf("%+v: %v", in, err)
	return callOutput{}
}

// randomCall picks a call; an Update carries the version of the client's last read.
func randomCall(r *rand.Rand, lastVersion int64) callInput {
	kinds := []callKind{callGet, callGet, callCreate, callSet, callUpdate, callUpdate, callPatch, callModify, callDelete}
	return callInput{kind: kinds[r.IntN(len(kinds))], n: int64(r.IntN(100)), version: lastVersion}
}

func TestEntityCallsAreLinearizable(t *testing.T) {
	dynamotest.Parallel(t)
	const clients, calls, rounds = 6, 12, 20
	for _, tt := range []struct {
		name    string
		indexes []ryno.Index
	}{{"a type without indexes", nil}, {"an indexed type", mixedIndexes}} {
		t.Run(tt.name, func(t *testing.T) {
			s := newStoreOpts(t, nil, ryno.Options{Indexes: tt.indexes})
			start := time.Now()
			now := func() int64 { return time.Since(start).Nanoseconds() }
			for round := range rounds {
				k := person(fmt.Sprint("e", round), nil).Key
				var mu sync.Mutex
				var history []porcupine.Operation
				race(clients, func(c int) {
					r := rand.New(rand.NewPCG(uint64(round), uint64(c)))
					var lastVersion int64
					for range calls {
						in := randomCall(r, lastVersion)
						begin := now()
						out := call(t, s.Client, k, in)
						end := now()
						if in.kind == callGet {
							lastVersion = out.version
						}
						mu.Lock()
						history = append(history, porcupine.Operation{ClientId: c, Input: in, Call: begin, Output: out, Return: end})
						mu.Unlock()
					}
				})
				result := porcupine.CheckOperationsTimeout(entityModel, history, 30*time.Second)
				if result != porcupine.Ok {
					slices.SortFunc(history, func(a, b porcupine.Operation) int { return cmp.Compare(a.Call, b.Call) })
					for _, op := range history {
						t.Logf("c%d [%6d, %6d] %+v -> %+v", op.ClientId, op.Call/1000, op.Return/1000, op.Input, op.Output)
					}
				}
				require.Equal(t, porcupine.Ok, result, "round %d: the history of %d calls is not linearizable", round, len(history))
				if tt.indexes != nil {
					requireIndexExact(t, s)
				}
			}
		})
	}
}
