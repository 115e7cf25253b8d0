package integration_test

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
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
