package paging

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
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// KeySize is the length of the key that seals cursors: an AES-256 key.
const KeySize = 32

// ErrInvalid is wrapped by every cursor Decode refuses.
var ErrInvalid = errors.New("ryno: invalid cursor")

// A cursor is the position of the last item of a page: the exclusive start key of
// the Query of the next page. It is the base64url encoding of the JSON of a cursor
// value, or, with a Codec.Seal key, of that JSON sealed with AES-256-GCM: a random
// nonce, the ciphertext and its tag.
//
// A cursor is accepted only as it was issued, byte for byte: its checksum covers the
// query, the direction and the key, and decoding re-encodes what it read, the
// base64 and the JSON, and compares. Whatever its checksum, the key must also be one the query could have
// returned (see Position), so that a forged cursor can only name a place in the
// listing it continues.
type cursor struct {
	Sum string           `json:"q"` // Codec.sum of the query, direction and key
	Key map[string]Value `json:"k"`
}

// Value is one key attribute: S or N.
type Value struct {
	S *string `json:"s,omitempty"`
	N *string `json:"n,omitempty"`
}

// MaxLen bounds the length of a cursor. An issued one is shorter: its key holds
// at most 6 KB (two partition keys of 2048 bytes and two sort keys of 1024), JSON
// escapes a byte into at most six, and base64 makes four characters of three bytes:
// under 50 KB.
const MaxLen = 64 << 10

// Encoding is strict so that every cursor has exactly one encoding.
var Encoding = base64.RawURLEncoding.Strict()

// Codec writes and reads the cursors of one query in one direction.
type Codec struct {
	Identity   string // names the query: a cursor is refused by every other
	Descending bool
	Seal       []byte // the AES-256 key cursors are sealed with; plain cursors when empty
}

// scope returns the query and direction the cursors belong to, in a form no other
// query and direction share: it prefixes the checksum and is the additional data of
// sealed cursors.
func (cc Codec) scope() []byte {
	b := make([]byte, 0, 8+len(cc.Identity)+1)
	b = binary.BigEndian.AppendUint64(b, uint64(len(cc.Identity)))
	b = append(b, cc.Identity...)
	if cc.Descending {
		return append(b, 'd')
	}
	return append(b, 'a')
}

// sum returns the checksum of a cursor of the query holding key, the JSON of its key.
// It detects cursors that were altered or belong to another query; anyone can
// compute it, so it authenticates nothing: sealing does.
func (cc Codec) sum(key []byte) string {
	h := sha256.New()
	h.Write(cc.scope())
	h.Write(key)
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:16])
}

// marshal returns the JSON of cur, with its checksum set from its key.
func (cc Codec) marshal(cur cursor) ([]byte, error) {
	key, err := json.Marshal(cur.Key)
	if err != nil {
		return nil, err
	}
	cur.Sum = cc.sum(key)
	return json.Marshal(cur)
}

// Encode returns the cursor continuing after key.
func (cc Codec) Encode(key map[string]types.AttributeValue) (string, error) {
	values, err := valuesOf(key)
	if err != nil {
		return "", err
	}
	return cc.Forge(values)
}

// Decode returns the exclusive start key of s, or nil for the empty cursor. Every
// cursor it does not accept is an error wrapping ErrInvalid; pos says which
// keys it accepts.
func (cc Codec) Decode(s string, pos Position) (map[string]types.AttributeValue, error) {
	if s == "" {
		return nil, nil
	}
	if len(s) > MaxLen {
		return nil, fmt.Errorf("%w: not a cursor", ErrInvalid)
	}
	b, err := cc.open(s)
	if err != nil {
		return nil, err
	}
	var cur cursor
	if err := json.Unmarshal(b, &cur); err != nil {
		return nil, fmt.Errorf("%w: not a cursor", ErrInvalid)
	}
	if canonical, err := cc.marshal(cur); err != nil || !bytes.Equal(canonical, b) {
		return nil, fmt.Errorf("%w: altered, or issued for a different query", ErrInvalid)
	}
	key, err := pos.key(cur.Key)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return key, nil
}

// newAEAD returns AES-256-GCM with key, a random nonce prefixed to the ciphertext.
func newAEAD(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("cursor key: %w", err)
	}
	return cipher.NewGCMWithRandomNonce(block)
}

// Position describes the keys of the items a query returns: the table's key and, for
// an index, the index's key. A cursor's key must be one of them.
type Position struct {
	Attrs []Attr
	// Related, when not nil, checks what ties the attributes to one another, once each
	// passed its own checks. It sees every attribute's value.
	Related func(key map[string]string) bool
}

// Attr is one attribute of a Position and what the query requires of it.
type Attr struct {
	Name string
	// Number marks an N attribute, a non-negative integer in canonical form; the
	// others are S.
	Number bool
	// Fixed, when not empty, is the value every item of the query has: a partition
	// key of its key condition.
	Fixed string
	// Max bounds the bytes of an S value that is not fixed: schema.MaxPartitionKeyBytes
	// or schema.MaxSortKeyBytes.
	Max int
	// Valid, when not nil, reports whether a value of the right type and size can be
	// that of an item of the query: the form the store writes, and for a sort key the
	// query's condition on it.
	Valid func(string) bool
}

// Names returns the names of the attributes of p.
func (p Position) Names() []string {
	names := make([]string, len(p.Attrs))
	for i, a := range p.Attrs {
		names[i] = a.Name
	}
	return names
}

// key returns the exclusive start key of a cursor's attributes, or an error saying
// why no item of the query has that key.
func (p Position) key(values map[string]Value) (map[string]types.AttributeValue, error) {
	if len(values) != len(p.Attrs) {
		return nil, fmt.Errorf("has %d key attributes, not %d", len(values), len(p.Attrs))
	}
	raw := make(map[string]string, len(p.Attrs))
	key := make(map[string]types.AttributeValue, len(p.Attrs))
	for _, a := range p.Attrs {
		v, ok := values[a.Name]
		if !ok {
			return nil, fmt.Errorf("has no key attribute %s", a.Name)
		}
		s, err := a.check(v)
		if err != nil {
			return nil, fmt.Errorf("key attribute %s %s", a.Name, err)
		}
		raw[a.Name] = s
		if a.Number {
			key[a.Name] = &types.AttributeValueMemberN{Value: s}
		} else {
			key[a.Name] = &types.AttributeValueMemberS{Value: s}
		}
	}
	if p.Related != nil && !p.Related(raw) {
		return nil, errors.New("has key attributes that no item holds together")
	}
	return key, nil
}

// check returns the value of v, or an error saying why no item of the query has it.
func (a Attr) check(v Value) (string, error) {
	var s string
	switch {
	case a.Number && v.N != nil && v.S == nil:
		s = *v.N
		if !isNatural(s) {
			return "", errors.New("is not a non-negative integer")
		}
	case !a.Number && v.S != nil && v.N == nil:
		s = *v.S
		switch {
		case a.Fixed != "":
			if s != a.Fixed {
				return "", errors.New("is not the query's")
			}
			return s, nil
		case s == "":
			return "", errors.New("is empty")
		case len(s) > a.Max:
			return "", fmt.Errorf("has %d bytes; a key has at most %d", len(s), a.Max)
		case !utf8.ValidString(s):
			return "", errors.New("is not UTF-8")
		}
	default:
		return "", errors.New("has the wrong type")
	}
	if a.Valid != nil && !a.Valid(s) {
		return "", errors.New("is not that of an item of the query")
	}
	return s, nil
}

// isNatural reports whether s is a non-negative integer as strconv.Itoa writes it.
func isNatural(s string) bool {
	n, err := strconv.ParseUint(s, 10, 63)
	return err == nil && strconv.FormatUint(n, 10) == s
}

// Forge returns the cursor of cc holding values as they are, with its checksum
// right and sealed as cc seals, checked against no position: what Encode issues,
// and what a client who knows how cursors are made could send. Tests and fuzz
// targets forge cursors to see Decode refuse what no query returns.
func (cc Codec) Forge(values map[string]Value) (string, error) {
	b, err := cc.marshal(cursor{Key: values})
	if err != nil {
		return "", err
	}
	return cc.seal(b)
}

// seal returns the cursor of the JSON b: sealed as cc seals, in base64url.
func (cc Codec) seal(b []byte) (string, error) {
	if len(cc.Seal) > 0 {
		aead, err := newAEAD(cc.Seal)
		if err != nil {
			return "", err
		}
		b = aead.Seal(nil, nil, b, cc.scope())
	}
	return Encoding.EncodeToString(b), nil
}

// open returns the JSON of the cursor s, as seal made it, or an error wrapping
// ErrInvalid.
func (cc Codec) open(s string) ([]byte, error) {
	b, err := Encoding.DecodeString(s)
	// The decoder skips '\r' and '\n' wherever they are: only the encoding of what
	// it read is the cursor issued.
	if err != nil || Encoding.EncodeToString(b) != s {
		return nil, fmt.Errorf("%w: not a cursor", ErrInvalid)
	}
	if len(cc.Seal) > 0 {
		aead, err := newAEAD(cc.Seal)
		if err != nil {
			return nil, err
		}
		if b, err = aead.Open(nil, nil, b, cc.scope()); err != nil {
			return nil, fmt.Errorf("%w: not sealed for this query with this client's key", ErrInvalid)
		}
	}
	return b, nil
}
