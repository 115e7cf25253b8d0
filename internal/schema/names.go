package schema

import "fmt"

// Table and index name suffixes, appended to the prefix with an underscore.
const (
	EntitiesSuffix              = "entities_master"
	EntitiesByTypeSuffix        = "entities_by_type"
	RelationshipsSuffix         = "relationship_entries"
	ReverseRelationshipsSuffix  = "incoming_relationships"
	RelationshipsByObjectSuffix = "relationships_by_object"
	IndexEntriesSuffix          = "index_entries"
	IndexLookupSuffix           = "index_lookup"
	EntitiesInlineSuffix        = "entities_inline_" // followed by the slot, 1 to InlineSlots

	// RetiredReverseRelationshipsSuffix names the reverse index of schema versions 1
	// and 2, keyed by _object_key and _index: it left the order of entries at one
	// position to chance. Version 3 replaces it and deletes it.
	RetiredReverseRelationshipsSuffix = "reverse_relationships"
)

// DynamoDB's limits on table and index names.
const (
	minNameLen = 3
	maxNameLen = 255
)

// MaxPrefixLen is the longest prefix whose every table and index name fits DynamoDB's
// 255-byte name limit.
const MaxPrefixLen = maxNameLen - 1 - len(RelationshipsByObjectSuffix)

// Names holds the physical table and index names of one store.
type Names struct {
	Prefix string

	Entities       string // table: one item per entity
	EntitiesByType string // GSI of Entities: page entities of a type by update time
	// EntitiesInline are the GSIs of Entities for inline indexes, by slot - 1: range
	// queries by scope and index name over the value an entity item holds.
	EntitiesInline [InlineSlots]string

	Relationships         string // table: one item per relationship entry
	ReverseRelationships  string // GSI of Relationships: entries pointing at an object, by _reverse_key
	RelationshipsByObject string // LSI of Relationships: a subject's entries by predicate and object

	IndexEntries string // table: one item per emitted index value
	IndexLookup  string // GSI of IndexEntries: range queries by scope and index name
}

// NewNames validates prefix and returns the table and index names derived from it.
func NewNames(prefix string) (Names, error) {
	if err := ValidatePrefix(prefix); err != nil {
		return Names{}, err
	}
	name := func(suffix string) string { return prefix + "_" + suffix }
	var inline [InlineSlots]string
	for i := range inline {
		inline[i] = name(fmt.Sprint(EntitiesInlineSuffix, i+1))
	}
	return Names{
		Prefix:                prefix,
		EntitiesInline:        inline,
		Entities:              name(EntitiesSuffix),
		EntitiesByType:        name(EntitiesByTypeSuffix),
		Relationships:         name(RelationshipsSuffix),
		ReverseRelationships:  name(ReverseRelationshipsSuffix),
		RelationshipsByObject: name(RelationshipsByObjectSuffix),
		IndexEntries:          name(IndexEntriesSuffix),
		IndexLookup:           name(IndexLookupSuffix),
	}, nil
}

// RetiredIndexes returns the GSIs of earlier schema versions that the current one
// replaced, by table: migrations delete them once their replacements hold every item.
func (n Names) RetiredIndexes() map[string][]string {
	return map[string][]string{n.Relationships: {n.Prefix + "_" + RetiredReverseRelationshipsSuffix}}
}

// Tables returns the three table names in creation order.
func (n Names) Tables() []string {
	return []string{n.Entities, n.Relationships, n.IndexEntries}
}

// ValidatePrefix reports whether prefix can start DynamoDB table and index names:
// one to MaxPrefixLen characters from [A-Za-z0-9_.-].
func ValidatePrefix(prefix string) error {
	if prefix == "" {
		return &ValidationError{Field: "TablePrefix", Reason: "must not be empty"}
	}
	if len(prefix) > MaxPrefixLen {
		return &ValidationError{Field: "TablePrefix", Value: prefix,
			Reason: fmt.Sprintf("is %d bytes; at most %d fit DynamoDB's table name limit", len(prefix), MaxPrefixLen)}
	}
	for i := 0; i < len(prefix); i++ {
		if !isNameByte(prefix[i]) {
			return &ValidationError{Field: "TablePrefix", Value: prefix,
				Reason: fmt.Sprintf("has %q at byte %d; only letters, digits, '_', '.' and '-' are allowed", prefix[i], i)}
		}
	}
	return nil
}

func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '_' || c == '.' || c == '-'
}
