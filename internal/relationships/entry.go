package relationships

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/schema"
)

// Entry is one relationship: the edge from Subject to Object at position Index of
// Subject's list for Predicate.
type Entry struct {
	Subject   entity.Key
	Predicate string
	// Index is the entry's position in the subject's list for Predicate, 0 to
	// schema.MaxIndex. Lists are ordered by index; indexes need not be contiguous.
	Index  int
	Object entity.Key
	// Attributes are optional attributes of the edge, stored at the top level of the
	// item. Their names must not start with '_'.
	Attributes map[string]types.AttributeValue
	// InSet says the entry belongs to a set, a predicate declared unordered: it is
	// the one entry of its object, its sort key is predicate:object_scope:
	// object_type:object_id, and its Index is 0. It has no _predicate_object_key: its
	// own key finds it by object, so the by-object index, and its write, are spared.
	InSet bool
	// Ordered says the entry belongs to an ordered set: a set listed in the order
	// its objects were added. Position orders it; the entry's
	// _predicate_object_key (schema.OrderedSetKey) holds it, so that the by-object
	// index lists the set in order. Index stays 0.
	Ordered  bool
	Position int64
}

// SetEntry returns the entry of object in subject's set under predicate.
func SetEntry(subject entity.Key, predicate string, object entity.Key) Entry {
	return Entry{Subject: subject, Predicate: predicate, Object: object, InSet: true}
}

// OrderedSetEntry returns the entry of object at position in subject's ordered set
// under predicate.
func OrderedSetEntry(subject entity.Key, predicate string, object entity.Key, position int64) Entry {
	return Entry{Subject: subject, Predicate: predicate, Object: object, InSet: true, Ordered: true, Position: position}
}

// entryAttrs is the number of attributes the store writes in every entry item.
const entryAttrs = 13

// Item returns the entry's item in the relationship entries table: the raw
// components, the compound keys built from them, and the edge attributes.
func (e Entry) Item() map[string]types.AttributeValue {
	item := make(map[string]types.AttributeValue, len(e.Attributes)+entryAttrs)
	// Edge attributes first, so that the store's attributes win over a reserved name
	// that Validate would have rejected.
	maps.Copy(item, e.Attributes)
	item[schema.AttrSubjectScope] = str(e.Subject.Scope)
	item[schema.AttrSubjectType] = str(e.Subject.Type)
	item[schema.AttrSubjectID] = str(e.Subject.ID)
	item[schema.AttrPredicate] = str(e.Predicate)
	item[schema.AttrIndex] = &types.AttributeValueMemberN{Value: strconv.Itoa(e.Index)}
	item[schema.AttrObjectScope] = str(e.Object.Scope)
	item[schema.AttrObjectType] = str(e.Object.Type)
	item[schema.AttrObjectID] = str(e.Object.ID)
	item[schema.AttrSubjectKey] = str(e.Subject.String())
	item[schema.AttrObjectKey] = str(e.Object.String())
	item[schema.AttrPredicateKey] = str(e.predicateKey())
	item[schema.AttrReverseKey] = str(e.ReverseKey())
	switch {
	case e.Ordered:
		item[schema.AttrPredicateObjectKey] = str(e.OrderedKey())
	case !e.InSet:
		item[schema.AttrPredicateObjectKey] = str(e.predicateObjectKey())
	}
	return item
}

// PrimaryKey returns the entry's primary key: _subject_key and _predicate_key.
func (e Entry) PrimaryKey() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		schema.AttrSubjectKey:   str(e.Subject.String()),
		schema.AttrPredicateKey: str(e.predicateKey()),
	}
}

// ReverseKey returns the entry's _reverse_key, its sort key in the reverse index.
func (e Entry) ReverseKey() string {
	return schema.ReverseKey(e.Predicate, e.Subject.Scope, e.Subject.Type, e.Subject.ID, e.Index)
}

func (e Entry) predicateKey() string {
	if e.InSet {
		return e.predicateObjectKey()
	}
	return schema.PredicateKey(e.Predicate, e.Index, e.Object.Type, e.Object.ID)
}

// OrderedKey returns the _predicate_object_key of an entry of an ordered set.
func (e Entry) OrderedKey() string {
	return schema.OrderedSetKey(e.Predicate, e.Position, e.Object.Scope, e.Object.Type, e.Object.ID)
}

func (e Entry) predicateObjectKey() string {
	return schema.PredicateObjectKey(e.Predicate, e.Object.Scope, e.Object.Type, e.Object.ID)
}

// FromItem reads an entry from a full item of the relationship entries table, as
// returned by GetItem, Query or the reverse relationships index. It reads the raw
// attributes and never parses compound keys. Attributes whose names start with '_'
// other than the entry's own are ignored.
func FromItem(item map[string]types.AttributeValue) (Entry, error) {
	r := itemReader{item: item}
	// Composite literal elements are evaluated in order, so r.err is the first fault.
	e := Entry{
		Subject: entity.Key{
			Scope: r.str(schema.AttrSubjectScope),
			Type:  r.str(schema.AttrSubjectType),
			ID:    r.str(schema.AttrSubjectID),
		},
		Predicate: r.str(schema.AttrPredicate),
		Index:     r.index(schema.AttrIndex),
		Object: entity.Key{
			Scope: r.str(schema.AttrObjectScope),
			Type:  r.str(schema.AttrObjectType),
			ID:    r.str(schema.AttrObjectID),
		},
		Attributes: edgeAttributes(item),
	}
	if r.err != nil {
		return Entry{}, r.err
	}
	lsi, present := item[schema.AttrPredicateObjectKey]
	e.InSet = !present
	if byObject, ok := lsi.(*types.AttributeValueMemberS); ok && schema.IsOrderedSetKey(byObject.Value) {
		p, err := schema.ParseOrderedSetKey(e.Predicate, byObject.Value)
		if err != nil {
			return Entry{}, err
		}
		e.InSet, e.Ordered, e.Position = true, true, p
	}
	return e, nil
}

// FromOrderedKeys reads an entry of subject's ordered set under predicate from an
// item of the by-object index, which projects keys only: the object is in its
// _predicate_key, the position in its _predicate_object_key. An entry of an ordered
// set has no edge attributes, so the keys hold all of it.
func FromOrderedKeys(subject entity.Key, predicate string, item map[string]types.AttributeValue) (Entry, error) {
	r := itemReader{item: item}
	sk, pk, ok := r.str(schema.AttrSubjectKey), r.str(schema.AttrPredicateKey), r.str(schema.AttrPredicateObjectKey)
	if r.err != nil {
		return Entry{}, r.err
	}
	position, err := schema.ParseOrderedSetKey(predicate, ok)
	if err != nil {
		return Entry{}, err
	}
	e := OrderedSetEntry(subject, predicate, entity.Key{}, position)
	parts, split := schema.Split(pk, 4)
	if split {
		e.Object = entity.Key{Scope: parts[1], Type: parts[2], ID: parts[3]}
	}
	if !split || sk != subject.String() || parts[0] != predicate || e.predicateKey() != pk || e.OrderedKey() != ok {
		return Entry{}, &schema.ValidationError{Field: schema.AttrPredicateKey, Value: pk,
			Reason: fmt.Sprintf("is not the key of an entry of the ordered set %s of %s", predicate, subject)}
	}
	return e, nil
}

// PrimaryKeyFromItem returns the primary key (_subject_key and _predicate_key) of
// any item of the relationship entries table or of its indexes. The
// relationships-by-object index projects keys only: its items carry no object or
// index, but their primary key is enough to delete the entry.
func PrimaryKeyFromItem(item map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	r := itemReader{item: item}
	key := map[string]types.AttributeValue{
		schema.AttrSubjectKey:   str(r.str(schema.AttrSubjectKey)),
		schema.AttrPredicateKey: str(r.str(schema.AttrPredicateKey)),
	}
	if r.err != nil {
		return nil, r.err
	}
	return key, nil
}

// edgeAttributes returns the attributes of item outside the reserved namespace, or
// nil if there are none.
func edgeAttributes(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	var attrs map[string]types.AttributeValue
	for name, av := range item {
		if strings.HasPrefix(name, schema.ReservedPrefix) {
			continue
		}
		if attrs == nil {
			attrs = make(map[string]types.AttributeValue)
		}
		attrs[name] = av
	}
	return attrs
}

// itemReader reads typed attributes from an item, keeping the first error so that
// a whole record can be read before checking.
type itemReader struct {
	item map[string]types.AttributeValue
	err  error
}

func (r *itemReader) str(name string) string {
	av, ok := r.lookup(name)
	if !ok {
		return ""
	}
	s, ok := av.(*types.AttributeValueMemberS)
	if !ok {
		r.fail(name, fmt.Sprintf("is %T, want a string", av))
		return ""
	}
	return s.Value
}

func (r *itemReader) index(name string) int {
	n, ok := r.number(name)
	if !ok {
		return 0
	}
	i, err := strconv.Atoi(n)
	if err != nil || schema.ValidateIndex(i) != nil {
		r.fail(name, fmt.Sprintf("is %q, want an integer from 0 to %d", n, int64(schema.MaxIndex)))
		return 0
	}
	return i
}

// number returns the number attribute name as written, and false when it is
// absent or not a number (failing the read then).
func (r *itemReader) number(name string) (string, bool) {
	av, ok := r.lookup(name)
	if !ok {
		return "", false
	}
	n, ok := av.(*types.AttributeValueMemberN)
	if !ok {
		r.fail(name, fmt.Sprintf("is %T, want a number", av))
		return "", false
	}
	return n.Value, true
}

func (r *itemReader) lookup(name string) (types.AttributeValue, bool) {
	av, ok := r.item[name]
	if !ok {
		r.fail(name, "is missing")
	}
	return av, ok
}

func (r *itemReader) fail(name, reason string) {
	if r.err == nil {
		r.err = errs.New("item attribute %s %s", name, reason)
	}
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
