package integration_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/ryno"
)

// uniqueIndexes index users by e-mail, unique, and by age, not.
var uniqueIndexes = []ryno.Index{
	{Type: "user", Name: "user-email", Map: emitEmail, Unique: true},
	{Type: "user", Name: "user-age", Map: emitAge},
}

func user(id, email string) *ryno.Entity {
	return &ryno.Entity{Key: ryno.Key{Scope: "acme", Type: "user", ID: id}, Attributes: map[string]any{"email": email, "age": 30}}
}

func TestConcurrentClaimantsOfOneValueExactlyOneWins(t *testing.T) {
	dynamotest.Parallel(t)
	const claimants, rounds = 10, 20
	s := newStoreOpts(t, nil, ryno.Options{Indexes: uniqueIndexes})
	for round := range rounds {
		email := fmt.Sprintf("same%d@example.com", round)
		var won, taken atomic.Int64
		race(claimants, func(g int) {
			_, err := s.Create(ctx, user(fmt.Sprintf("r%d-u%d", round, g), email))
			var unique *ryno.UniqueError
			switch {
			case err == nil:
				won.Add(1)
			case errors.As(err, &unique) && errors.Is(err, ryno.ErrExists):
				require.Equal(t, "user-email", unique.Index)
				require.Equal(t, email, unique.Value)
				taken.Add(1)
			default:
				t.Errorf("claimant %d: %v", g, err)
			}
		})
		require.Equal(t, int64(1), won.Load(), "round %d: exactly one claimant wins", round)
		require.Equal(t, int64(claimants-1), taken.Load())
		owner, err := s.GetByUnique(ctx, ryno.ScopedIndex{Scope: "acme", Index: "user-email"}, indexing.String(email))
		require.NoError(t, err)
		require.Equal(t, email, owner.Attributes["email"])
	}
	requireIndexExact(t, s)
	requireClaimsExact(t, s)
}

func TestAChangedValueIsFreedAndTheNewOneHeld(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: uniqueIndexes})
	ada, err := s.Create(ctx, user("ada", "ada@example.com"))
	require.NoError(t, err)
	_, err = s.Create(ctx, user("bob", "bob@example.com"))
	require.NoError(t, err)

	_, err = s.Create(ctx, user("eve", "ada@example.com"))
	require.ErrorIs(t, err, ryno.ErrExists)
	_, err = s.Get(ctx, user("eve", "").Key)
	require.ErrorIs(t, err, ryno.ErrNotFound, "nothing was written")

	s.counter.Reset()
	ada.Attributes["email"] = "countess@example.com"
	_, err = s.Update(ctx, ada)
	require.NoError(t, err)
	require.LessOrEqual(t, s.counter.Rounds(), 2, "the entries, then one transaction with the claims")

	_, err = s.Create(ctx, user("eve", "ada@example.com"))
	require.NoError(t, err, "the old value is free at once")
	_, err = s.Patch(ctx, user("bob", "").Key, ryno.Patch{Set: map[string]any{"email": "countess@example.com"}})
	require.ErrorIs(t, err, ryno.ErrExists, "the new value is held")
	_, err = s.Set(ctx, user("bob", "countess@example.com"))
	require.ErrorIs(t, err, ryno.ErrExists)

	k, err := s.LookupUnique(ctx, ryno.ScopedIndex{Scope: "acme", Index: "user-email"}, indexing.String("countess@example.com"))
	require.NoError(t, err)
	require.Equal(t, ada.Key, k)

	require.NoError(t, s.Delete(ctx, ada.Key))
	_, err = s.LookupUnique(ctx, ryno.ScopedIndex{Scope: "acme", Index: "user-email"}, indexing.String("countess@example.com"))
	require.ErrorIs(t, err, ryno.ErrNotFound, "a deleted user frees its value")
	_, err = s.Patch(ctx, user("bob", "").Key, ryno.Patch{Set: map[string]any{"email": "countess@example.com"}})
	require.NoError(t, err)
	requireIndexExact(t, s)
	requireClaimsExact(t, s)
}

func TestLookupUniqueRefusesWhatIsNotAUniqueIndex(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: uniqueIndexes})
	_, err := s.LookupUnique(ctx, ryno.ScopedIndex{Scope: "acme", Index: "user-age"}, indexing.Int(30))
	require.ErrorIs(t, err, ryno.ErrInvalid)
	_, err = s.LookupUnique(ctx, ryno.ScopedIndex{Scope: "acme", Index: "nope"}, indexing.Int(30))
	require.ErrorIs(t, err, ryno.ErrInvalid)
	require.Zero(t, s.counter.Total())
}

func TestReindexOfAUniqueIndexReportsItsDuplicates(t *testing.T) {
	// Users written before the index was unique: two share an e-mail.
	plain := []ryno.Index{{Type: "user", Name: "user-email", Map: emitEmail}, uniqueIndexes[1]}
	before := newStoreOpts(t, nil, ryno.Options{Indexes: plain})
	for _, u := range []*ryno.Entity{user("a", "same@example.com"), user("b", "same@example.com"), user("c", "c@example.com")} {
		_, err := before.Create(ctx, u)
		require.NoError(t, err)
	}
	s := &store{Client: newClientOn(t, before, ryno.Options{Indexes: uniqueIndexes}), raw: before.raw, counter: before.counter, indexes: uniqueIndexes}

	done, err := s.Reindex(ctx, ryno.Type{Scope: "acme", Name: "user"}, nil)
	require.NoError(t, err)
	require.Len(t, done.Duplicates, 1)
	d := done.Duplicates[0]
	require.Equal(t, "user-email", d.Index)
	require.Equal(t, "same@example.com", d.Value)
	require.ElementsMatch(t, []ryno.Key{user("a", "").Key, user("b", "").Key}, []ryno.Key{d.Entity, d.Owner})
	require.Len(t, claimItems(t, s), 2, "the held values are claimed, the duplicate is not written twice")

	again, err := s.Reindex(ctx, ryno.Type{Scope: "acme", Name: "user"}, nil)
	require.NoError(t, err)
	require.Len(t, again.Duplicates, 1, "still reported until someone resolves it")
	require.Zero(t, again.Puts)
}

func TestCheckFindsAndRepairsOrphanClaims(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: uniqueIndexes})
	for _, u := range []*ryno.Entity{user("a", "a@example.com"), user("b", "b@example.com")} {
		_, err := s.Create(ctx, u)
		require.NoError(t, err)
	}
	plant := func(c indexentries.Claim) {
		_, err := s.raw.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.Names().IndexEntries), Item: c.Item()})
		require.NoError(t, err)
	}
	gone := indexentries.Claim{Scope: "acme", IndexName: "user-email", Value: indexing.String("gone@example.com"), Type: "user", ID: "ghost"}
	unheld := indexentries.Claim{Scope: "acme", IndexName: "user-email", Value: indexing.String("old@example.com"), Type: "user", ID: "a"}
	plant(gone)
	plant(unheld)

	var found []string
	done, err := s.Check(ctx, ryno.CheckOptions{OnOrphan: func(o ryno.Orphan) { found = append(found, o.String()) }})
	require.NoError(t, err)
	require.Equal(t, 2, done.Orphans)
	require.Len(t, found, 2)
	require.Contains(t, found[0]+found[1], "acme:user:ghost does not exist")
	require.Contains(t, found[0]+found[1], "acme:user:a no longer holds the value it claims")

	done, err = s.Check(ctx, ryno.CheckOptions{Repair: true})
	require.NoError(t, err)
	require.Equal(t, 2, done.Repaired)
	requireClaimsExact(t, s)
	requireIndexExact(t, s)
	done, err = s.Check(ctx, ryno.CheckOptions{})
	require.NoError(t, err)
	require.Zero(t, done.Orphans)
}

// readRecorder records the GetItem and Query inputs sent through it; afterClaim,
// when set, runs after each read of a claim returned, with how many were read.
type readRecorder struct {
	ryno.DynamoDBAPI
	claims string // the index entries table, where claims are

	mu         sync.Mutex
	gets       []*dynamodb.GetItemInput
	queries    []*dynamodb.QueryInput
	claimReads int
	afterClaim func(n int)
}

func (r *readRecorder) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	out, err := r.DynamoDBAPI.GetItem(ctx, in, opts...)
	r.mu.Lock()
	r.gets = append(r.gets, in)
	var after func()
	if aws.ToString(in.TableName) == r.claims {
		r.claimReads++
		if f, n := r.afterClaim, r.claimReads; f != nil {
			after = func() { f(n) }
		}
	}
	r.mu.Unlock()
	if after != nil {
		after()
	}
	return out, err
}

func (r *readRecorder) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	r.mu.Lock()
	r.queries = append(r.queries, in)
	r.mu.Unlock()
	return r.DynamoDBAPI.Query(ctx, in, opts...)
}

// reset forgets what was recorded.
func (r *readRecorder) reset(afterClaim func(n int)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gets, r.queries, r.claimReads, r.afterClaim = nil, nil, 0, afterClaim
}

// claimCount returns how many claims were read.
func (r *readRecorder) claimCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.claimReads
}

// consistent returns ConsistentRead of every GetItem and Query recorded.
func (r *readRecorder) consistent() []bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []bool
	for _, in := range r.gets {
		out = append(out, aws.ToBool(in.ConsistentRead))
	}
	for _, in := range r.queries {
		out = append(out, aws.ToBool(in.ConsistentRead))
	}
	return out
}

// newRecordedStore returns a store of users whose reads go through a readRecorder.
func newRecordedStore(t *testing.T, opts ryno.Options) (*store, *readRecorder) {
	t.Helper()
	rec := &readRecorder{}
	opts.Indexes = uniqueIndexes
	s := newStoreOpts(t, func(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
		rec.DynamoDBAPI = api
		return rec
	}, opts)
	rec.claims = s.Names().IndexEntries
	return s, rec
}

func TestUniqueLookupsReadConsistentlyWhenAsked(t *testing.T) {
	dynamotest.Parallel(t)
	byEmail := ryno.ScopedIndex{Scope: "acme", Index: "user-email"}
	ada := indexing.String("ada@example.com")
	lookup := func(opts ...ryno.GetOption) func(db *ryno.Client) error {
		return func(db *ryno.Client) error {
			_, err := db.LookupUnique(ctx, byEmail, ada, opts...)
			return err
		}
	}
	get := func(opts ...ryno.GetOption) func(db *ryno.Client) error {
		return func(db *ryno.Client) error {
			_, err := db.GetByUnique(ctx, byEmail, ada, opts...)
			return err
		}
	}
	tests := []struct {
		name  string
		opts  ryno.Options
		call  func(db *ryno.Client) error
		reads int // GetItem and Query requests
		want  bool
	}{
		{"LookupUnique, Consistent", ryno.Options{}, lookup(ryno.Consistent()), 1, true},
		{"LookupUnique, by default", ryno.Options{ConsistentRead: true}, lookup(), 1, true},
		{"LookupUnique, not asked", ryno.Options{}, lookup(), 1, false},
		{"GetByUnique, Consistent", ryno.Options{}, get(ryno.Consistent()), 2, true},
		{"GetByUnique, Consistent, with relationships", ryno.Options{}, get(ryno.Consistent(), ryno.WithRelationships()), 3, true},
		{"GetByUnique, by default", ryno.Options{ConsistentRead: true}, get(), 2, true},
		{"GetByUnique, not asked", ryno.Options{}, get(), 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, rec := newRecordedStore(t, tt.opts)
			_, err := s.Create(ctx, user("ada", "ada@example.com"))
			require.NoError(t, err)
			rec.reset(nil)
			require.NoError(t, tt.call(s.Client))
			got := rec.consistent()
			require.Len(t, got, tt.reads)
			for i, c := range got {
				require.Equal(t, tt.want, c, "read %d", i)
			}
		})
	}
}

func TestLookupUniqueRefusesWithRelationships(t *testing.T) {
	s := newStoreOpts(t, nil, ryno.Options{Indexes: uniqueIndexes})
	_, err := s.LookupUnique(ctx, ryno.ScopedIndex{Scope: "acme", Index: "user-email"}, indexing.String("ada@example.com"), ryno.WithRelationships())
	require.ErrorIs(t, err, ryno.ErrInvalid)
	require.Zero(t, s.counter.Total())
}

func TestGetByUniqueNeverReturnsAnEntityThatGaveTheValueUp(t *testing.T) {
	dynamotest.Parallel(t)
	byEmail := ryno.ScopedIndex{Scope: "acme", Index: "user-email"}
	value := indexing.String("ada@example.com")
	tests := []struct {
		name string
		// move changes the users after the nth read of the claim, through another client.
		move   func(t *testing.T, other *ryno.Client, n int)
		want   string // the id of the user returned; "" for ErrNotFound
		claims int    // the claim reads
	}{
		{"the value stays", func(*testing.T, *ryno.Client, int) {}, "ada", 1},
		{"the value moved to another user", func(t *testing.T, other *ryno.Client, n int) {
			if n == 1 {
				setEmail(t, other, "ada", "countess@example.com")
				setEmail(t, other, "bob", "ada@example.com")
			}
		}, "bob", 2},
		{"the value was given up", func(t *testing.T, other *ryno.Client, n int) {
			if n == 1 {
				setEmail(t, other, "ada", "countess@example.com")
			}
		}, "", 2},
		{"its holder was deleted", func(t *testing.T, other *ryno.Client, n int) {
			if n == 1 {
				require.NoError(t, other.Delete(ctx, user("ada", "").Key))
			}
		}, "", 2},
		{"the value kept moving", func(t *testing.T, other *ryno.Client, n int) {
			from, to := "ada", "bob"
			if n%2 == 0 {
				from, to = to, from
			}
			setEmail(t, other, from, fmt.Sprintf("%s%d@example.com", from, n))
			setEmail(t, other, to, "ada@example.com")
		}, "", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, rec := newRecordedStore(t, ryno.Options{})
			other := newClientOn(t, s, ryno.Options{Indexes: uniqueIndexes})
			for _, u := range []*ryno.Entity{user("ada", "ada@example.com"), user("bob", "bob@example.com")} {
				_, err := s.Create(ctx, u)
				require.NoError(t, err)
			}
			rec.reset(func(n int) { tt.move(t, other, n) })
			got, err := s.GetByUnique(ctx, byEmail, value, ryno.Consistent())
			claims := rec.claimCount()
			rec.reset(nil)
			if tt.want == "" {
				require.ErrorIs(t, err, ryno.ErrNotFound)
			} else {
				require.NoError(t, err)
				require.Equal(t, tt.want, got.ID)
				require.Equal(t, "ada@example.com", got.Attributes["email"])
			}
			require.Equal(t, tt.claims, claims, "claim reads")
		})
	}
}

// setEmail gives the user id the e-mail address email.
func setEmail(t *testing.T, db *ryno.Client, id, email string) {
	t.Helper()
	_, err := db.Patch(ctx, user(id, "").Key, ryno.Patch{Set: map[string]any{"email": email}})
	require.NoError(t, err)
}
