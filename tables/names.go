package tables

import "fmt"

// Table and index name suffixes, appended to the prefix with an underscore.
const (
	entitiesSuffix              = "entities_master"
	entitiesByTypeSuffix        = "entities_by_type"
	entitiesByTypeShardSuffix   = "entities_by_type_shard"
	relationshipsSuffix         = "relationship_entries"
	reverseRelationshipsSuffix  = "incoming_relationships"
	relationshipsByObjectSuffix = "relationships_by_object"
	incomingShardSuffix         = "incoming_shard"
	indexEntriesSuffix          = "index_entries"
	indexLookupSuffix           = "index_lookup"
	entitiesInlineSuffix        = "entities_inline_" // followed by the slot, from 1

	// retiredReverseRelationshipsSuffix names the reverse index of schema versions 1
	// and 2, keyed by _object_key and _index: it left the order of entries at one
	// position to chance. Version 3 replaces it and deletes it.
	retiredReverseRelationshipsSuffix = "reverse_relationships"
)

// DynamoDB's limits on table and index names.
const (
	minNameLen = 3
	maxNameLen = 255
)

// MaxPrefixLen is the longest prefix whose every table and index name fits DynamoDB's
// 255-byte name limit.
const MaxPrefixLen = maxNameLen - 1 - len(relationshipsByObjectSuffix)

// Names holds the physical table and index names of one store.
type Names struct {
	Prefix string // what every name starts with, followed by '_'

	Entities       string // table: one item per entity
	EntitiesByType string // GSI of Entities: page entities of a type by update time
	// EntitiesByTypeShard is the GSI of Entities that pages the entities of a
	// sharded type, one shard of a type at a time, by update time.
	EntitiesByTypeShard string
	// EntitiesInline are the GSIs of Entities for inline indexes, by slot - 1: range
	// queries by scope and index name over the value an entity item holds.
	EntitiesInline [2]string

	Relationships        string // table: one item per relationship entry
	ReverseRelationships string // GSI of Relationships: entries pointing at an object, by _reverse_key
	// IncomingShard is the GSI of Relationships holding the entries pointing at
	// entities of types whose incoming entries are sharded, one shard of an object
	// at a time, by _reverse_key.
	IncomingShard         string
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
	n := Names{
		Prefix:                prefix,
		Entities:              name(entitiesSuffix),
		EntitiesByType:        name(entitiesByTypeSuffix),
		EntitiesByTypeShard:   name(entitiesByTypeShardSuffix),
		Relationships:         name(relationshipsSuffix),
		ReverseRelationships:  name(reverseRelationshipsSuffix),
		IncomingShard:         name(incomingShardSuffix),
		RelationshipsByObject: name(relationshipsByObjectSuffix),
		IndexEntries:          name(indexEntriesSuffix),
		IndexLookup:           name(indexLookupSuffix),
	}
	for i := range n.EntitiesInline {
		n.EntitiesInline[i] = name(fmt.Sprint(entitiesInlineSuffix, i+1))
	}
	return n, nil
}

// RetiredIndexes returns the GSIs of earlier schema versions that the current one
// replaced, by table: migrations delete them once their replacements hold every item.
func (n Names) RetiredIndexes() map[string][]string {
	return map[string][]string{n.Relationships: {n.Prefix + "_" + retiredReverseRelationshipsSuffix}}
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
