package relationships

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/schema"
)

// Head is the bookkeeping of one subject's list for one predicate, stored as an item
// of its own beside the entries (see schema.ListHeadKey). Every write of the list
// changes it in the same transaction as the entries: its version orders the writes,
// Next hands out positions that no other entry holds, and Digest and Count describe
// the entries, so that a writer can check that a read of the whole list is the list
// as it stands when it commits.
type Head struct {
	Subject   entity.Key
	Predicate string
	// Version is 0 for a list that has no head yet: one never written.
	Version int64
	Next    int // the next free position: above every position in the list
	Count   int // how many entries the list holds
	Digest  Digest
	// Lease and LeaseUntil are set while a writer holds the list for a change too
	// large for one transaction.
	Lease      string
	LeaseUntil time.Time
	// Intent is the token of a writer whose intent is recorded whole (see Intent),
	// in IntentParts parts: writes it may not have finished. CheckObjects says its
	// edges need their objects to exist.
	Intent       string
	IntentParts  int
	CheckObjects bool
	// Waiting are the requests of writers combining their calls, oldest first, and
	// Done the results of those committed that their writers have not taken.
	Waiting []Request
	Done    map[string]Done
}

// Leased reports whether a writer holds the list at now.
func (h Head) Leased(now time.Time) bool { return h.Lease != "" && now.Before(h.LeaseUntil) }

// Abandoned reports whether a writer held the list and its lease expired before
// now: it was cut off, or is too slow to trust, and what it left must be finished
// before anyone plans against the head.
func (h Head) Abandoned(now time.Time) bool { return h.Lease != "" && !now.Before(h.LeaseUntil) }

// HeadPrimaryKey returns the primary key of the head of subject's list for
// predicate.
func HeadPrimaryKey(subject entity.Key, predicate string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		schema.AttrSubjectKey:   str(subject.String()),
		schema.AttrPredicateKey: str(schema.ListHeadKey(predicate)),
	}
}

// HeadFromItem decodes a head item; nil gives the head of a list never written.
func HeadFromItem(subject entity.Key, predicate string, item map[string]types.AttributeValue) (Head, error) {
	h := Head{Subject: subject, Predicate: predicate}
	if item == nil {
		return h, nil
	}
	r := itemReader{item: item}
	h.Version = r.int64(schema.AttrVersion)
	h.Next = int(r.int64(schema.AttrNext))
	h.Count = int(r.int64(schema.AttrCount))
	h.Digest = r.digest(schema.AttrDigest)
	if _, ok := item[schema.AttrLease]; ok {
		h.Lease = r.str(schema.AttrLease)
		h.LeaseUntil = time.UnixMilli(r.int64(schema.AttrLeaseUntil))
	}
	if _, ok := item[schema.AttrIntent]; ok {
		h.Intent = r.str(schema.AttrIntent)
		h.IntentParts = int(r.int64(schema.AttrIntentParts))
		if b, ok := item[schema.AttrCheckObjects].(*types.AttributeValueMemberBOOL); ok {
			h.CheckObjects = b.Value
		}
	}
	if r.err != nil {
		return Head{}, errs.Wrap(r.err, "head of %s -%s->", subject, predicate)
	}
	var err error
	if h.Waiting, h.Done, err = readCombining(item); err != nil {
		return Head{}, errs.Wrap(err, "head of %s -%s->", subject, predicate)
	}
	return h, nil
}

// RawAttributes returns the attributes a head or marker item carries besides its
// key and state: the raw subject and predicate, for people and tools reading the
// table.
func RawAttributes(subject entity.Key, predicate string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		schema.AttrSubjectScope: str(subject.Scope),
		schema.AttrSubjectType:  str(subject.Type),
		schema.AttrSubjectID:    str(subject.ID),
		schema.AttrPredicate:    str(predicate),
	}
}

// Marker records where one object stands in a subject's list: the positions of its
// entries, in order. A list holds an object exactly when its marker has positions.
// Markers make "is O in the list" and "which entries point at O" one read of one
// item, and a condition on it makes that answer hold when a write commits.
type Marker struct {
	Object    entity.Key
	Positions []int
}

// MarkerPrimaryKey returns the primary key of the marker of object in subject's list
// for predicate.
func MarkerPrimaryKey(subject entity.Key, predicate string, object entity.Key) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		schema.AttrSubjectKey:   str(subject.String()),
		schema.AttrPredicateKey: str(schema.ListMarkerKey(predicate, object.Scope, object.Type, object.ID)),
	}
}

// MarkerItem returns the marker item of object at positions, which must not be
// empty. It names the object in raw attributes only: with no _object_key the
// reverse index never sees it.
func MarkerItem(subject entity.Key, predicate string, object entity.Key, positions []int) map[string]types.AttributeValue {
	item := RawAttributes(subject, predicate)
	for name, v := range MarkerPrimaryKey(subject, predicate, object) {
		item[name] = v
	}
	item[schema.AttrObjectScope] = str(object.Scope)
	item[schema.AttrObjectType] = str(object.Type)
	item[schema.AttrObjectID] = str(object.ID)
	item[schema.AttrPositions] = PositionSet(positions)
	return item
}

// MarkerFromItem decodes a marker item; nil, or a marker whose positions were all
// removed, gives no positions.
func MarkerFromItem(object entity.Key, item map[string]types.AttributeValue) (Marker, error) {
	m := Marker{Object: object}
	av, ok := item[schema.AttrPositions]
	if !ok {
		return m, nil
	}
	set, ok := av.(*types.AttributeValueMemberNS)
	if !ok {
		return m, errs.New("marker of %s: %s is %T, want a number set", object, schema.AttrPositions, av)
	}
	for _, n := range set.Value {
		p, err := strconv.Atoi(n)
		if err != nil || schema.ValidateIndex(p) != nil {
			return m, errs.New("marker of %s: position %q is not a list position", object, n)
		}
		m.Positions = append(m.Positions, p)
	}
	slices.Sort(m.Positions)
	return m, nil
}

// PositionSet returns positions as a number set, the form of a marker's positions.
func PositionSet(positions []int) *types.AttributeValueMemberNS {
	set := make([]string, len(positions))
	for i, p := range positions {
		set[i] = strconv.Itoa(p)
	}
	return &types.AttributeValueMemberNS{Value: set}
}

// Digest is the sum of the hashes of a list's entries (each a 64-bit hash of the
// entry's position and object). Two lists with equal digests are, but for a chance
// of about 2^-64, the same list; and the digest of a list changes by the hashes of
// the entries put and deleted, which DynamoDB can add to a number without reading
// it. The zero Digest is that of the empty list.
type Digest struct{ sum *big.Int }

// DigestOf returns the digest of a list of entries.
func DigestOf(entries []Entry) Digest { return Digest{}.Plus(entries...) }

// Plus returns d with the hashes of entries added.
func (d Digest) Plus(entries ...Entry) Digest { return d.Add(sumOf(entries)) }

// Minus returns d with the hashes of entries taken away.
func (d Digest) Minus(entries ...Entry) Digest { return d.Add(new(big.Int).Neg(sumOf(entries))) }

// Add returns d plus delta.
func (d Digest) Add(delta *big.Int) Digest { return Digest{sum: new(big.Int).Add(d.int(), delta)} }

// Delta returns what the digest of a list gains when puts are written and deletes
// deleted: the amount to add to a stored digest.
func Delta(puts, deletes []Entry) *big.Int {
	return new(big.Int).Sub(sumOf(puts), sumOf(deletes))
}

// Equal reports whether two digests are the same.
func (d Digest) Equal(o Digest) bool { return d.int().Cmp(o.int()) == 0 }

// String returns the digest in decimal, as the head stores it.
func (d Digest) String() string { return d.int().String() }

// ParseDigest reads a digest in decimal.
func ParseDigest(s string) (Digest, error) {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return Digest{}, fmt.Errorf("%q is not a digest", s)
	}
	return Digest{sum: n}, nil
}

func (d Digest) int() *big.Int {
	if d.sum == nil {
		return new(big.Int)
	}
	return d.sum
}

func sumOf(entries []Entry) *big.Int {
	sum := new(big.Int)
	for _, e := range entries {
		sum.Add(sum, new(big.Int).SetUint64(entryHash(e)))
	}
	return sum
}

// entryHash hashes what identifies an entry in its list: its position and its
// object, scope included.
func entryHash(e Entry) uint64 {
	h := sha256.New()
	var pos [8]byte
	binary.BigEndian.PutUint64(pos[:], uint64(e.Index))
	h.Write(pos[:])
	h.Write([]byte(e.Object.String()))
	return binary.BigEndian.Uint64(h.Sum(nil))
}

func (r *itemReader) int64(name string) int64 {
	n, ok := r.number(name)
	if !ok {
		return 0
	}
	v, err := strconv.ParseInt(n, 10, 64)
	if err != nil {
		r.fail(name, fmt.Sprintf("is %q, want an integer", n))
	}
	return v
}

func (r *itemReader) digest(name string) Digest {
	av, ok := r.lookup(name)
	if !ok {
		return Digest{}
	}
	n, ok := av.(*types.AttributeValueMemberN)
	if !ok {
		r.fail(name, fmt.Sprintf("is %T, want a number", av))
		return Digest{}
	}
	d, err := ParseDigest(n.Value)
	if err != nil {
		r.fail(name, err.Error())
	}
	return d
}
