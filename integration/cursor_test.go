package integration_test

import (
	"bytes"
	"encoding/base64"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// Cursor keys of the tests. A deployment reads its key from a secret store.
var (
	sealKey      = bytes.Repeat([]byte{0x5a}, ryno.CursorKeySize)
	otherSealKey = bytes.Repeat([]byte{0xa5}, ryno.CursorKeySize)
)

// pagedListing is a listing whose pages the tests continue with cursors.
type pagedListing struct {
	name string
	// query names the query the listing pages through: listings of one query accept
	// one another's cursors.
	query string
	page  func(db *ryno.Client, p ryno.PageOptions) (cursor string, err error)
}

func cursorOf[T any](page *ryno.Page[T], err error) (string, error) {
	if err != nil {
		return "", err
	}
	return page.Cursor, nil
}

func pagedListings() []pagedListing {
	ada, bob := pk("ada"), pk("bob")
	between := indexing.Between(indexing.Int(20), indexing.Int(60))
	return []pagedListing{
		{"ListByType", "by type", func(db *ryno.Client, p ryno.PageOptions) (string, error) {
			return cursorOf(db.ListByType(ctx, ryno.Type{Scope: "acme", Name: "person"}, p))
		}},
		{"Relationships", "outgoing", func(db *ryno.Client, p ryno.PageOptions) (string, error) {
			return cursorOf(db.Relationships(ctx, ada, "", p))
		}},
		{"RelatedEntities", "outgoing", func(db *ryno.Client, p ryno.PageOptions) (string, error) {
			return cursorOf(db.RelatedEntities(ctx, ada, "", p))
		}},
		{"Relationships of one predicate", "outgoing follows", func(db *ryno.Client, p ryno.PageOptions) (string, error) {
			return cursorOf(db.Relationships(ctx, ada, "follows", p))
		}},
		{"RelatedEntities of one predicate", "outgoing follows", func(db *ryno.Client, p ryno.PageOptions) (string, error) {
			return cursorOf(db.RelatedEntities(ctx, ada, "follows", p))
		}},
		{"ReverseRelationships", "incoming", func(db *ryno.Client, p ryno.PageOptions) (string, error) {
			return cursorOf(db.ReverseRelationships(ctx, bob, "", p))
		}},
		{"ReverseRelationships of one predicate", "incoming follows", func(db *ryno.Client, p ryno.PageOptions) (string, error) {
			return cursorOf(db.ReverseRelationships(ctx, bob, "follows", p))
		}},
		{"QueryIndexEntries", "age between", func(db *ryno.Client, p ryno.PageOptions) (string, error) {
			return cursorOf(db.QueryIndexEntries(ctx, ryno.ScopedIndex{Scope: "acme", Index: "age"}, between, p))
		}},
		{"QueryIndex", "age between", func(db *ryno.Client, p ryno.PageOptions) (string, error) {
			return cursorOf(db.QueryIndex(ctx, ryno.ScopedIndex{Scope: "acme", Index: "age"}, between, p))
		}},
		{"QueryIndex of all values", "age", func(db *ryno.Client, p ryno.PageOptions) (string, error) {
			return cursorOf(db.QueryIndex(ctx, ryno.ScopedIndex{Scope: "acme", Index: "age"}, indexing.All(), p))
		}},
	}
}

// seedPagedListings writes enough for every paged listing to have two pages of one.
func seedPagedListings(t *testing.T, db *ryno.Client) {
	t.Helper()
	ada, bob, carl, dan := pk("ada"), pk("bob"), pk("carl"), pk("dan")
	for k, age := range map[ryno.Key]int{ada: 36, bob: 41, carl: 29, dan: 52} {
		_, err := db.Create(ctx, &ryno.Entity{Key: k, Attributes: map[string]any{"age": age}})
		require.NoError(t, err)
	}
	for _, list := range []struct {
		subject   ryno.Key
		predicate string
		objects   []ryno.Key
	}{
		{ada, "follows", []ryno.Key{bob, carl, dan}},
		{ada, "likes", []ryno.Key{bob, carl}},
		{carl, "follows", []ryno.Key{bob}},
		{dan, "likes", []ryno.Key{bob}},
	} {
		require.NoError(t, changed(db.AddRelationships(ctx, list.subject, list.predicate, list.objects)))
	}
}

// firstCursors returns the cursor of the first page of one of each listing on db.
func firstCursors(t *testing.T, db *ryno.Client, listings []pagedListing) []string {
	t.Helper()
	cursors := make([]string, len(listings))
	for i, l := range listings {
		c, err := l.page(db, ryno.PageOptions{Limit: 1})
		require.NoError(t, err, l.name)
		require.NotEmpty(t, c, "%s has a second page", l.name)
		cursors[i] = c
	}
	return cursors
}

// cursorTamperer alters the cursors of the listings the way a client could: it flips
// bits, edits the JSON of a readable cursor, swaps cursors between listings and
// directions, and passes cursors of clients with other keys.
type cursorTamperer struct {
	r        *rand.Rand
	listings []pagedListing
	own      []string   // the cursors of the client under test
	plain    []string   // the readable cursors of the same listings
	foreign  [][]string // cursors of the same listings from clients with other keys
}

// alter returns an alteration of the cursor of listing i, and the direction to pass
// it in. No alteration is a cursor the client issued for that listing.
func (c *cursorTamperer) alter(i int) (string, bool) {
	own := c.own[i]
	switch c.r.IntN(7) {
	case 0:
		return c.flipBits(own), false
	case 1:
		return c.replaceCharacter(own), false
	case 2:
		return c.editJSON(c.plain[i]), false
	case 3:
		j := c.r.IntN(len(c.listings))
		for c.listings[j].query == c.listings[i].query {
			j = c.r.IntN(len(c.listings))
		}
		return c.own[j], c.r.IntN(2) == 0
	case 4:
		return own, true // the other direction
	case 5:
		return c.foreign[c.r.IntN(len(c.foreign))][i], false
	default:
		n := c.r.IntN(len(own)-1) + 1
		if c.r.IntN(2) == 0 {
			return own[:n], false
		}
		return own + own[n:], false
	}
}

// flipBits flips one to three distinct bits of the bytes of s: flipping one bit
// twice would give s back.
func (c *cursorTamperer) flipBits(s string) string {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	for _, bit := range c.r.Perm(8 * len(b))[:c.r.IntN(3)+1] {
		b[bit/8] ^= 1 << (bit % 8)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

const base64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// replaceCharacter replaces one character of s by another of the base64url alphabet.
func (c *cursorTamperer) replaceCharacter(s string) string {
	i := c.r.IntN(len(s))
	for {
		if ch := base64URL[c.r.IntN(len(base64URL))]; ch != s[i] {
			return s[:i] + string(ch) + s[i+1:]
		}
	}
}

// keyEdits change a scope, type, id, predicate or index name inside a key.
var keyEdits = [][2]string{
	{"acme", "other"}, {"person", "robot"}, {"ada", "eve"}, {"bob", "eve"}, {"carl", "eve"},
	{"follows", "likes"}, {"likes", "follows"}, {"age", "tag"},
}

// editJSON returns the readable cursor s with its key edited: a scope, type, id,
// predicate or index name replaced, or a digit (of a position, a time or an index
// value) changed.
func (c *cursorTamperer) editJSON(s string) string {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	k := bytes.Index(b, []byte(`"k":`))
	if k < 0 {
		panic("not a readable cursor: " + string(b))
	}
	head, key := b[:k], slices.Clone(b[k:])
	for {
		if c.r.IntN(3) == 0 {
			i := c.r.IntN(len(key))
			if key[i] >= '0' && key[i] <= '9' {
				key[i] = '0' + (key[i]-'0'+byte(c.r.IntN(9))+1)%10
				break
			}
			continue
		}
		e := keyEdits[c.r.IntN(len(keyEdits))]
		if n := bytes.Count(key, []byte(e[0])); n > 0 {
			at := nthIndex(key, []byte(e[0]), c.r.IntN(n))
			key = slices.Concat(key[:at], []byte(e[1]), key[at+len(e[0]):])
			break
		}
	}
	return base64.RawURLEncoding.EncodeToString(slices.Concat(head, key))
}

// nthIndex returns the index of the nth occurrence (from 0) of sep in b.
func nthIndex(b, sep []byte, n int) int {
	at := 0
	for ; n > 0; n-- {
		at += bytes.Index(b[at:], sep) + len(sep)
	}
	return at + bytes.Index(b[at:], sep)
}

// alterations is how many altered cursors each client is given.
const alterations = 10_000

func TestAlteredCursorsFailWithoutARequest(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreOpts(t, nil, ryno.Options{Indexes: testIndexes})
	seedPagedListings(t, s.Client)
	withKey := func(api ryno.DynamoDBAPI, key []byte) *ryno.Client {
		db, err := ryno.New(api, ryno.Options{TablePrefix: s.Names().Prefix, Indexes: testIndexes, CursorKey: key})
		require.NoError(t, err)
		return db
	}
	sealedCounter := dynamotest.NewCounter(s.raw)
	sealing := withKey(sealedCounter, sealKey)
	otherKey := withKey(s.raw, otherSealKey)

	listings := pagedListings()
	plain := firstCursors(t, s.Client, listings)
	sealed := firstCursors(t, sealing, listings)
	other := firstCursors(t, otherKey, listings)

	clients := []struct {
		name    string
		db      *ryno.Client
		counter *dynamotest.Counter
		own     []string
		foreign [][]string
	}{
		{"readable cursors", s.Client, s.counter, plain, [][]string{sealed, other}},
		{"sealed cursors", sealing, sealedCounter, sealed, [][]string{plain, other}},
	}
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			for i, l := range listings {
				c.counter.Reset()
				_, err := l.page(c.db, ryno.PageOptions{Limit: 1, Cursor: c.own[i]})
				require.NoError(t, err, "the cursor of %s continues it", l.name)
				require.NotZero(t, c.counter.Total())
			}
			tamper := &cursorTamperer{r: rand.New(rand.NewPCG(1, 2)), listings: listings, own: c.own, plain: plain, foreign: c.foreign}
			c.counter.Reset()
			for n := range alterations {
				i := n % len(listings)
				cursor, descending := tamper.alter(i)
				_, err := listings[i].page(c.db, ryno.PageOptions{Limit: 1, Cursor: cursor, Descending: descending})
				require.ErrorIs(t, err, ryno.ErrInvalidCursor, "%s, cursor %q, descending %t", listings[i].name, cursor, descending)
				require.Zero(t, c.counter.Total(), "%s sent a request for cursor %q", listings[i].name, cursor)
			}
		})
	}
}
