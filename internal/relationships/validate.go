package relationships

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/schema"
)

// maxIndex is the largest index an Entry can hold: schema.MaxIndex, or less where
// int has 32 bits.
const maxIndex = min(schema.MaxIndex, math.MaxInt)

// minObjectSuffix is the length of the shortest _predicate_key after the predicate
// prefix: the index digits, ':', a one-byte type, ':' and a one-byte id.
const minObjectSuffix = schema.IndexWidth + 4

// Validate reports whether the relationships from subject to each of objects under
// predicate can be stored: the predicate valid (ValidatePredicate), subject and
// objects valid entity keys, and every sort key built from them within DynamoDB's
// limit. Call it before planning or sending any request. The error is a
// *tables.ValidationError, wrapped with "subject" or "objects[i]" when it concerns
// a key, so errors.As finds it.
func Validate(subject entity.Key, predicate string, objects []entity.Key) error {
	if err := ValidatePredicate(predicate); err != nil {
		return err
	}
	if err := schema.ValidateEntityKey(subject.Scope, subject.Type, subject.ID); err != nil {
		return errs.Wrap(err, "subject")
	}
	for i, o := range objects {
		if err := validateObject(predicate, o); err != nil {
			return errs.Wrap(err, "objects[%d]", i)
		}
	}
	return nil
}

// ValidatePredicate reports whether predicate can name a relationship: a valid key
// component that leaves room in _predicate_key for an index and an object. A
// predicate that passes can be used in queries even with no objects.
func ValidatePredicate(predicate string) error {
	if err := schema.ValidatePredicate(predicate); err != nil {
		return err
	}
	if n := len(schema.PredicatePrefix(predicate)) + minObjectSuffix; n > schema.MaxSortKeyBytes {
		return &schema.ValidationError{Field: "predicate", Value: predicate,
			Reason: fmt.Sprintf("is too long: the shortest %s would be %d bytes; DynamoDB allows at most %d",
				schema.AttrPredicateKey, n, schema.MaxSortKeyBytes)}
	}
	if n := len(schema.PredicatePrefix(predicate)) + schema.ReverseKeyRoom; n > schema.MaxSortKeyBytes {
		return &schema.ValidationError{Field: "predicate", Value: predicate,
			Reason: fmt.Sprintf("is too long: a %s must keep it whole and %d bytes more, %d in all; DynamoDB allows at most %d",
				schema.AttrReverseKey, schema.ReverseKeyRoom, n, schema.MaxSortKeyBytes)}
	}
	return nil
}

// validateObject checks the object of an entry under predicate: a valid entity key
// whose sort keys fit DynamoDB's limit whatever its index.
func validateObject(predicate string, o entity.Key) error {
	if err := schema.ValidateEntityKey(o.Scope, o.Type, o.ID); err != nil {
		return err
	}
	// Every valid index has the same width, so maxIndex stands for all of them.
	if err := schema.ValidateKeyLength(schema.AttrPredicateKey,
		schema.PredicateKey(predicate, maxIndex, o.Type, o.ID), schema.MaxSortKeyBytes); err != nil {
		return err
	}
	return schema.ValidateKeyLength(schema.AttrPredicateObjectKey,
		schema.PredicateObjectKey(predicate, o.Scope, o.Type, o.ID), schema.MaxSortKeyBytes)
}

// Validate reports whether the entry can be stored: its keys as for Validate, its
// index within 0..tables.MaxIndex, its attribute names outside the reserved '_'
// namespace, and its item within DynamoDB's size limit.
func (e Entry) Validate() error {
	if err := Validate(e.Subject, e.Predicate, nil); err != nil {
		return err
	}
	if err := validateObject(e.Predicate, e.Object); err != nil {
		return errs.Wrap(err, "object")
	}
	if err := schema.ValidateIndex(e.Index); err != nil {
		return err
	}
	// Sorted, so that the error is the same on every call.
	for _, name := range slices.Sorted(maps.Keys(e.Attributes)) {
		if err := validateAttribute(name, e.Attributes[name]); err != nil {
			return err
		}
	}
	if n := schema.ItemSize(e.Item()); n > schema.MaxItemBytes {
		return &schema.ValidationError{Field: "Entry", Value: e.Subject.String(),
			Reason: fmt.Sprintf("item is %d bytes; DynamoDB allows at most %d", n, schema.MaxItemBytes)}
	}
	return nil
}

// validateAttribute rejects edge attributes DynamoDB would refuse and names in the
// store's reserved namespace.
func validateAttribute(name string, av types.AttributeValue) error {
	if err := schema.ValidateAttributeName(name); err != nil {
		return err
	}
	if av == nil {
		return &schema.ValidationError{Field: "Attributes." + name, Reason: "has no value"}
	}
	return nil
}
