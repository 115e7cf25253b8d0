package ryno

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/listings"
	"github.com/rynodb/rynodb/internal/paging"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// cursorKey and otherCursorKey seal the cursors of the tests.
var (
	cursorKey      = bytes.Repeat([]byte{7}, CursorKeySize)
	otherCursorKey = bytes.Repeat([]byte{8}, CursorKeySize)
)

// cursorListing is one kind of listing whose cursors the tests decode.
type cursorListing struct {
	name  string
	query func(c *Client) (store.PageQuery, error)
	// item is an item the query returns; a page ending at it has a cursor holding
	// its key.
	item map[string]types.AttributeValue
	// filter, when not nil, is what the query's filter requires of the key, which the
	// key condition does not say.
	filter func(key map[string]string) bool
	// edits change the key of item into another; valid says whether the query can
	// return an item with that key. Each invalid edit breaks one thing only, so it is
	// that one thing the cursor is refused for.
	edits []keyEdit
}

type keyEdit struct {
	name  string
	edit  func(key map[string]string)
	valid bool
}

var (
	keyAda   = Key{Scope: "acme", Type: "person", ID: "ada"}
	keyBob   = Key{Scope: "acme", Type: "person", ID: "bob"}
	keyCarl  = Key{Scope: "acme", Type: "person", ID: "carl"}
	keyRobot = Key{Scope: "other", Type: "robot", ID: "r2"}
)

// entityItem is the item of the entity ada.
func entityItem() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		schema.AttrID: str("ada"), schema.AttrScopeTypeKey: str("acme:person"),
		schema.AttrUpdated: str("2026-01-02T03:04:05.006Z"), schema.AttrCreated: str("2026-01-02T03:04:05.006Z"),
		schema.AttrScope: str("acme"), schema.AttrType: str("person"), "name": str("Ada"),
	}
}

// followsItem is the item of ada -follows-> bob at position 3.
func followsItem() map[string]types.AttributeValue {
	return relationships.Entry{
		Subject: keyAda, Predicate: "follows", Index: 3, Object: keyBob,
		Attributes: map[string]types.AttributeValue{"since": str("2026")},
	}.Item()
}

// indexItem is the item of the entry of ada of value v in index.
func indexItem(index string, v indexing.Value) map[string]types.AttributeValue {
	item, err := indexentries.Entry{Scope: keyAda.Scope, Type: keyAda.Type, ID: keyAda.ID, IndexName: index, Value: v}.Item()
	if err != nil {
		panic(err)
	}
	return item
}

// setAttr returns an edit setting the attribute name to value.
func setAttr(name, value string) func(map[string]string) {
	return func(key map[string]string) { key[name] = value }
}

// predicateKeyEdit returns an edit setting the _predicate_key of an entry, and for an
// entry of the reverse index its _reverse_key to match.
func predicateKeyEdit(predicate string, index int, object Key, reverse bool) func(map[string]string) {
	edit := func(key map[string]string) {
		key[schema.AttrPredicateKey] = schema.PredicateKey(predicate, index, object.Type, object.ID)
	}
	if reverse {
		return withReverseKey(edit)
	}
	return edit
}

// withReverseKey returns edit followed by setting the _reverse_key that the
// subject and predicate keys call for.
func withReverseKey(edit func(map[string]string)) func(map[string]string) {
	return func(key map[string]string) {
		edit(key)
		key[schema.AttrReverseKey] = listings.ReverseKey(key[schema.AttrSubjectKey], key[schema.AttrPredicateKey], nil)
	}
}

// indexValue returns an edit setting the value of an index entry of index.
func indexValue(index string, v indexing.Value) func(map[string]string) {
	return indexEncoding(index, v.Encoding())
}

// indexEncoding returns an edit setting the _index_key of an index entry of index,
// and its _unique_key to match.
func indexEncoding(index, enc string) func(map[string]string) {
	return func(key map[string]string) {
		key[schema.AttrIndexKey] = enc
		key[schema.AttrUniqueKey] = schema.UniqueKey(index, enc)
	}
}

// indexListing is the listing of the index named index of acme with cond, with ada's
// entry of value v.
func indexListing(name, index string, cond indexing.Condition, v indexing.Value, edits ...keyEdit) cursorListing {
	return cursorListing{
		name:  name,
		query: func(c *Client) (store.PageQuery, error) { return c.indexQuery("acme", index, cond) },
		item:  indexItem(index, v),
		edits: append([]keyEdit{
			{"an entity of another scope", setAttr(schema.AttrSubjectKey, keyRobot.String()), false},
			{"another entity of the scope", setAttr(schema.AttrSubjectKey, keyBob.String()), true},
			{"a unique key of another value", setAttr(schema.AttrUniqueKey, schema.UniqueKey(index, "'zz")), false},
			{"a unique key of another index", setAttr(schema.AttrUniqueKey, schema.UniqueKey("other", v.Encoding())), false},
			{"an index key that is no encoding", indexEncoding(index, "x36"), false},
			{"an encoding in upper case", indexEncoding(index, "i"+strings.ToUpper(indexing.Int(42).Encoding()[1:])), false},
		}, edits...),
	}
}

func cursorListings() []cursorListing {
	reverse := func(predicate string) func(c *Client) (store.PageQuery, error) {
		return func(c *Client) (store.PageQuery, error) {
			return c.core.IncomingPage(keyBob, predicate)
		}
	}
	outgoing := func(predicate string) func(c *Client) (store.PageQuery, error) {
		return func(c *Client) (store.PageQuery, error) {
			return c.core.OutgoingPage(keyAda, predicate)
		}
	}
	reverseEdits := []keyEdit{
		{"another subject of another scope", withReverseKey(setAttr(schema.AttrSubjectKey, keyRobot.String())), true},
		{"another subject the reverse key does not hold", setAttr(schema.AttrSubjectKey, keyRobot.String()), false},
		{"another position", predicateKeyEdit("follows", 7, keyBob, true), true},
		{"a position the reverse key does not hold", setAttr(schema.AttrReverseKey, schema.ReverseKey("follows", "acme", "person", "ada", 7)), false},
		{"a reverse key of another predicate", setAttr(schema.AttrReverseKey, schema.ReverseKey("likes", "acme", "person", "ada", 3)), false},
		{"an entry pointing at another object", predicateKeyEdit("follows", 3, keyCarl, true), false},
		{"a subject that is not an entity key", setAttr(schema.AttrSubjectKey, "acme:person"), false},
		{"a subject with a raw colon", setAttr(schema.AttrSubjectKey, "acme:person:a:b"), false},
		{"a position beyond the last", predicateKeyEdit("follows", schema.MaxIndex+1, keyBob, true), false},
	}
	return []cursorListing{
		{
			name:  "ListByType",
			query: func(c *Client) (store.PageQuery, error) { return c.core.ByTypePage("acme", "person") },
			item:  entityItem(),
			edits: []keyEdit{
				{"another entity", setAttr(schema.AttrID, "bob"), true},
				{"an id with the delimiter", setAttr(schema.AttrID, "a:b%c"), true},
				{"another time", setAttr(schema.AttrUpdated, "2027-12-31T23:59:59.999Z"), true},
				// Another program may have written the entity's _updated, in any form:
				// the cursor after it continues the listing.
				{"a time in another layout", setAttr(schema.AttrUpdated, "2026-01-02T03:04:05Z"), true},
				{"a time of another zone", setAttr(schema.AttrUpdated, "2026-01-02T03:04:05.006+01:00"), true},
				{"no time", setAttr(schema.AttrUpdated, "yesterday"), true},
				{"an id too long for the subject key", setAttr(schema.AttrID, strings.Repeat("a", schema.MaxPartitionKeyBytes)), false},
			},
		},
		{
			name:  "Relationships of every predicate",
			query: outgoing(""),
			item:  followsItem(),
			edits: []keyEdit{
				{"another predicate", predicateKeyEdit("likes", 0, keyCarl, false), true},
				{"a list head", setAttr(schema.AttrPredicateKey, schema.ListHeadKey("follows")), false},
				{"a list marker", setAttr(schema.AttrPredicateKey, schema.ListMarkerKey("follows", "acme", "person", "bob")), false},
				{"a position of nine digits", setAttr(schema.AttrPredicateKey, "follows:000000003:person:bob"), false},
				{"three components", setAttr(schema.AttrPredicateKey, "follows:0000000003:person"), false},
				{"a malformed escape", setAttr(schema.AttrPredicateKey, "fol%lows:0000000003:person:bob"), false},
			},
		},
		{
			name:  "Relationships of one predicate",
			query: outgoing("follows"),
			item:  followsItem(),
			edits: []keyEdit{
				{"another object", predicateKeyEdit("follows", 9, keyCarl, false), true},
				{"another predicate", predicateKeyEdit("likes", 3, keyBob, false), false},
				{"a predicate extending it", predicateKeyEdit("followsx", 3, keyBob, false), false},
				{"a list head", setAttr(schema.AttrPredicateKey, schema.ListHeadKey("follows")), false},
			},
		},
		{
			name:  "ReverseRelationships of every predicate",
			query: reverse(""),
			item:  followsItem(),
			edits: append([]keyEdit{
				{"another predicate", predicateKeyEdit("likes", 3, keyBob, true), true},
			}, reverseEdits...),
		},
		{
			name:   "ReverseRelationships of one predicate",
			query:  reverse("follows"),
			item:   followsItem(),
			filter: func(key map[string]string) bool { return strings.HasPrefix(key[schema.AttrPredicateKey], "follows:") },
			edits: append([]keyEdit{
				{"another predicate", predicateKeyEdit("likes", 3, keyBob, true), false},
			}, reverseEdits...),
		},
		indexListing("QueryIndexEntries of all values", "age", indexing.All(), indexing.Int(36),
			keyEdit{"another value", indexValue("age", indexing.Int(99)), true},
			keyEdit{"a value of another kind", indexValue("age", indexing.String("x")), true},
		),
		indexListing("QueryIndexEntries equal", "age", indexing.Equal(indexing.Int(36)), indexing.Int(36),
			keyEdit{"another value", indexValue("age", indexing.Int(37)), false},
		),
		indexListing("QueryIndexEntries between", "age", indexing.Between(indexing.Int(30), indexing.Int(40)), indexing.Int(36),
			keyEdit{"the lower bound", indexValue("age", indexing.Int(30)), true},
			keyEdit{"the upper bound", indexValue("age", indexing.Int(40)), true},
			keyEdit{"below the range", indexValue("age", indexing.Int(29)), false},
			keyEdit{"above the range", indexValue("age", indexing.Int(41)), false},
			keyEdit{"a value of another kind", indexValue("age", indexing.Float(36)), false},
		),
		indexListing("QueryIndexEntries begins_with", "name", indexing.BeginsWith(indexing.String("ad")), indexing.String("ada"),
			keyEdit{"another value with the prefix", indexValue("name", indexing.String("adam")), true},
			keyEdit{"a value without it", indexValue("name", indexing.String("bob")), false},
		),
		indexListing("QueryIndexEntries less", "name", indexing.Less(indexing.String("b")), indexing.String("ada"),
			keyEdit{"another value below", indexValue("name", indexing.String("a")), true},
			keyEdit{"the bound", indexValue("name", indexing.String("b")), false},
		),
		indexListing("QueryIndexEntries greater", "age", indexing.Greater(indexing.Int(35)), indexing.Int(36),
			keyEdit{"the bound", indexValue("age", indexing.Int(35)), false},
			keyEdit{"the largest value", indexValue("age", indexing.Int(1<<63-1)), true},
		),
	}
}

// newCursorClient returns a client sealing cursors with key (none when nil) and the
// recorder of its Query requests. It registers the indexes the listings query.
func newCursorClient(t testing.TB, key []byte) (*Client, *queryRecorder) {
	t.Helper()
	r := &queryRecorder{}
	none := func(*Entity, func(indexing.Value)) {}
	c, err := New(r, Options{TablePrefix: "t", CursorKey: key, Indexes: []Index{
		{Type: "person", Name: "age", Map: none}, {Type: "person", Name: "name", Map: none},
	}})
	require.NoError(t, err)
	return c, r
}

// queryRecorder answers every Query with an empty last page, recording where it
// started. Other operations are not expected.
type queryRecorder struct {
	DynamoDBAPI // nil: calling any other operation panics
	starts      []map[string]types.AttributeValue
}

func (r *queryRecorder) Query(_ context.Context, in *dynamodb.QueryInput, _ ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	r.starts = append(r.starts, in.ExclusiveStartKey)
	return &dynamodb.QueryOutput{}, nil
}

// pageQuery returns the query of l on c.
func (l cursorListing) pageQuery(t testing.TB, c *Client) store.PageQuery {
	t.Helper()
	q, err := l.query(c)
	require.NoError(t, err)
	return q
}

// codecOf returns the codec of q's cursors on c, ascending.
func codecOf(c *Client, q store.PageQuery) paging.Codec {
	return paging.Codec{Identity: q.Identity, Seal: c.opts.CursorKey}
}

// keyOf returns the key of the item l returns: what a page ending at it continues
// from.
func (l cursorListing) keyOf(q store.PageQuery) map[string]types.AttributeValue {
	return batching.Project(l.item, q.Position.Names())
}

// forge returns a cursor of cc holding key with its checksum right, sealed when cc
// seals: what a client knowing how cursors are made, and the key, would send.
func forge(t testing.TB, cc paging.Codec, key map[string]paging.Value) string {
	t.Helper()
	s, err := cc.Forge(key)
	require.NoError(t, err)
	return s
}

// valuesOf returns key as a cursor holds it.
func valuesOf(key map[string]types.AttributeValue) map[string]paging.Value {
	values := make(map[string]paging.Value, len(key))
	for name, v := range key {
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			values[name] = paging.Value{S: aws.String(v.Value)}
		case *types.AttributeValueMemberN:
			values[name] = paging.Value{N: aws.String(v.Value)}
		}
	}
	return values
}

// stringsOf returns the values of the attributes of key.
func stringsOf(t testing.TB, key map[string]types.AttributeValue) map[string]string {
	t.Helper()
	raw := make(map[string]string, len(key))
	for name, v := range key {
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			raw[name] = v.Value
		case *types.AttributeValueMemberN:
			raw[name] = v.Value
		default:
			t.Fatalf("key attribute %s is a %T", name, v)
		}
	}
	return raw
}

// withStrings returns key with the values of raw, each of the type it had in key.
func withStrings(key map[string]types.AttributeValue, raw map[string]string) map[string]types.AttributeValue {
	out := make(map[string]types.AttributeValue, len(raw))
	for name, s := range raw {
		if _, ok := key[name].(*types.AttributeValueMemberN); ok {
			out[name] = &types.AttributeValueMemberN{Value: s}
		} else {
			out[name] = str(s)
		}
	}
	return out
}

// requireQueryable fails unless DynamoDB accepts key as the ExclusiveStartKey of q
// and it lies within q: exactly the key attributes of the table and index q reads,
// each of the type and within the size the schema gives it, meeting q's key
// condition (and filter). It reads the schema and the key condition, not the
// cursor code.
func requireQueryable(t testing.TB, c *Client, l cursorListing, q store.PageQuery, key map[string]types.AttributeValue) {
	t.Helper()
	kinds, limits := schemaOf(t, c, q.In)
	require.ElementsMatch(t, slices.Collect(maps.Keys(kinds)), slices.Collect(maps.Keys(key)))
	raw := stringsOf(t, key)
	for name, v := range key {
		s := raw[name]
		switch kinds[name] {
		case types.ScalarAttributeTypeS:
			require.IsType(t, &types.AttributeValueMemberS{}, v, name)
			require.NotEmpty(t, s, name)
			require.True(t, utf8.ValidString(s), name)
			require.LessOrEqual(t, len(s), limits[name], name)
		case types.ScalarAttributeTypeN:
			require.IsType(t, &types.AttributeValueMemberN{}, v, name)
			_, err := strconv.ParseUint(s, 10, 63)
			require.NoError(t, err, name)
		}
	}
	require.True(t, keyConditionHolds(t, q.In, raw), "%v is outside %s", raw, aws.ToString(q.In.KeyConditionExpression))
	if l.filter != nil {
		require.True(t, l.filter(raw), "%v does not pass the filter", raw)
	}
}

// schemaOf returns the types of the key attributes of the table and index in reads,
// and the most bytes each may hold: those of a partition key, or of a sort key when
// it is one in either.
func schemaOf(t testing.TB, c *Client, in *dynamodb.QueryInput) (map[string]types.ScalarAttributeType, map[string]int) {
	t.Helper()
	for _, def := range schema.Definitions(c.Names(), schema.Billing{}) {
		if aws.ToString(def.TableName) != aws.ToString(in.TableName) {
			continue
		}
		schemas := [][]types.KeySchemaElement{def.KeySchema}
		for _, g := range def.GlobalSecondaryIndexes {
			if aws.ToString(g.IndexName) == aws.ToString(in.IndexName) {
				schemas = append(schemas, g.KeySchema)
			}
		}
		for _, l := range def.LocalSecondaryIndexes {
			if aws.ToString(l.IndexName) == aws.ToString(in.IndexName) {
				schemas = append(schemas, l.KeySchema)
			}
		}
		require.Equal(t, in.IndexName != nil, len(schemas) == 2, "index %s", aws.ToString(in.IndexName))
		kinds, limits := map[string]types.ScalarAttributeType{}, map[string]int{}
		for _, keys := range schemas {
			for _, e := range keys {
				name := aws.ToString(e.AttributeName)
				limit := schema.MaxPartitionKeyBytes
				if e.KeyType == types.KeyTypeRange {
					limit = schema.MaxSortKeyBytes
				}
				if old, ok := limits[name]; !ok || limit < old {
					limits[name] = limit
				}
				for _, a := range def.AttributeDefinitions {
					if aws.ToString(a.AttributeName) == name {
						kinds[name] = a.AttributeType
					}
				}
			}
		}
		return kinds, limits
	}
	t.Fatalf("no table %s", aws.ToString(in.TableName))
	return nil, nil
}

// keyConditionHolds evaluates the key condition of in on key as DynamoDB does:
// strings compare byte by byte. It knows the forms the store writes: comparisons,
// begins_with and BETWEEN, joined with AND.
func keyConditionHolds(t testing.TB, in *dynamodb.QueryInput, key map[string]string) bool {
	t.Helper()
	attr := func(placeholder string) string {
		name, ok := in.ExpressionAttributeNames[placeholder]
		require.True(t, ok, "no attribute name %s", placeholder)
		return key[name]
	}
	value := func(placeholder string) string {
		v, ok := in.ExpressionAttributeValues[placeholder].(*types.AttributeValueMemberS)
		require.True(t, ok, "no string value %s", placeholder)
		return v.Value
	}
	terms := strings.Split(aws.ToString(in.KeyConditionExpression), " AND ")
	for i := 0; i < len(terms); i++ {
		f := strings.Fields(terms[i])
		switch {
		case strings.HasPrefix(terms[i], "begins_with("):
			args := strings.Split(strings.TrimSuffix(strings.TrimPrefix(terms[i], "begins_with("), ")"), ", ")
			require.Len(t, args, 2, terms[i])
			if !strings.HasPrefix(attr(args[0]), value(args[1])) {
				return false
			}
		case len(f) == 3 && f[1] == "BETWEEN":
			i++
			require.Less(t, i, len(terms), "BETWEEN without AND")
			if x := attr(f[0]); x < value(f[2]) || x > value(strings.TrimSpace(terms[i])) {
				return false
			}
		case len(f) == 3:
			x, v := attr(f[0]), value(f[2])
			holds, known := map[string]bool{"=": x == v, "<": x < v, "<=": x <= v, ">": x > v, ">=": x >= v}[f[1]]
			require.True(t, known || holds, "unknown comparison %q", terms[i])
			if !holds {
				return false
			}
		default:
			t.Fatalf("unknown key condition %q", terms[i])
		}
	}
	return true
}

// brokenKeys returns edits of key that no query returns, each named after what it
// breaks: a partition value of another scope, a missing, extra, mistyped, empty,
// oversized or malformed attribute.
func brokenKeys(pos paging.Position, key map[string]paging.Value) map[string]map[string]paging.Value {
	out := map[string]map[string]paging.Value{}
	edit := func(name string, f func(map[string]paging.Value)) {
		k := maps.Clone(key)
		f(k)
		out[name] = k
	}
	edit("an extra attribute", func(k map[string]paging.Value) { k["_extra"] = paging.Value{S: aws.String("x")} })
	edit("no attributes", func(k map[string]paging.Value) { clear(k) })
	for _, a := range pos.Attrs {
		v := key[a.Name]
		s := aws.ToString(v.S) + aws.ToString(v.N)
		with := func(value string) func(map[string]paging.Value) {
			return func(k map[string]paging.Value) {
				if a.Number {
					k[a.Name] = paging.Value{N: aws.String(value)}
				} else {
					k[a.Name] = paging.Value{S: aws.String(value)}
				}
			}
		}
		edit(a.Name+" missing", func(k map[string]paging.Value) { delete(k, a.Name) })
		edit(a.Name+" renamed", func(k map[string]paging.Value) { delete(k, a.Name); k[a.Name+"x"] = v })
		edit(a.Name+" of the other type", func(k map[string]paging.Value) { k[a.Name] = paging.Value{S: v.N, N: v.S} })
		edit(a.Name+" of both types", func(k map[string]paging.Value) { k[a.Name] = paging.Value{S: aws.String(s), N: aws.String(s)} })
		edit(a.Name+" with no value", func(k map[string]paging.Value) { k[a.Name] = paging.Value{} })
		edit(a.Name+" empty", with(""))
		edit(a.Name+" with a control character", with(s+"\x00"))
		edit(a.Name+" with invalid UTF-8", with(s+"\xff"))
		edit(a.Name+" beyond a key's size", with(s+strings.Repeat("a", schema.MaxPartitionKeyBytes)))
		if a.Fixed != "" {
			edit(a.Name+" of another scope", with(strings.Replace(s, "acme", "other", 1)))
			edit(a.Name+" extended", with(s+"x"))
		}
		if a.Number {
			for _, n := range []string{"-3", "03", "+3", "3.0", "3e0", " 3", "0x3", "three", "99999999999999999999"} {
				edit(a.Name+" "+strconv.Quote(n), with(n))
			}
		}
	}
	return out
}

func TestCursorRoundTripsTheKeyOfEveryListing(t *testing.T) {
	for _, seal := range [][]byte{nil, cursorKey} {
		c, _ := newCursorClient(t, seal)
		for _, l := range cursorListings() {
			t.Run(l.name+sealedName(seal), func(t *testing.T) {
				q := l.pageQuery(t, c)
				key := l.keyOf(q)
				requireQueryable(t, c, l, q, key)
				for _, descending := range []bool{false, true} {
					cc := paging.Codec{Identity: q.Identity, Descending: descending, Seal: seal}
					s, err := cc.Encode(key)
					require.NoError(t, err)
					got, err := cc.Decode(s, q.Position)
					require.NoError(t, err)
					require.Equal(t, key, got)
				}
				empty, err := codecOf(c, q).Decode("", q.Position)
				require.NoError(t, err)
				require.Nil(t, empty, "the empty cursor starts at the beginning")
			})
		}
	}
}

func sealedName(seal []byte) string {
	if len(seal) > 0 {
		return ", sealed"
	}
	return ""
}

func TestCursorKeysAreCheckedAgainstTheQuery(t *testing.T) {
	for _, seal := range [][]byte{nil, cursorKey} {
		c, _ := newCursorClient(t, seal)
		for _, l := range cursorListings() {
			q := l.pageQuery(t, c)
			cc := codecOf(c, q)
			key := l.keyOf(q)
			t.Run(l.name+sealedName(seal), func(t *testing.T) {
				for _, e := range l.edits {
					t.Run(e.name, func(t *testing.T) {
						raw := stringsOf(t, key)
						e.edit(raw)
						edited := withStrings(key, raw)
						got, err := cc.Decode(forge(t, cc, valuesOf(edited)), q.Position)
						if !e.valid {
							require.ErrorIs(t, err, ErrInvalidCursor)
							return
						}
						require.NoError(t, err)
						require.Equal(t, edited, got)
						requireQueryable(t, c, l, q, got)
					})
				}
				for name, broken := range brokenKeys(q.Position, valuesOf(key)) {
					t.Run(name, func(t *testing.T) {
						_, err := cc.Decode(forge(t, cc, broken), q.Position)
						require.ErrorIs(t, err, ErrInvalidCursor)
					})
				}
			})
		}
	}
}

// alteredCursors returns alterations of the cursor s of cc that no client was given,
// each named after what it alters, with the checksum left as it was.
func alteredCursors(t testing.TB, cc paging.Codec, s string) map[string]string {
	t.Helper()
	b, err := paging.Encoding.DecodeString(s)
	require.NoError(t, err)
	b64 := func(b []byte) string { return paging.Encoding.EncodeToString(b) }
	out := map[string]string{
		"not base64":        "!" + s[1:],
		"padded":            s + "=",
		"base64 of garbage": b64([]byte("hello")),
		"JSON of another":   b64([]byte(`{"x":1}`)),
		"JSON null":         b64([]byte(`null`)),
		"a trailing byte":   b64(append(slices.Clone(b), ' ')),
		"a leading byte":    b64(append([]byte{' '}, b...)),
		"too long":          strings.Repeat("A", paging.MaxLen+4),
		// Go's base64 decoder skips line breaks: the same bytes, another cursor.
		"a leading newline":         "\n" + s,
		"a trailing newline":        s + "\n",
		"a newline inside":          s[:len(s)/2] + "\n" + s[len(s)/2:],
		"a CRLF inside":             s[:len(s)/2] + "\r\n" + s[len(s)/2:],
		"a carriage return inside":  s[:len(s)/2] + "\r" + s[len(s)/2:],
		"a newline every character": strings.Join(strings.Split(s, ""), "\n"),
	}
	// A last character with its unused low bits set decodes, leniently, to the same
	// bytes.
	if len(s)%4 != 0 {
		const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
		out["unused bits flipped"] = s[:len(s)-1] + string(alphabet[strings.IndexByte(alphabet, s[len(s)-1])^1])
	}
	for n := 1; n < len(s); n++ {
		out["truncated to "+strconv.Itoa(n)] = s[:n]
	}
	for i := range b {
		for _, bit := range []byte{0x01, 0x20, 0x80} {
			flipped := slices.Clone(b)
			flipped[i] ^= bit
			out["byte "+strconv.Itoa(i)+" ^ "+strconv.Itoa(int(bit))] = b64(flipped)
		}
	}
	if len(cc.Seal) == 0 {
		// JSON that says the same in other words, and a value edited.
		out["another checksum"] = b64(bytes.Replace(b, []byte(`"q":"`), []byte(`"q":"A`), 1))
		out["spaced"] = b64(bytes.ReplaceAll(b, []byte(`":`), []byte(`": `)))
		out["upper-case names"] = b64(bytes.ReplaceAll(bytes.ReplaceAll(b, []byte(`"q"`), []byte(`"Q"`)), []byte(`"k"`), []byte(`"K"`)))
		value := bytes.Index(b, []byte(`"s":"`)) + len(`"s":"`)
		out["a character escaped"] = b64(slices.Concat(b[:value], fmt.Appendf(nil, `\u%04x`, b[value]), b[value+1:]))
		out["a value edited"] = b64(slices.Concat(b[:value], []byte("a"), b[value:]))
	}
	return out
}

func TestAlteredCursorsAreRefused(t *testing.T) {
	for _, seal := range [][]byte{nil, cursorKey} {
		c, _ := newCursorClient(t, seal)
		listings := cursorListings()
		for i, l := range listings {
			q := l.pageQuery(t, c)
			cc := codecOf(c, q)
			s, err := cc.Encode(l.keyOf(q))
			require.NoError(t, err)
			t.Run(l.name+sealedName(seal), func(t *testing.T) {
				for name, altered := range alteredCursors(t, cc, s) {
					_, err := cc.Decode(altered, q.Position)
					require.ErrorIs(t, err, ErrInvalidCursor, name)
				}
				backwards := cc
				backwards.Descending = true
				_, err := backwards.Decode(s, q.Position)
				require.ErrorIs(t, err, ErrInvalidCursor, "the other direction")
				for j, other := range listings {
					if j == i {
						continue
					}
					oq := other.pageQuery(t, c)
					_, err := codecOf(c, oq).Decode(s, oq.Position)
					require.ErrorIs(t, err, ErrInvalidCursor, "a cursor of %s", l.name)
				}
			})
		}
	}
}

func TestSealedCursors(t *testing.T) {
	sealing, _ := newCursorClient(t, cursorKey)
	other, _ := newCursorClient(t, otherCursorKey)
	plain, _ := newCursorClient(t, nil)
	for _, l := range cursorListings() {
		t.Run(l.name, func(t *testing.T) {
			q := l.pageQuery(t, sealing)
			key := l.keyOf(q)
			sealed, err := codecOf(sealing, q).Encode(key)
			require.NoError(t, err)
			unsealed, err := codecOf(plain, q).Encode(key)
			require.NoError(t, err)

			b, err := paging.Encoding.DecodeString(sealed)
			require.NoError(t, err)
			for _, v := range stringsOf(t, key) {
				if len(v) > 3 { // a shorter one may turn up by chance
					require.NotContains(t, string(b), v, "a sealed cursor hides the key")
				}
			}
			again, err := codecOf(sealing, q).Encode(key)
			require.NoError(t, err)
			require.NotEqual(t, sealed, again, "each cursor has its own nonce")
			got, err := codecOf(sealing, q).Decode(again, q.Position)
			require.NoError(t, err)
			require.Equal(t, key, got)

			refused := map[string]struct {
				c      *Client
				cursor string
			}{
				"sealed with another key":       {other, sealed},
				"unsealed, to a sealing client": {sealing, unsealed},
				"sealed, to a plain client":     {plain, sealed},
			}
			for i := range b {
				tampered := slices.Clone(b)
				tampered[i] ^= 1
				refused["byte "+strconv.Itoa(i)+" flipped"] = struct {
					c      *Client
					cursor string
				}{sealing, paging.Encoding.EncodeToString(tampered)}
			}
			for name, r := range refused {
				_, err := codecOf(r.c, q).Decode(r.cursor, q.Position)
				require.ErrorIs(t, err, ErrInvalidCursor, name)
			}
		})
	}
}

func TestListingsRefuseInvalidCursorsWithoutARequest(t *testing.T) {
	ctx := context.Background()
	less := indexing.Less(indexing.Int(40))
	outgoing := func(predicate string) func(c *Client) (store.PageQuery, error) {
		return func(c *Client) (store.PageQuery, error) {
			return c.core.OutgoingPage(keyAda, predicate)
		}
	}
	incoming := func(predicate string) func(c *Client) (store.PageQuery, error) {
		return func(c *Client) (store.PageQuery, error) {
			return c.core.IncomingPage(keyBob, predicate)
		}
	}
	index := func(c *Client) (store.PageQuery, error) { return c.indexQuery("acme", "age", less) }
	listings := []struct {
		name  string
		query func(c *Client) (store.PageQuery, error)
		item  map[string]types.AttributeValue
		call  func(c *Client, p PageOptions) error
	}{
		{
			"ListByType", func(c *Client) (store.PageQuery, error) { return c.core.ByTypePage("acme", "person") }, entityItem(),
			func(c *Client, p PageOptions) error {
				_, err := c.ListByType(ctx, Type{Scope: "acme", Name: "person"}, p)
				return err
			},
		},
		{
			"Relationships", outgoing("follows"), followsItem(),
			func(c *Client, p PageOptions) error {
				_, err := c.Relationships(ctx, keyAda, "follows", p)
				return err
			},
		},
		{
			"RelatedEntities", outgoing(""), followsItem(),
			func(c *Client, p PageOptions) error {
				_, err := c.RelatedEntities(ctx, keyAda, "", p)
				return err
			},
		},
		{
			"ReverseRelationships", incoming(""), followsItem(),
			func(c *Client, p PageOptions) error {
				_, err := c.ReverseRelationships(ctx, keyBob, "", p)
				return err
			},
		},
		{
			"ReverseRelationships of one predicate", incoming("follows"), followsItem(),
			func(c *Client, p PageOptions) error {
				_, err := c.ReverseRelationships(ctx, keyBob, "follows", p)
				return err
			},
		},
		{
			"QueryIndexEntries", index, indexItem("age", indexing.Int(36)),
			func(c *Client, p PageOptions) error {
				_, err := c.QueryIndexEntries(ctx, ScopedIndex{Scope: "acme", Index: "age"}, less, p)
				return err
			},
		},
		{
			"QueryIndex", index, indexItem("age", indexing.Int(36)),
			func(c *Client, p PageOptions) error {
				_, err := c.QueryIndex(ctx, ScopedIndex{Scope: "acme", Index: "age"}, less, p)
				return err
			},
		},
	}
	for _, seal := range [][]byte{nil, cursorKey} {
		for _, l := range listings {
			t.Run(l.name+sealedName(seal), func(t *testing.T) {
				c, r := newCursorClient(t, seal)
				q, err := l.query(c)
				require.NoError(t, err)
				key := batching.Project(l.item, q.Position.Names())
				valid, err := codecOf(c, q).Encode(key)
				require.NoError(t, err)

				require.NoError(t, l.call(c, PageOptions{Cursor: valid}))
				require.Equal(t, []map[string]types.AttributeValue{key}, r.starts, "the page starts after the cursor's key")

				r.starts = nil
				edited := valuesOf(key)
				for name, v := range edited {
					if s := aws.ToString(v.S); strings.HasPrefix(s, "acme:") {
						edited[name] = paging.Value{S: aws.String("other:" + strings.TrimPrefix(s, "acme:"))}
					}
				}
				for name, cursor := range map[string]string{
					"another scope":       forge(t, codecOf(c, q), edited),
					"the other direction": valid,
					"garbage":             "garbage",
				} {
					err := l.call(c, PageOptions{Cursor: cursor, Descending: name == "the other direction"})
					require.ErrorIs(t, err, ErrInvalidCursor, name)
				}
				require.Empty(t, r.starts, "no request for an invalid cursor")
			})
		}
	}
}

func TestCursorKeyMustBeAnAES256Key(t *testing.T) {
	for _, n := range []int{0, 1, 16, 24, 31, 32, 33, 64} {
		_, err := New(&queryRecorder{}, Options{TablePrefix: "t", CursorKey: make([]byte, n)})
		if n == 0 || n == CursorKeySize {
			require.NoError(t, err, n)
			continue
		}
		require.ErrorIs(t, err, ErrInvalid, n)
		require.ErrorContains(t, err, "Options.CursorKey", n)
	}
}

// Modes of FuzzDecodeCursor: what its input is.
const (
	fuzzCursor       = iota // a cursor of a plain client
	fuzzSealedCursor        // a cursor of a sealing client
	fuzzKey                 // the JSON of a key, forged into a cursor with its checksum right
	fuzzModes
)

// FuzzDecodeCursor decodes arbitrary input as a cursor of one of the listings: either
// decoding refuses it with ErrInvalidCursor, or the key is one DynamoDB accepts to
// continue that listing's Query from, and lies within it.
func FuzzDecodeCursor(f *testing.F) {
	plain, _ := newCursorClient(f, nil)
	sealing, _ := newCursorClient(f, cursorKey)
	listings := cursorListings()
	clients := [fuzzModes]*Client{fuzzCursor: plain, fuzzSealedCursor: sealing, fuzzKey: plain}
	queries := make([][fuzzModes]store.PageQuery, len(listings))
	for i, l := range listings {
		for mode, c := range clients {
			queries[i][mode] = l.pageQuery(f, c)
		}
	}
	for i, l := range listings {
		for mode, c := range clients {
			q := queries[i][mode]
			cc := codecOf(c, q)
			key := l.keyOf(q)
			if mode == fuzzKey {
				keys := []map[string]types.AttributeValue{key}
				for _, e := range l.edits {
					raw := stringsOf(f, key)
					e.edit(raw)
					keys = append(keys, withStrings(key, raw))
				}
				for _, k := range keys {
					b, err := json.Marshal(valuesOf(k))
					require.NoError(f, err)
					f.Add(uint8(i), uint8(mode), string(b))
				}
				continue
			}
			s, err := cc.Encode(key)
			require.NoError(f, err)
			f.Add(uint8(i), uint8(mode), s)
			f.Add(uint8(i), uint8(mode), s[:len(s)/2])
			f.Add(uint8(i), uint8(mode), forge(f, cc, brokenKeys(q.Position, valuesOf(key))[q.Position.Attrs[0].Name+" empty"]))
		}
	}
	f.Fuzz(func(t *testing.T, listing, mode uint8, s string) {
		i, m := int(listing)%len(listings), int(mode)%fuzzModes
		l, c, q := listings[i], clients[m], queries[i][m]
		cc := codecOf(c, q)
		if m == fuzzKey {
			var key map[string]paging.Value
			if json.Unmarshal([]byte(s), &key) != nil {
				return
			}
			s = forge(t, cc, key)
		}
		key, err := cc.Decode(s, q.Position)
		switch {
		case err != nil:
			require.ErrorIs(t, err, ErrInvalidCursor)
		case s == "":
			require.Nil(t, key)
		default:
			requireQueryable(t, c, l, q, key)
			again, err := cc.Encode(key)
			require.NoError(t, err)
			if len(cc.Seal) == 0 {
				require.Equal(t, again, s, "a cursor is accepted only as issued")
			} else {
				require.Equal(t, -1, strings.IndexFunc(s, func(r rune) bool {
					return !strings.ContainsRune("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", r)
				}), "a sealed cursor is accepted only in its alphabet")
			}
			got, err := cc.Decode(again, q.Position)
			require.NoError(t, err)
			require.Equal(t, key, got)
		}
	})
}
