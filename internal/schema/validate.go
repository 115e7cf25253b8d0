package schema

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// DynamoDB's limits on key attribute values, in UTF-8 bytes. They apply to the stored
// value, so to a compound key after its components are escaped.
const (
	MaxPartitionKeyBytes = 2048
	MaxSortKeyBytes      = 1024
)

// ValidateComponent reports whether value can be a key component (a scope, type, id,
// predicate or index name): it must be non-empty valid UTF-8 without control
// characters. Field names the component in the error, such as "Key.ID".
//
// The control characters rejected are C0 (below U+0020) and DEL (U+007F): they are
// invisible in logs and consoles and never meaningful in an identifier. Other Unicode,
// including C1 controls, is accepted.
func ValidateComponent(field, value string) error {
	if value == "" {
		return &ValidationError{Field: field, Reason: "must not be empty"}
	}
	if !utf8.ValidString(value) {
		return &ValidationError{Field: field, Value: value, Reason: "is not valid UTF-8"}
	}
	for i, r := range value {
		if r < 0x20 || r == 0x7f {
			return &ValidationError{Field: field, Value: value,
				Reason: fmt.Sprintf("contains control character %U at byte %d", r, i)}
		}
	}
	return nil
}

// ValidateKeyLength reports whether key, a key attribute value as stored (a compound
// key after escaping), is at most limit bytes: MaxPartitionKeyBytes or MaxSortKeyBytes.
func ValidateKeyLength(field, key string, limit int) error {
	if len(key) > limit {
		return &ValidationError{Field: field, Value: key,
			Reason: fmt.Sprintf("key is %d bytes after escaping; DynamoDB allows at most %d", len(key), limit)}
	}
	return nil
}

// ValidateEntityKey reports whether scope, type and id form a valid entity key: each
// a valid component, and every key attribute built from them within DynamoDB's limits
// (the raw id as the entities table's partition key, ScopeTypeKey as its sort key and
// SubjectKey as the partition key of the relationship and index entries tables).
// An error names the component at fault ("Key.Scope", "Key.Type", "Key.ID") or, when
// only the combination is too long, "Key" with the escaped key as its Value.
func ValidateEntityKey(scope, typ, id string) error {
	for _, c := range [...]struct{ field, value string }{
		{"Key.Scope", scope},
		{"Key.Type", typ},
		{"Key.ID", id},
	} {
		if err := ValidateComponent(c.field, c.value); err != nil {
			return err
		}
	}
	// The raw id is stored unescaped in _id. SubjectKey is always longer, so this check
	// only gives a more precise error when the id alone is too long.
	if len(id) > MaxPartitionKeyBytes {
		return &ValidationError{Field: "Key.ID", Value: id,
			Reason: fmt.Sprintf("is %d bytes; DynamoDB allows at most %d in a partition key", len(id), MaxPartitionKeyBytes)}
	}
	if err := ValidateKeyLength("Key", ScopeTypeKey(scope, typ), MaxSortKeyBytes); err != nil {
		return err
	}
	return ValidateKeyLength("Key", SubjectKey(scope, typ, id), MaxPartitionKeyBytes)
}

// ValidateScopeType reports whether scope and type can select the entities of a type:
// each a valid component, and ScopeTypeKey within the sort key limit.
func ValidateScopeType(scope, typ string) error {
	if err := ValidateComponent("scope", scope); err != nil {
		return err
	}
	if err := ValidateComponent("type", typ); err != nil {
		return err
	}
	return ValidateKeyLength("scope and type", ScopeTypeKey(scope, typ), MaxSortKeyBytes)
}

// ValidatePredicate reports whether p can name a relationship predicate.
func ValidatePredicate(p string) error { return ValidateComponent("predicate", p) }

// ValidateIndexName reports whether name can name a secondary index of entities.
func ValidateIndexName(name string) error { return ValidateComponent("index name", name) }

// MaxAttributeNameBytes is DynamoDB's limit on the length of an attribute name.
const MaxAttributeNameBytes = 65535

// ValidateAttributeName reports whether name can name a user attribute: non-empty
// valid UTF-8 within DynamoDB's length limit, and outside the store's reserved '_'
// namespace. The error's Field is "Attributes.<name>".
func ValidateAttributeName(name string) error {
	field := "Attributes." + name
	switch {
	case name == "":
		return &ValidationError{Field: "Attributes", Reason: "attribute names must not be empty"}
	case strings.HasPrefix(name, ReservedPrefix):
		return &ValidationError{Field: field, Value: name, Reason: "names starting with '_' are reserved for the store"}
	case !utf8.ValidString(name):
		return &ValidationError{Field: "Attributes", Value: name, Reason: "attribute name is not valid UTF-8"}
	case len(name) > MaxAttributeNameBytes:
		return &ValidationError{Field: "Attributes", Value: name,
			Reason: fmt.Sprintf("attribute name is %d bytes; DynamoDB allows at most %d", len(name), MaxAttributeNameBytes)}
	}
	return nil
}
