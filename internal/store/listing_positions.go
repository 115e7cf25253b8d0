// The positions of the listings: for each query a cursor can continue (entities
// by type, a subject's entries, the entries pointing at an object, an index's
// entries, an inline index's entities), the key attributes of the page's last item
// and what each may hold, against which package paging checks a cursor before any
// request. Pure: no I/O.

package store

import (
	"strconv"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/paging"
	"github.com/rynodb/rynodb/internal/schema"
)

// byTypePosition locates the entities of a type in a scope in the entities-by-type
// index.
func byTypePosition(scope, typ string) paging.Position {
	return paging.Position{Attrs: []paging.Attr{
		{Name: schema.AttrID, Max: schema.MaxPartitionKeyBytes, Valid: func(id string) bool {
			return schema.ValidateEntityKey(scope, typ, id) == nil
		}},
		{Name: schema.AttrScopeTypeKey, Fixed: schema.ScopeTypeKey(scope, typ)},
		// Any text: an item another program wrote may hold a time in another
		// layout, or none, and the cursor after it must go on.
		{Name: schema.AttrUpdated, Max: schema.MaxSortKeyBytes, Valid: func(updated string) bool {
			return schema.ValidateComponent("", updated) == nil
		}},
	}}
}

// outgoingPosition locates the relationship entries of subject, of predicate or of
// every predicate when it is empty, in the relationship entries table.
func outgoingPosition(subject entity.Key, predicate string, sets map[string]bool) paging.Position {
	return paging.Position{Attrs: []paging.Attr{
		{Name: schema.AttrSubjectKey, Fixed: subject.String()},
		{Name: schema.AttrPredicateKey, Max: schema.MaxSortKeyBytes, Valid: func(k string) bool {
			e, ok := parsePredicateKey(k, sets)
			return ok && (predicate == "" || e.predicate == predicate)
		}},
	}}
}

// incomingPosition locates the relationship entries pointing at object, of predicate
// or of every predicate when it is empty, in the partition of the reverse index (or
// of the sharded one) whose key attribute attr is key.
func incomingPosition(object entity.Key, predicate string, sets map[string]bool, attr, key string) paging.Position {
	return paging.Position{
		Attrs: []paging.Attr{
			{Name: schema.AttrSubjectKey, Max: schema.MaxPartitionKeyBytes, Valid: func(k string) bool {
				_, ok := parseEntityKey(k)
				return ok
			}},
			{Name: schema.AttrPredicateKey, Max: schema.MaxSortKeyBytes, Valid: func(k string) bool {
				e, ok := parsePredicateKey(k, sets)
				return ok && e.objectType == object.Type && e.objectID == object.ID &&
					(e.objectScope == "" || e.objectScope == object.Scope) &&
					(predicate == "" || e.predicate == predicate)
			}},
			{Name: attr, Fixed: key},
			{Name: schema.AttrReverseKey, Max: schema.MaxSortKeyBytes},
		},
		// The reverse key is made of the other two: the subject, the predicate and
		// the position.
		Related: func(key map[string]string) bool {
			return ReverseKey(key[schema.AttrSubjectKey], key[schema.AttrPredicateKey], sets) == key[schema.AttrReverseKey]
		},
	}
}

// ReverseKey is the _reverse_key of the entry whose _subject_key and
// _predicate_key are subjectKey and predicateKey: the subject, the predicate and
// the position.
func ReverseKey(subjectKey, predicateKey string, sets map[string]bool) string {
	subject, _ := parseEntityKey(subjectKey)
	e, _ := parsePredicateKey(predicateKey, sets)
	return schema.ReverseKey(e.predicate, subject.Scope, subject.Type, subject.ID, e.index)
}

// lookupPosition locates the entries of the index named index of scope whose values
// cond matches, in the lookup index.
func lookupPosition(scope, index, partition string, cond indexing.Condition) paging.Position {
	return paging.Position{
		Attrs: []paging.Attr{
			{Name: schema.AttrSubjectKey, Max: schema.MaxPartitionKeyBytes, Valid: func(k string) bool {
				e, ok := parseEntityKey(k)
				return ok && e.Scope == scope
			}},
			{Name: schema.AttrUniqueKey, Max: schema.MaxSortKeyBytes},
			{Name: schema.AttrScopeIndexName, Fixed: partition},
			{Name: schema.AttrIndexKey, Max: schema.MaxSortKeyBytes, Valid: func(k string) bool {
				v, err := indexing.ParseValue(k)
				return err == nil && cond.Match(v)
			}},
		},
		Related: func(key map[string]string) bool {
			return key[schema.AttrUniqueKey] == schema.UniqueKey(index, key[schema.AttrIndexKey])
		},
	}
}

// inlinePosition locates the entities of typ in the GSI of the inline index named index,
// in slot (1 or 2), with the value cond matches.
func inlinePosition(scope, typ, index string, slot int, cond indexing.Condition) paging.Position {
	slot--
	return paging.Position{Attrs: []paging.Attr{
		{Name: schema.AttrID, Max: schema.MaxPartitionKeyBytes, Valid: func(id string) bool {
			return schema.ValidateEntityKey(scope, typ, id) == nil
		}},
		{Name: schema.AttrScopeTypeKey, Fixed: schema.ScopeTypeKey(scope, typ)},
		{Name: schema.AttrInlineName[slot], Fixed: schema.ScopeIndexName(scope, index)},
		{Name: schema.AttrInlineKey[slot], Max: schema.MaxSortKeyBytes, Valid: func(k string) bool {
			v, err := indexing.ParseValue(k)
			return err == nil && cond.Match(v)
		}},
	}}
}

// parseEntityKey reads a _subject_key or _object_key: the key of a valid entity,
// written as schema.SubjectKey writes it.
func parseEntityKey(s string) (entity.Key, bool) {
	parts, ok := schema.Split(s, 3)
	if !ok {
		return entity.Key{}, false
	}
	k := entity.Key{Scope: parts[0], Type: parts[1], ID: parts[2]}
	return k, schema.ValidateEntityKey(k.Scope, k.Type, k.ID) == nil && k.String() == s
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
	parts, ok := schema.Split(s, 4)
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
