package integration_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/ryno"
)

// Environment variables of the crash test.
const (
	crashRoundsEnv = "RYNO_CRASH_ROUNDS" // how many processes to kill; default one per kind of write
	crashSeedEnv   = "RYNO_CRASH_SEED"   // the seed choosing the writes, the kills and the next writers
)

// TestProcessesKilledMidWriteLeaveNothingHalfDone starts each large write in a
// process of its own and kills it with SIGKILL at a request chosen at random: a
// large Replace, a Set with a large list (ReplaceLists), a large Add, a large
// Remove, an indexed Set beyond one transaction that changes a unique value, and a Delete with hundreds of edges in and out.
// After each kill it checks what readers may see; then a next writer of the same
// list or entity runs (the same call again, or another), and then Check with
// Repair, and after each of them everything must be exact: every list is the old
// one or the one submitted (with the next writer's change), positions unique, heads
// and markers in agreement with the entries, index entries what the stored entities
// emit, every claim held by its owner, nothing left of a deleted entity, and Check
// finds nothing more.
//
// A set's large Replace is killed too: a set promises each object's entry on its
// own, so after the kill and after the next writer it holds what the calls wrote of
// each object, and nothing of a deleted subject. Half of those rounds write an
// ordered set, which the next Replace leaves in exactly the order it gives.
//
// A Delete of a project owning issues and their comments (Options.Owns) is
// killed too: whoever completes it deletes the whole tree.
//
// A write that takes the unique value of an expired entity with 300 edges is killed
// too: it deletes the expired entity first, and whoever comes next finishes that.
//
// A process whose 4 clients append to one list at once, combining their calls on
// its head, is killed too: the list keeps the old objects, then some new ones.
//
// make test kills 10 processes (one per kind of write); make crash kills 75
// (RYNO_CRASH_ROUNDS).
func TestProcessesKilledMidWriteLeaveNothingHalfDone(t *testing.T) {
	rounds, seed := crashSettings(t)
	t.Logf("%d rounds, seed %d (%s=%d reproduces them)", rounds, seed, crashSeedEnv, seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	sent := map[string]int{}
	kills := 0
	for round := range rounds {
		sc := crashScenarios[round%len(crashScenarios)]
		roundSeed := rng.Uint64()
		t.Run(fmt.Sprintf("%03d-%s", round, sc.name), func(t *testing.T) {
			if crashRound(t, sc, roundSeed, sent) {
				kills++
			}
		})
		if t.Failed() {
			break
		}
	}
	require.Equal(t, rounds, kills, "every round killed its writer")
}

func crashSettings(t *testing.T) (rounds int, seed uint64) {
	t.Helper()
	rounds, seed = len(crashScenarios), uint64(time.Now().UnixNano())
	if v := os.Getenv(crashRoundsEnv); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err, crashRoundsEnv)
		rounds = n
	}
	if v := os.Getenv(crashSeedEnv); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		require.NoError(t, err, crashSeedEnv)
		seed = n
	}
	return rounds, seed
}

// crashScenario is one kind of write to kill.
type crashScenario struct {
	name string
	// setup writes what the round starts from and returns the call to kill.
	setup func(t *testing.T, s *store, rng *rand.Rand) *crashState
}

// crashState is a round's write: the call killed, the calls a next writer may make
// (each meets what the call left), and the checks of each stage.
type crashState struct {
	call  crashCall
	nexts []crashCall
	// killed checks what readers may see right after the kill.
	killed func(t *testing.T, s *store)
	// exact checks the lists and entities the calls wrote, after next.
	exact func(t *testing.T, s *store, next crashCall, when string)
}

var crashScenarios = []crashScenario{
	{"replace", setupCrashReplace},
	{"setlist", setupCrashSetList},
	{"add", setupCrashAdd},
	{"remove", setupCrashRemove},
	{"set", setupCrashSet},
	{"delete", setupCrashDelete},
	{"setreplace", setupCrashSetReplace},
	{"owner", setupCrashOwner},
	{"expire", setupCrashExpire},
	{"combined", setupCrashCombined},
}

const crashPredicate = "follows"

// inflightSettle is how long the crash test lets a request in flight when its
// worker died land, a wide margin on a loaded machine.
const inflightSettle = time.Second

// crashSet is the predicate the crash test declares a set (Options.Sets).
const crashSet = "likes"

var crashSets = []string{crashSet}

// crashOrdered is the predicate the crash test declares an ordered set
// (Options.OrderedSets).
const crashOrdered = "cards"

var crashOrderedSets = []string{crashOrdered}

// listState is the crash state of a large write of subject's list from before to
// after: readers see no entry of neither right after the kill, and afterwards the
// list is before or after, changed by the next writer, with exact bookkeeping.
func listState(subject ryno.Key, call crashCall, before, after []ryno.Key, present ryno.Key) *crashState {
	return &crashState{
		call: call,
		nexts: []crashCall{
			call,
			{Op: "add", Subject: subject, Predicate: crashPredicate, Objects: []ryno.Key{pk("late")}},
			{Op: "remove", Subject: subject, Predicate: crashPredicate, Objects: []ryno.Key{present}},
			{Op: "replace", Subject: subject, Predicate: crashPredicate, Objects: []ryno.Key{pk("only1"), pk("only2")}},
			{Op: "setlists", Subject: subject, Predicate: crashPredicate, Objects: []ryno.Key{pk("only3")}},
			{Op: "delete", Subject: subject},
		},
		killed: func(t *testing.T, s *store) { requireOnlyEntriesOf(t, s, subject, before, after) },
		exact: func(t *testing.T, s *store, next crashCall, when string) {
			if next.Op == "delete" {
				requireNothingOf(t, s, subject, true)
				return
			}
			got := objectsOf(t, s.Client, subject, crashPredicate, 500)
			outcomes := [][]ryno.Key{applyCall(before, next), applyCall(after, next)}
			require.True(t, slices.ContainsFunc(outcomes, func(o []ryno.Key) bool { return slices.Equal(o, got) }),
				"%s: the list is the one before or the one submitted, then the next writer's: got %s; want %s or %s",
				when, brief(got), brief(outcomes[0]), brief(outcomes[1]))
			requireListExact(t, s, subject, crashPredicate)
		},
	}
}

// createObjects creates the entities lists may point at, so that none is an orphan:
// pk(o000..), pk(n000..), late and only1..3, in parallel.
func createObjects(t *testing.T, s *store, keys ...ryno.Key) {
	t.Helper()
	keys = slices.Concat(keys, []ryno.Key{pk("late"), pk("only1"), pk("only2"), pk("only3")})
	inParallel(t, len(keys), func(i int) error {
		_, err := s.Create(ctx, &ryno.Entity{Key: keys[i]})
		return err
	})
}

// pointAt writes the list of each fan, fans[i] -> xs[i], k, in parallel.
func pointAt(t *testing.T, s *store, k ryno.Key, fans, xs []ryno.Key) {
	t.Helper()
	inParallel(t, len(fans), func(i int) error {
		return s.ReplaceRelationships(ctx, fans[i], crashPredicate, []ryno.Key{xs[i], k})
	})
}

// inParallel calls call(0) to call(n-1), 8 at a time, and fails t with their errors.
func inParallel(t *testing.T, n int, call func(i int) error) {
	t.Helper()
	errs := make([]error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[i] = call(i)
		})
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
}

func setupCrashReplace(t *testing.T, s *store, rng *rand.Rand) *crashState {
	subject := pk("hub")
	old := pks("o", 150)
	createObjects(t, s, slices.Concat([]ryno.Key{subject}, old, pks("n", 75))...)
	require.NoError(t, s.ReplaceRelationships(ctx, subject, crashPredicate, old))
	// Keep half the old objects, in another order, among as many new ones.
	kept := slices.Clone(old[:75])
	next := slices.Concat(kept, pks("n", 75))
	rng.Shuffle(len(next), func(i, j int) { next[i], next[j] = next[j], next[i] })
	call := crashCall{Op: "replace", Subject: subject, Predicate: crashPredicate, Objects: next}
	return listState(subject, call, old, next, kept[0])
}

// setupCrashSetList writes the entity with a list of 200 objects, 25 of its old 50
// kept, with Set and ReplaceLists: the entity goes first with a pending mark, then
// the list under a lease, then the mark is cleared.
func setupCrashSetList(t *testing.T, s *store, rng *rand.Rand) *crashState {
	subject := pk("hub")
	old := pks("o", 50)
	createObjects(t, s, slices.Concat([]ryno.Key{subject}, old, pks("n", 175))...)
	require.NoError(t, s.ReplaceRelationships(ctx, subject, crashPredicate, old))
	next := slices.Concat(old[:25], pks("n", 175))
	rng.Shuffle(len(next), func(i, j int) { next[i], next[j] = next[j], next[i] })
	call := crashCall{Op: "setlists", Subject: subject, Predicate: crashPredicate, Objects: next}
	return listState(subject, call, old, next, old[0])
}

func setupCrashAdd(t *testing.T, s *store, _ *rand.Rand) *crashState {
	subject := pk("hub")
	old := pks("o", 50)
	createObjects(t, s, slices.Concat([]ryno.Key{subject}, old, pks("n", 150))...)
	require.NoError(t, s.ReplaceRelationships(ctx, subject, crashPredicate, old))
	added := pks("n", 150)
	call := crashCall{Op: "add", Subject: subject, Predicate: crashPredicate, Objects: added}
	return listState(subject, call, old, slices.Concat(old, added), old[0])
}

// setupCrashCombined kills a process whose 4 clients append 40 objects to one
// list at once, one object a call, combining their calls on the list's head: the
// list then holds the old objects, then some of the new ones, each once, and
// whatever the next writer adds after them.
func setupCrashCombined(t *testing.T, s *store, _ *rand.Rand) *crashState {
	subject := pk("hub")
	old := pks("o", 10)
	added := pks("n", 40)
	createObjects(t, s, slices.Concat([]ryno.Key{subject}, old, added)...)
	require.NoError(t, s.ReplaceRelationships(ctx, subject, crashPredicate, old))
	call := crashCall{Op: "combined", Subject: subject, Predicate: crashPredicate, Objects: added, Writers: 4}
	late := pk("late")
	return &crashState{
		call: call,
		nexts: []crashCall{
			{Op: "add", Subject: subject, Predicate: crashPredicate, Objects: added},
			{Op: "add", Subject: subject, Predicate: crashPredicate, Objects: []ryno.Key{late}},
			{Op: "delete", Subject: subject},
		},
		killed: func(t *testing.T, s *store) {
			requireOnlyEntriesOf(t, s, subject, old, added)
			requireListExact(t, s, subject, crashPredicate)
		},
		exact: func(t *testing.T, s *store, next crashCall, when string) {
			if next.Op == "delete" {
				requireNothingOf(t, s, subject, true)
				return
			}
			got := objectsOf(t, s.Client, subject, crashPredicate, 500)
			require.GreaterOrEqual(t, len(got), len(old), when)
			require.Equal(t, old, got[:len(old)], "%s: the old objects first, in order", when)
			rest := got[len(old):]
			if slices.Equal(next.Objects, []ryno.Key{late}) {
				require.Equal(t, late, rest[len(rest)-1], "%s: the next writer's object last", when)
				rest = rest[:len(rest)-1]
				require.Subset(t, added, rest, "%s: then some of the new objects", when)
				seen := map[ryno.Key]bool{}
				for _, o := range rest {
					require.False(t, seen[o], "%s: %s twice", when, o)
					seen[o] = true
				}
			} else {
				require.ElementsMatch(t, added, rest, "%s: then every new object", when)
			}
			requireListExact(t, s, subject, crashPredicate)
		},
	}
}

func setupCrashRemove(t *testing.T, s *store, rng *rand.Rand) *crashState {
	subject := pk("hub")
	old := pks("o", 200)
	createObjects(t, s, slices.Concat([]ryno.Key{subject}, old)...)
	require.NoError(t, s.ReplaceRelationships(ctx, subject, crashPredicate, old))
	gone := map[ryno.Key]bool{}
	var removed []ryno.Key
	for _, i := range rng.Perm(len(old))[:120] {
		removed = append(removed, old[i])
		gone[old[i]] = true
	}
	left := slices.DeleteFunc(slices.Clone(old), func(o ryno.Key) bool { return gone[o] })
	call := crashCall{Op: "remove", Subject: subject, Predicate: crashPredicate, Objects: removed}
	return listState(subject, call, old, left, left[0])
}

func setupCrashSet(t *testing.T, s *store, _ *rand.Rand) *crashState {
	d := crashDoc{ID: "d", Slug: "s0", Tags: 10}
	_, err := s.Set(ctx, d.entity())
	require.NoError(t, err)
	k := d.entity().Key
	call := crashCall{Op: "set", Entity: &crashDoc{ID: "d", Slug: "s1", Tags: 150}}
	return &crashState{
		call: call,
		nexts: []crashCall{
			call,
			{Op: "set", Entity: &crashDoc{ID: "d", Slug: "s2", Tags: 5}},
			{Op: "delete", Subject: k},
		},
		killed: func(t *testing.T, s *store) {
			e, err := s.Get(ctx, k)
			require.NoError(t, err, "the entity is the one before or the one written")
			require.Contains(t, []any{"s0", "s1"}, e.Attributes["slug"])
		},
		exact: func(t *testing.T, s *store, next crashCall, when string) {
			if next.Op == "delete" {
				requireNothingOf(t, s, k, true)
				return
			}
			e, err := s.Get(ctx, k)
			require.NoError(t, err)
			require.Equal(t, next.Entity.Slug, e.Attributes["slug"], when)
			// A value the entity no longer holds is free for another.
			for _, slug := range []string{"s0", "s1", "s2"} {
				if slug == next.Entity.Slug {
					continue
				}
				other := crashDoc{ID: "other-" + slug, Slug: slug, Tags: 1}
				_, err := s.Create(ctx, other.entity())
				require.NoError(t, err, "%s: %s is free", when, slug)
				require.NoError(t, s.Delete(ctx, other.entity().Key))
			}
		},
	}
}

func setupCrashDelete(t *testing.T, s *store, _ *rand.Rand) *crashState {
	gone := crashDoc{ID: "gone", Slug: "g", Tags: 5}
	_, err := s.Set(ctx, gone.entity())
	require.NoError(t, err)
	k := gone.entity().Key
	fans := pks("fan", 150)
	createObjects(t, s, slices.Concat(fans, pks("x", 150))...)
	require.NoError(t, s.ReplaceRelationships(ctx, k, crashPredicate, fans))
	pointAt(t, s, k, fans, pks("x", 150))
	call := crashCall{Op: "delete", Subject: k}
	landed := false // the tombstone landed: the Delete began
	return &crashState{
		call: call,
		nexts: []crashCall{
			call,
			{Op: "set", Entity: &gone},
			{Op: "add", Subject: k, Predicate: crashPredicate, Objects: []ryno.Key{pk("late")}},
		},
		killed: func(t *testing.T, s *store) {
			_, err := s.Get(ctx, k)
			landed = errors.Is(err, ryno.ErrNotFound)
			if !landed {
				require.NoError(t, err)
			}
		},
		exact: func(t *testing.T, s *store, next crashCall, when string) {
			deleted := landed || next.Op == "delete"
			if !deleted {
				// A tombstone still in flight when its writer was killed can land
				// after the check above: the Delete then took effect, and the next
				// writer completed it. Every list and the entity must agree.
				deleted = !slices.Contains(objectsOf(t, s.Client, fans[0], crashPredicate, 10), k)
			}
			for i, f := range fans {
				want := []ryno.Key{pks("x", 150)[i], k}
				if deleted {
					want = want[:1]
				}
				if i%10 == 0 || !deleted {
					require.Equal(t, want, objectsOf(t, s.Client, f, crashPredicate, 10), "%s: the list of %s", when, f)
					requireListExact(t, s, f, crashPredicate)
				}
			}
			switch {
			case deleted && next.Op == "set":
				_, err := s.Get(ctx, k)
				require.NoError(t, err, "%s: created anew", when)
				require.Empty(t, objectsOf(t, s.Client, k, crashPredicate, 10), "%s: with no list", when)
				require.Empty(t, subjectsPointingAt(t, s.Client, k), "%s: nothing points at it", when)
			case deleted:
				requireNothingOf(t, s, k, true)
			default:
				want := fans
				if next.Op == "add" {
					want = append(slices.Clone(fans), pk("late"))
				}
				require.Equal(t, want, objectsOf(t, s.Client, k, crashPredicate, 500), when)
				requireListExact(t, s, k, crashPredicate)
			}
		},
	}
}

// setupCrashExpire stores a doc that has expired by the real clock, though not by
// the setup's, with 150 lists pointing at it and one of its own; the write killed
// creates another doc taking its unique value, which deletes the expired doc first.
// Readers never see the expired doc. Killed half-way, that deletion is a Delete cut
// off: the next writer of the expired doc's key (a Delete, or a Set of it anew)
// completes it, and nothing of the expired doc is left. (A retried taker need not:
// once the sweep has released the value, it no longer meets the expired doc.)
func setupCrashExpire(t *testing.T, s *store, _ *rand.Rand) *crashState {
	// DynamoDB's time to live can take days to remove an expired item: this is the
	// writer that meets it first. DynamoDB Local removes one within seconds, so its
	// time to live is off here.
	_, err := s.raw.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(s.Names().Entities),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(schema.AttrExpires), Enabled: aws.Bool(false)}})
	require.NoError(t, err)
	gone := crashDoc{ID: "gone", Slug: "g", Tags: 5}
	e := gone.entity()
	e.Expires = time.Now().Add(-time.Minute)
	_, err = s.Set(ctx, e)
	require.NoError(t, err)
	k := e.Key
	fans := pks("fan", 150)
	createObjects(t, s, slices.Concat(fans, pks("x", 150))...)
	require.NoError(t, s.ReplaceRelationships(ctx, k, crashPredicate, fans))
	pointAt(t, s, k, fans, pks("x", 150))
	taker := crashDoc{ID: "taker", Slug: "g", Tags: 2}
	call := crashCall{Op: "set", Entity: &taker}
	reader := func(t *testing.T, s *store) *ryno.Client {
		return newClientOn(t, s, ryno.Options{Indexes: slugIndexes})
	}
	return &crashState{
		call:  call,
		nexts: []crashCall{{Op: "delete", Subject: k}, {Op: "set", Entity: &crashDoc{ID: "gone", Slug: "g2", Tags: 1}}},
		killed: func(t *testing.T, s *store) {
			_, err := reader(t, s).Get(ctx, k)
			require.ErrorIs(t, err, ryno.ErrNotFound, "an expired entity reads as missing at once")
		},
		exact: func(t *testing.T, s *store, next crashCall, when string) {
			for i, f := range fans {
				if i%10 == 0 {
					require.Equal(t, []ryno.Key{pks("x", 150)[i]}, objectsOf(t, s.Client, f, crashPredicate, 10), "%s: the list of %s", when, f)
					requireListExact(t, s, f, crashPredicate)
				}
			}
			db := reader(t, s)
			if next.Entity != nil && next.Entity.ID == "gone" {
				got, err := db.Get(ctx, k)
				require.NoError(t, err, "%s: created anew", when)
				require.True(t, got.Expires.IsZero(), "%s: a new entity", when)
				require.Empty(t, objectsOf(t, s.Client, k, crashPredicate, 10), "%s: with no list", when)
				require.Empty(t, subjectsPointingAt(t, s.Client, k), "%s: nothing points at it", when)
			} else {
				requireNothingOf(t, s, k, true)
			}
			if got, err := db.GetByUnique(ctx, ryno.ScopedIndex{Scope: "acme", Index: "slug"}, indexing.String("g")); err == nil {
				require.Equal(t, "taker", got.ID, "%s: the value is the taker's, or no one's", when)
			} else {
				require.ErrorIs(t, err, ryno.ErrNotFound)
			}
		},
	}
}

// setupCrashSetReplace replaces 150 of a set's 150 objects with 75 kept and 75 new,
// with ReplaceRelationships or with Set and ReplaceLists; in half the rounds the set
// is an ordered set, which the next Replace leaves in exactly its order.
// Right after the kill, the set holds objects of the old set or the new one only.
// After a next writer, it holds each object the next writer's call settles as that
// call left it, every object of both sets, and any object of one of them.
func setupCrashSetReplace(t *testing.T, s *store, rng *rand.Rand) *crashState {
	subject := pk("hub")
	old := pks("o", 150)
	createObjects(t, s, slices.Concat([]ryno.Key{subject}, old, pks("n", 75))...)
	kept := slices.Clone(old[:75])
	next := slices.Concat(kept, pks("n", 75))
	rng.Shuffle(len(next), func(i, j int) { next[i], next[j] = next[j], next[i] })
	// Half the rounds replace the set with Set and ReplaceLists: the entity, then
	// the set as ReplaceRelationships writes it.
	op := "replace"
	if rng.IntN(2) == 0 {
		op = "setlists"
	}
	// Half the rounds write an ordered set: listed in order, replaced exactly.
	set := crashSet
	if rng.IntN(2) == 0 {
		set = crashOrdered
	}
	require.NoError(t, s.ReplaceRelationships(ctx, subject, set, old))
	call := crashCall{Op: op, Subject: subject, Predicate: set, Objects: next}
	return &crashState{
		call: call,
		nexts: []crashCall{
			call,
			{Op: "add", Subject: subject, Predicate: set, Objects: []ryno.Key{pk("late")}},
			{Op: "remove", Subject: subject, Predicate: set, Objects: []ryno.Key{kept[0]}},
			{Op: "delete", Subject: subject},
		},
		killed: func(t *testing.T, s *store) {
			got := objectsOf(t, s.Client, subject, set, 500)
			requireSetBetween(t, got, kept, slices.Concat(old, next), "after the kill")
		},
		exact: func(t *testing.T, s *store, nextCall crashCall, when string) {
			got := objectsOf(t, s.Client, subject, set, 500)
			switch {
			case nextCall.Op == "delete" && when == "after the next writer":
				// A set write killed in flight can land after the Delete read what
				// to sweep (README, Sets): its entries are orphans of the deleted
				// subject until the repair deletes them.
				requireSetBetween(t, got, nil, next, when+": entries of the killed call's objects only")
				_, err := s.Get(ctx, subject)
				require.ErrorIs(t, err, ryno.ErrNotFound, when)
			case nextCall.Op == "delete":
				requireNothingOf(t, s, subject, true)
			case (nextCall.Op == "replace" || nextCall.Op == "setlists") && set == crashOrdered:
				require.Equal(t, next, got, "%s: the ordered set submitted, in its order", when)
			case nextCall.Op == "replace" || nextCall.Op == "setlists":
				require.ElementsMatch(t, next, got, "%s: the set submitted", when)
			case nextCall.Op == "add":
				requireSetBetween(t, got, append(slices.Clone(kept), pk("late")), slices.Concat(old, next, []ryno.Key{pk("late")}), when)
			case nextCall.Op == "remove":
				requireSetBetween(t, got, kept[1:], slices.DeleteFunc(slices.Concat(old, next), func(k ryno.Key) bool { return k == kept[0] }), when)
			}
		},
	}
}

// setupCrashOwner deletes a project that owns 25 issues of 2 comments each
// (Options.Owns). After a next writer (a Delete again, or a Set that creates the
// project anew) and after the repair, nothing of the tree is left but a project
// created anew, and Check finds nothing.
func setupCrashOwner(t *testing.T, s *store, _ *rand.Rand) *crashState {
	keys := seedTree(t, s, "rocket", 25, 2)
	root := keys[0]
	call := crashCall{Op: "delete", Subject: root}
	return &crashState{
		call:  call,
		nexts: []crashCall{call, {Op: "setlists", Subject: root, Predicate: "issues", Objects: nil}},
		killed: func(t *testing.T, s *store) {
			e, err := s.Get(ctx, root)
			if err == nil {
				require.Equal(t, root, e.Key, "the project, if its tombstone had not landed")
			} else {
				require.ErrorIs(t, err, ryno.ErrNotFound)
			}
		},
		exact: func(t *testing.T, s *store, next crashCall, when string) {
			gone := keys
			if next.Op == "setlists" {
				_, err := s.Get(ctx, root)
				require.NoError(t, err, "%s: created anew", when)
				require.Empty(t, objectsOf(t, s.Client, root, "issues", 10), "%s: with no issue", when)
				gone = keys[1:]
			}
			got, err := s.BatchGet(ctx, gone)
			require.NoError(t, err)
			for i, e := range got {
				require.Nil(t, e, "%s: %s is deleted", when, gone[i])
			}
			require.Empty(t, objectsOf(t, s.Client, pk("fan-rocket"), "follows", 10), "%s: nothing points into the tree", when)
		},
	}
}

// requireSetBetween checks that set holds every object of least, none outside
// most, and each object once.
func requireSetBetween(t *testing.T, set, least, most []ryno.Key, when string) {
	t.Helper()
	seen := map[ryno.Key]bool{}
	for _, k := range set {
		require.False(t, seen[k], "%s: the set holds %s twice", when, k)
		seen[k] = true
		require.Contains(t, most, k, "%s: the set holds %s, of neither set", when, k)
	}
	for _, k := range least {
		require.True(t, seen[k], "%s: the set lost %s, which every call kept", when, k)
	}
}

// requireOnlyEntriesOf checks what readers may see of subject's list after a kill:
// no entry of an object of neither the list before nor the one submitted.
func requireOnlyEntriesOf(t *testing.T, s *store, subject ryno.Key, before, after []ryno.Key) {
	t.Helper()
	allowed := map[ryno.Key]bool{}
	for _, o := range slices.Concat(before, after) {
		allowed[o] = true
	}
	for _, o := range objectsOf(t, s.Client, subject, crashPredicate, 500) {
		require.True(t, allowed[o], "after the kill, %s holds %s, of neither list", subject, o)
	}
}

// maxCrashTries bounds the writes a round starts to kill one.
const maxCrashTries = 4

// crashRound runs one round: the write killed, the checks after the kill, after the
// next writer and after Check with Repair. It reports whether the worker was killed.
func crashRound(t *testing.T, sc crashScenario, seed uint64, sent map[string]int) bool {
	rng := rand.New(rand.NewPCG(seed, 1))
	if sent[sc.name] == 0 { // how many requests the write sends when nothing kills it
		sent[sc.name] = crashCount(t, sc, seed)
	}
	killAt := 1 + rng.IntN(sent[sc.name])
	mode := []string{"before", "after", "inflight"}[rng.IntN(3)]
	var s *store
	var st *crashState
	var killed bool
	for try := 1; ; try++ {
		s = newStoreOpts(t, nil, ryno.Options{Indexes: slugIndexes, Sets: crashSets, OrderedSets: crashOrderedSets, Owns: ownsTree})
		st = sc.setup(t, s, rng)
		t.Logf("kill at request %d of %d, %s", killAt, sent[sc.name], mode)
		killed = runWorker(t, crashSpec{Endpoint: dynamotest.Endpoint(), Prefix: s.Names().Prefix, Call: st.call,
			KillAt: killAt, Mode: mode, Seed: seed})
		if killed || killAt == 1 || try == maxCrashTries {
			break
		}
		// The write finished in fewer requests than that: their number varies with
		// the timing of parallel requests and refusals. Kill an earlier one.
		killAt = 1 + rng.IntN(killAt-1)
	}
	st.killed(t, s)
	if mode == "inflight" {
		// The request the worker died sending is still served: let it land before
		// the next writer, as the next writer on AWS comes after it has landed or
		// timed out. A set write's batch carries no condition, so one landing after
		// the next writer's call on the same objects would undo it (README, Sets).
		time.Sleep(inflightSettle)
	}

	// The next writer comes once the killed writer's lease expired.
	later := func() time.Time { return time.Now().Add(testLease + time.Second) }
	next := newClientOn(t, s, ryno.Options{Indexes: slugIndexes, Sets: crashSets, OrderedSets: crashOrderedSets, Owns: ownsTree, ListLease: testLease, Now: later})
	call := st.nexts[rng.IntN(len(st.nexts))]
	t.Logf("next writer: %s", call.Op)
	err := call.run(ctx, next)
	if call.Op == "add" && sc.name == "delete" && errors.Is(err, ryno.ErrNotFound) {
		err = nil // the Delete had begun: the Add completes it and finds no subject
	}
	require.NoError(t, err, "the next writer")
	st.exact(t, s, call, "after the next writer")
	requireIndexExact(t, s)
	requireClaimsExact(t, s)

	// The checker's own lease is longer than the writer's, as the CLI's default may
	// be: it judges what the writer left by the writer's lease.
	checker := newClientOn(t, s, ryno.Options{Indexes: slugIndexes, Sets: crashSets, OrderedSets: crashOrderedSets, Owns: ownsTree, ListLease: 10 * testLease, Now: later})
	_, err = checker.Check(ctx, ryno.CheckOptions{Repair: true})
	require.NoError(t, err)
	requireNoMarks(t, s)
	st.exact(t, s, call, "after check --repair")
	requireIndexExact(t, s)
	requireClaimsExact(t, s)
	var found []string
	done, err := checker.Check(ctx, ryno.CheckOptions{
		OnOrphan: func(o ryno.Orphan) { found = append(found, o.String()) },
		OnTrace:  func(tr ryno.Trace) { found = append(found, tr.String()) },
	})
	require.NoError(t, err)
	require.Zero(t, done.Orphans+done.Traces, "check finds nothing after the repair: %v", found)
	return killed
}

// requireNoMarks checks that no entity item carries a pending mark or a tombstone.
func requireNoMarks(t *testing.T, s *store) {
	t.Helper()
	for k, item := range entityItems(t, s.raw, s.Names()) {
		require.NotContains(t, item, schema.AttrPending, "the pending mark of %s", k)
		require.NotContains(t, item, schema.AttrDeleting, "the tombstone of %s", k)
	}
}

// crashCount runs the scenario's write to the end in a worker and returns how many
// requests it sent.
func crashCount(t *testing.T, sc crashScenario, seed uint64) int {
	t.Helper()
	s := newStoreOpts(t, nil, ryno.Options{Indexes: slugIndexes, Sets: crashSets, OrderedSets: crashOrderedSets, Owns: ownsTree})
	st := sc.setup(t, s, rand.New(rand.NewPCG(seed, 1)))
	out := workerOutput(t, crashSpec{Endpoint: dynamotest.Endpoint(), Prefix: s.Names().Prefix, Call: st.call})
	var n, posts int
	_, err := fmt.Sscanf(out, "requests %d posts %d", &n, &posts)
	require.NoError(t, err, "worker output %q", out)
	require.Positive(t, n)
	if st.call.Op == "combined" {
		require.Positive(t, posts, "the clients of the worker combined their calls")
	}
	return n
}

// runWorker runs a worker process for spec and reports whether SIGKILL ended it.
func runWorker(t *testing.T, spec crashSpec) bool {
	t.Helper()
	cmd, out := workerCommand(t, spec)
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return true
		}
	}
	require.NoError(t, err, "the worker ended without being killed: %s", out)
	return false
}

func workerOutput(t *testing.T, spec crashSpec) string {
	t.Helper()
	cmd, out := workerCommand(t, spec)
	require.NoError(t, cmd.Run(), "worker: %s", out)
	return out.String()
}

func workerCommand(t *testing.T, spec crashSpec) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	raw, err := json.Marshal(spec)
	require.NoError(t, err)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashWorkerEnv+"="+string(raw))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	return cmd, &out
}

// applyCall returns list after the list call c.
func applyCall(list []ryno.Key, c crashCall) []ryno.Key {
	switch c.Op {
	case "replace", "setlists":
		return c.Objects
	case "add":
		out := slices.Clone(list)
		for _, o := range c.Objects {
			if !slices.Contains(out, o) {
				out = append(out, o)
			}
		}
		return out
	case "remove":
		return slices.DeleteFunc(slices.Clone(list), func(o ryno.Key) bool { return slices.Contains(c.Objects, o) })
	}
	return list
}

// brief writes keys by id, for a failure message.
func brief(keys []ryno.Key) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d [", len(keys))
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k.ID)
	}
	b.WriteByte(']')
	return b.String()
}
