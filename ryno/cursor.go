package ryno

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/schema"
)

// CursorKeySize is the length of Options.CursorKey: an AES-256 key.
const CursorKeySize = 32

// A cursor is the position of the last item of a page: the exclusive start key of
// the Query of the next page. It is the base64url encoding of the JSON of a cursor
// value, or, with Options.CursorKey, of that JSON sealed with AES-256-GCM: a random
// nonce, the ciphertext and its tag.
//
// A cursor is accepted only as it was issued, byte for byte: its checksum covers the
// query, the direction and the key, and decoding re-encodes what it read, the
// base64 and the JSON, and compares. Whatever its checksum, the key must also be one the query could have
// returned (see position), so that a forged cursor can only name a place in the
// listing it continues.
type cursor struct {
	Sum string                 `json:"q"` // cursorCodec.sum of the query, direction and key
	Key map[string]cursorValue `json:"k"`
}

// cursorValue is one key attribute: S or N.
type cursorValue struct {
	S *string `json:"s,omitempty"`
	N *string `json:"n,omitempty"`
}

// maxCursorLen bounds the length of a cursor. An issued one is shorter: its key holds
// at most 6 KB (two partition keys of 2048 bytes and two sort keys of 1024), JSON
// escapes a byte into at most six, and base64 makes four characters of three bytes:
// under 50 KB.
const maxCursorLen = 64 << 10

// cursorEncoding is strict so that every cursor has exactly one encoding.
var cursorEncoding = base64.RawURLEncoding.Strict()

// cursorCodec writes and reads the cursors of one query in one direction.
type cursorCodec struct {
	identity   string // pageQuery.identity
	descending bool
	seal       []byte // Options.CursorKey; cursors are sealed when it is not empty
}

// scope returns the query and direction the cursors belong to, in a form no other
// query and direction share: it prefixes the checksum and is the additional data of
// sealed cursors.
func (cc cursorCodec) scope() []byte {
	b := make([]byte, 0, 8+len(cc.identity)+1)
	b = binary.BigEndian.AppendUint64(b, uint64(len(cc.identity)))
	b = append(b, cc.identity...)
	if cc.descending {
		return append(b, 'd')
	}
	return append(b, 'a')
}

// sum returns the checksum of a cursor of the query holding key, the JSON of its key.
// It detects cursors that were altered or belong to another query; anyone can
// compute it, so it authenticates nothing: sealing does.
func (cc cursorCodec) sum(key []byte) string {
	h := sha256.New()
	h.Write(cc.scope())
	h.Write(key)
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:16])
}

// marshal returns the JSON of cur, with its checksum set from its key.
func (cc cursorCodec) marshal(cur cursor) ([]byte, error) {
	key, err := json.Marshal(cur.Key)
	if err != nil {
		return nil, err
	}
	cur.Sum = cc.sum(key)
	return json.Marshal(cur)
}

// encode returns the cursor continuing after key.
func (cc cursorCodec) encode(key map[string]types.AttributeValue) (string, error) {
	cur := cursor{Key: make(map[string]cursorValue, len(key))}
	for name, v := range key {
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			cur.Key[name] = cursorValue{S: &v.Value}
		case *types.AttributeValueMemberN:
			cur.Key[name] = cursorValue{N: &v.Value}
		default:
			return "", fmt.Errorf("ryno: cannot page past key attribute %s of type %T", name, v)
		}
	}
	b, err := cc.marshal(cur)
	if err != nil {
		return "", err
	}
	if len(cc.seal) > 0 {
		aead, err := cursorAEAD(cc.seal)
		if err != nil {
			return "", err
		}
		b = aead.Seal(nil, nil, b, cc.scope())
	}
	return cursorEncoding.EncodeToString(b), nil
}

// decode returns the exclusive start key of s, or nil for the empty cursor. Every
// cursor it does not accept is an error wrapping ErrInvalidCursor; pos says which
// keys it accepts.
func (cc cursorCodec) decode(s string, pos position) (map[string]types.AttributeValue, error) {
	if s == "" {
		return nil, nil
	}
	if len(s) > maxCursorLen {
		return nil, fmt.Errorf("%w: not a cursor", ErrInvalidCursor)
	}
	b, err := cursorEncoding.DecodeString(s)
	// The decoder skips '\r' and '\n' wherever they are: only the encoding of what
	// it read is the cursor issued.
	if err != nil || cursorEncoding.EncodeToString(b) != s {
		return nil, fmt.Errorf("%w: not a cursor", ErrInvalidCursor)
	}
	if len(cc.seal) > 0 {
		aead, err := cursorAEAD(cc.seal)
		if err != nil {
			return nil, err
		}
		if b, err = aead.Open(nil, nil, b, cc.scope()); err != nil {
			return nil, fmt.Errorf("%w: not sealed for this query with this client's key", ErrInvalidCursor)
		}
	}
	var cur cursor
	if err := json.Unmarshal(b, &cur); err != nil {
		return nil, fmt.Errorf("%w: not a cursor", ErrInvalidCursor)
	}
	if canonical, err := cc.marshal(cur); err != nil || !bytes.Equal(canonical, b) {
		return nil, fmt.Errorf("%w: altered, or issued for a different query", ErrInvalidCursor)
	}
	key, err := pos.key(cur.Key)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidCursor, err)
	}
	return key, nil
}

// cursorAEAD returns AES-256-GCM with key, a random nonce prefixed to the ciphertext.
func cursorAEAD(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, wrap(err, "cursor key")
	}
	return cipher.NewGCMWithRandomNonce(block)
}

// position describes the keys of the items a query returns: the table's key and, for
// an index, the index's key. A cursor's key must be one of them.
type position struct {
	attrs []keyAttr
	// related, when not nil, checks what ties the attributes to one another, once each
	// passed its own checks. It sees every attribute's value.
	related func(key map[string]string) bool
}

// keyAttr is one attribute of a position and what the query requires of it.
type keyAttr struct {
	name string
	// number marks an N attribute, a non-negative integer in canonical form; the
	// others are S.
	number bool
	// fixed, when not empty, is the value every item of the query has: a partition
	// key of its key condition.
	fixed string
	// max bounds the bytes of an S value that is not fixed: schema.MaxPartitionKeyBytes
	// or schema.MaxSortKeyBytes.
	max int
	// valid, when not nil, reports whether a value of the right type and size can be
	// that of an item of the query: the form the store writes, and for a sort key the
	// query's condition on it.
	valid func(string) bool
}

// names returns the names of the attributes of p.
func (p position) names() []string {
	names := make([]string, len(p.attrs))
	for i, a := range p.attrs {
		names[i] = a.name
	}
	return names
}

// key returns the exclusive start key of a cursor's attributes, or an error saying
// why no item of the query has that key.
func (p position) key(values map[string]cursorValue) (map[string]types.AttributeValue, error) {
	if len(values) != len(p.attrs) {
		return nil, fmt.Errorf("has %d key attributes, not %d", len(values), len(p.attrs))
	}
	raw := make(map[string]string, len(p.attrs))
	key := make(map[string]types.AttributeValue, len(p.attrs))
	for _, a := range p.attrs {
		v, ok := values[a.name]
		if !ok {
			return nil, fmt.Errorf("has no key attribute %s", a.name)
		}
		s, err := a.check(v)
		if err != nil {
			return nil, fmt.Errorf("key attribute %s %s", a.name, err)
		}
		raw[a.name] = s
		if a.number {
			key[a.name] = &types.AttributeValueMemberN{Value: s}
		} else {
			key[a.name] = str(s)
		}
	}
	if p.related != nil && !p.related(raw) {
		return nil, errors.New("has key attributes that no item holds together")
	}
	return key, nil
}

// check returns the value of v, or an error saying why no item of the query has it.
func (a keyAttr) check(v cursorValue) (string, error) {
	var s string
	switch {
	case a.number && v.N != nil && v.S == nil:
		s = *v.N
		if !isNatural(s) {
			return "", errors.New("is not a non-negative integer")
		}
	case !a.number && v.S != nil && v.N == nil:
		s = *v.S
		switch {
		case a.fixed != "":
			if s != a.fixed {
				return "", errors.New("is not the query's")
			}
			return s, nil
		case s == "":
			return "", errors.New("is empty")
		case len(s) > a.max:
			return "", fmt.Errorf("has %d bytes; a key has at most %d", len(s), a.max)
		case !utf8.ValidString(s):
			return "", errors.New("is not UTF-8")
		}
	default:
		return "", errors.New("has the wrong type")
	}
	if a.valid != nil && !a.valid(s) {
		return "", errors.New("is not that of an item of the query")
	}
	return s, nil
}

// isNatural reports whether s is a non-negative integer as strconv.Itoa writes it.
func isNatural(s string) bool {
	n, err := strconv.ParseUint(s, 10, 63)
	return err == nil && strconv.FormatUint(n, 10) == s
}

// Positions of the listings.

// byTypePosition locates the entities of a type in a scope in the entities-by-type
// index.
func byTypePosition(scope, typ string) position {
	return position{attrs: []keyAttr{
		{name: schema.AttrID, max: schema.MaxPartitionKeyBytes, valid: func(id string) bool {
			return schema.ValidateEntityKey(scope, typ, id) == nil
		}},
		{name: schema.AttrScopeTypeKey, fixed: schema.ScopeTypeKey(scope, typ)},
		{name: schema.AttrUpdated, max: schema.MaxSortKeyBytes, valid: func(updated string) bool {
			_, err := schema.ParseTime(updated)
			return err == nil
		}},
	}}
}

// outgoingPosition locates the relationship entries of subject, of predicate or of
// every predicate when it is empty, in the relationship entries table.
func outgoingPosition(subject Key, predicate string, sets map[string]bool) position {
	return position{attrs: []keyAttr{
		{name: schema.AttrSubjectKey, fixed: subject.String()},
		{name: schema.AttrPredicateKey, max: schema.MaxSortKeyBytes, valid: func(k string) bool {
			e, ok := parsePredicateKey(k, sets)
			return ok && (predicate == "" || e.predicate == predicate)
		}},
	}}
}

// incomingPosition locates the relationship entries pointing at object, of predicate
// or of every predicate when it is empty, in the reverse index.
func incomingPosition(object Key, predicate string, sets map[string]bool) position {
	return position{
		attrs: []keyAttr{
			{name: schema.AttrSubjectKey, max: schema.MaxPartitionKeyBytes, valid: func(k string) bool {
				_, ok := parseEntityKey(k)
				return ok
			}},
			{name: schema.AttrPredicateKey, max: schema.MaxSortKeyBytes, valid: func(k string) bool {
				e, ok := parsePredicateKey(k, sets)
				return ok && e.objectType == object.Type && e.objectID == object.ID &&
					(e.objectScope == "" || e.objectScope == object.Scope) &&
					(predicate == "" || e.predicate == predicate)
			}},
			{name: schema.AttrObjectKey, fixed: object.String()},
			{name: schema.AttrReverseKey, max: schema.MaxSortKeyBytes},
		},
		// The reverse key is made of the other two: the subject, the predicate and
		// the position.
		related: func(key map[string]string) bool {
			subject, _ := parseEntityKey(key[schema.AttrSubjectKey])
			e, _ := parsePredicateKey(key[schema.AttrPredicateKey], sets)
			return schema.ReverseKey(e.predicate, subject.Scope, subject.Type, subject.ID, e.index) == key[schema.AttrReverseKey]
		},
	}
}

// lookupPosition locates the entries of the index named index of scope whose values
// cond matches, in the lookup index.
func lookupPosition(scope, index string, cond indexing.Condition) position {
	return position{
		attrs: []keyAttr{
			{name: schema.AttrSubjectKey, max: schema.MaxPartitionKeyBytes, valid: func(k string) bool {
				e, ok := parseEntityKey(k)
				return ok && e.Scope == scope
			}},
			{name: schema.AttrUniqueKey, max: schema.MaxSortKeyBytes},
			{name: schema.AttrScopeIndexName, fixed: schema.ScopeIndexName(scope, index)},
			{name: schema.AttrIndexKey, max: schema.MaxSortKeyBytes, valid: func(k string) bool {
				v, err := indexing.ParseValue(k)
				return err == nil && cond.Match(v)
			}},
		},
		related: func(key map[string]string) bool {
			return key[schema.AttrUniqueKey] == schema.UniqueKey(index, key[schema.AttrIndexKey])
		},
	}
}

// parseEntityKey reads a _subject_key or _object_key: the key of a valid entity,
// written as schema.SubjectKey writes it.
func parseEntityKey(s string) (Key, bool) {
	parts, ok := splitKey(s, 3)
	if !ok {
		return Key{}, false
	}
	k := Key{Scope: parts[0], Type: parts[1], ID: parts[2]}
	return k, k.Validate() == nil && k.String() == s
}

// predicateKey holds the parts of a relationship entry's _predicate_key.
type predicateKey struct {
	predicate            string
	index                int
	objectScope          string // of a set's entry only
	objectType, objectID string
}

// parsePredicateKey reads a _predicate_key as schema.PredicateKey writes it, or,
// for a predicate of sets, as a set's entry has it.
func parsePredicateKey(s string, sets map[string]bool) (predicateKey, bool) {
	parts, ok := splitKey(s, 4)
	if !ok {
		return predicateKey{}, false
	}
	if sets[parts[0]] {
		return parseSetKey(s, parts)
	}
	if len(parts[1]) != schema.IndexWidth {
		return predicateKey{}, false
	}
	index, err := strconv.Atoi(parts[1])
	if err != nil || schema.ValidateIndex(index) != nil {
		return predicateKey{}, false
	}
	for _, c := range []string{parts[0], parts[2], parts[3]} {
		if schema.ValidateComponent("", c) != nil {
			return predicateKey{}, false
		}
	}
	e := predicateKey{predicate: parts[0], index: index, objectType: parts[2], objectID: parts[3]}
	return e, schema.PredicateKey(e.predicate, e.index, e.objectType, e.objectID) == s
}

// parseSetKey reads the components of a set entry's _predicate_key:
// predicate:object_scope:object_type:object_id.
func parseSetKey(s string, parts []string) (predicateKey, bool) {
	for _, c := range parts {
		if schema.ValidateComponent("", c) != nil {
			return predicateKey{}, false
		}
	}
	e := predicateKey{predicate: parts[0], objectScope: parts[1], objectType: parts[2], objectID: parts[3]}
	return e, schema.PredicateObjectKey(parts[0], parts[1], parts[2], parts[3]) == s
}

// splitKey returns the n unescaped components of a compound key.
func splitKey(s string, n int) ([]string, bool) {
	parts := strings.Split(s, string(schema.Delimiter))
	if len(parts) != n {
		return nil, false
	}
	for i, p := range parts {
		var err error
		if parts[i], err = schema.Unescape(p); err != nil {
			return nil, false
		}
	}
	return parts, true
}
